//! `Engine::plan_search`: MutaGReP's plan search. A plan is a list of steps
//! in plain words; each step is grounded by retrieval in the repository's
//! symbols and scored by how well the best of them fits it (the cosine of
//! their embeddings). Best-first: the model proposes successors of the
//! best plan not yet expanded, shown its steps' grounding, until the budget
//! is spent; the best-scored plan wins.

use crate::api::{GroundedSymbol, Plan, PlanSearchRequest, PlanSearchResponse, PlanStep, SearchRequest};
use crate::{Engine, Error};
use ken_llm::Llm;
use ken_llm::plan::ShownStep;
use ken_search::Searcher;
use ken_store::Store;
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::time::Instant;

/// Grounds steps in the index, each step once.
struct Grounder<'a> {
    engine: &'a Engine,
    store: &'a Store,
    dense: Option<&'a crate::engine::DenseLane>,
    k: usize,
    done: RefCell<FxHashMap<String, PlanStep>>,
}

impl Grounder<'_> {
    fn ground(&self, intent: &str) -> Result<PlanStep, Error> {
        if let Some(step) = self.done.borrow().get(intent) {
            return Ok(step.clone());
        }
        let search = SearchRequest { query: intent.to_string(), k: Some(self.k), ..SearchRequest::default() };
        let hits = self.engine.search(&search)?.hits;
        // How well each symbol fits: the cosine of the step and the symbol.
        let ids: Vec<i64> = hits.iter().filter(|h| h.unit == "symbol").filter_map(|h| h.symbol_id).collect();
        let cosines = match self.dense {
            Some(dense) => {
                let searcher = Searcher {
                    store: self.store,
                    shard: Some(&dense.shard),
                    embedder: Some(&*dense.embedder),
                    dense_off: None,
                    statics: None,
                    intents: None,
                };
                let vector = dense.embedder.embed_query(intent).map_err(ken_search::SearchError::from)?;
                searcher.symbol_relevance(intent, Some(vector), &ids)?.dense
            }
            None => FxHashMap::default(),
        };
        let symbols: Vec<GroundedSymbol> = hits
            .iter()
            .enumerate()
            .map(|(rank, h)| GroundedSymbol {
                qualified_name: h.qualified_name.clone(),
                kind: h.kind,
                path: h.path.clone(),
                start_line: h.start_line,
                end_line: h.end_line,
                // Without vectors the search's order stands in: 1, 1/2, 1/3…
                score: h.symbol_id.and_then(|id| cosines.get(&id).copied()).unwrap_or(if self.dense.is_some() {
                    0.0
                } else {
                    1.0 / (rank + 1) as f32
                }),
            })
            .collect();
        let mut symbols = symbols;
        symbols.sort_by(|a, b| b.score.total_cmp(&a.score));
        let score = symbols.first().map_or(0.0, |s| s.score);
        let step = PlanStep { intent: intent.to_string(), score, symbols };
        self.done.borrow_mut().insert(intent.to_string(), step.clone());
        Ok(step)
    }

    fn plan(&self, intents: &[String]) -> Result<Plan, Error> {
        let steps = intents.iter().map(|i| self.ground(i)).collect::<Result<Vec<_>, _>>()?;
        let score = if steps.is_empty() { 0.0 } else { steps.iter().map(|s| s.score).sum::<f32>() / steps.len() as f32 };
        Ok(Plan { score, steps })
    }
}

/// The model's successor of `current`, or why it gave none.
fn propose(llm: &dyn Llm, feature: &str, current: &Plan, max_steps: usize, variant: usize) -> Result<Vec<String>, String> {
    let shown: Vec<ShownStep<'_>> = current
        .steps
        .iter()
        .map(|s| ShownStep {
            intent: &s.intent,
            symbols: s.symbols.iter().take(3).map(|g| g.qualified_name.as_str()).collect(),
            score: s.score,
        })
        .collect();
    let request = ken_llm::plan::request(feature, &shown, max_steps, variant);
    llm.chat(&request, &mut |_| {}).and_then(|c| ken_llm::plan::parse(&c)).map_err(|e| e.to_string())
}

impl Engine {
    pub fn plan_search(&self, request: &PlanSearchRequest) -> Result<PlanSearchResponse, Error> {
        request.validate()?;
        let started = Instant::now();
        let (expansions, branching, max_steps) =
            (request.expansions.unwrap_or(3), request.branching.unwrap_or(2), request.max_steps.unwrap_or(5));
        let store = self.store()?;
        let (dense, _, _) = self.dense_lanes(&store, false, true, 0.0, None)?;
        let grounder = Grounder { engine: self, store: &store, dense: dense.as_ref(), k: request.k.unwrap_or(3), done: Default::default() };
        let mut notes = Vec::new();
        if dense.is_none() {
            notes.push("no vectors in this index: steps are scored by the search's order, not by fit".to_string());
        }
        let feature = request.request.trim();
        let respond = |plan: Plan, explored: usize, model: Option<String>, notes: Vec<String>| PlanSearchResponse {
            request: feature.to_string(),
            plan,
            explored,
            model,
            notes,
            seconds: started.elapsed().as_secs_f64(),
        };
        let llm = match self.llm() {
            Ok(llm) => llm,
            Err(why) => {
                notes.push(format!("no language model: {why}; the plan is the request itself, grounded"));
                let plan = grounder.plan(&[format!("I want to {feature}")])?;
                return Ok(respond(plan, 1, None, notes));
            }
        };
        let mut plans: Vec<(Plan, bool)> = Vec::new();
        let mut failures = Vec::new();
        let mut successors = |parent: &Plan, plans: &mut Vec<(Plan, bool)>| -> Result<(), Error> {
            for variant in 0..branching {
                match propose(&*llm, feature, parent, max_steps, variant) {
                    Ok(steps) if plans.iter().any(|(p, _)| p.steps.iter().map(|s| &s.intent).eq(steps.iter())) => {}
                    Ok(steps) => plans.push((grounder.plan(&steps)?, false)),
                    Err(why) => failures.push(why),
                }
            }
            Ok(())
        };
        successors(&Plan { score: 0.0, steps: Vec::new() }, &mut plans)?;
        for _ in 0..expansions {
            let best = plans.iter().enumerate().filter(|(_, (_, expanded))| !expanded).max_by(|a, b| a.1.0.score.total_cmp(&b.1.0.score));
            let Some((index, _)) = best else { break };
            plans[index].1 = true;
            let parent = plans[index].0.clone();
            successors(&parent, &mut plans)?;
        }
        if !failures.is_empty() {
            notes.push(format!("{} proposals were unusable (first: {})", failures.len(), failures[0]));
        }
        let explored = plans.len();
        let best = plans.into_iter().map(|(plan, _)| plan).max_by(|a, b| a.score.total_cmp(&b.score));
        let plan = match best {
            Some(plan) => plan,
            None => {
                notes.push("the model proposed no usable plan; the plan is the request itself, grounded".into());
                grounder.plan(&[format!("I want to {feature}")])?
            }
        };
        Ok(respond(plan, explored, Some(llm.model_id().to_string()), notes))
    }
}
