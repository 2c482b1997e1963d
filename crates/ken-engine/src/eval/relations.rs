//! The callers and subclasses sets of `ken eval`, with the language servers
//! as the oracle: for a sample of the index's functions and classes, the
//! server says who calls each (call hierarchy) and which classes derive
//! from each (`textDocument/implementation`, followed to a closure, as the
//! graph's subclasses are transitive). The index's graph is scored against
//! that beside a name match, what ripgrep finds: the definitions holding
//! `name(`, or a class header that names the base.
//!
//! The sample is drawn before anyone answers, so the graph cannot choose
//! its questions; a question the server answers with nothing is dropped.

use super::{percentile, sample};
use crate::api::{EvalRow, EvalSet, GrepRequest};
use crate::{Engine, Error};
use ken_core::{Language, SymbolKind};
use ken_lsp::{Location, LspBridge, LspError, SymbolPosition};
use ken_store::{Store, SymbolRow};
use rustc_hash::FxHashSet;
use std::time::Instant;

/// Questions asked of the server per case wanted: most functions have
/// callers, but most classes have no subclass.
const ASKS_PER_CASE: usize = 4;
/// Questions in flight at once (the bridge bounds its servers' load too).
const BATCH: usize = 16;
/// A class's subclasses are followed this far; deeper ones are rare.
const MAX_SUBCLASS_DEPTH: usize = 6;
/// Lines a name match reads (`GrepRequest`'s own bound).
const NAME_MATCH_LINES: usize = 1000;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Relation {
    Callers,
    Subclasses,
}

impl Relation {
    pub(super) fn name(self) -> &'static str {
        match self {
            Relation::Callers => "callers",
            Relation::Subclasses => "subclasses",
        }
    }

    /// Whether a definition can be asked about, and the server's answer trusted.
    fn asks(self, symbol: &SymbolRow) -> bool {
        let named = symbol.name.chars().count() >= 3 && !symbol.name.starts_with("__");
        named
            && match self {
                Relation::Callers => symbol.kind.is_callable(),
                // gopls answers a struct's implementation with the
                // interfaces it satisfies, the other direction; an
                // interface's with the types that satisfy it.
                Relation::Subclasses => match symbol.language {
                    Language::Go => symbol.kind == SymbolKind::Interface,
                    _ => matches!(symbol.kind, SymbolKind::Class | SymbolKind::Struct),
                },
            }
    }
}

/// A system's answer for a definition: symbol ids, best first.
type Answerer<'a> = dyn Fn(&SymbolRow) -> Result<Vec<i64>, Error> + 'a;

/// A definition and the definitions the server relates to it (symbol ids).
pub(super) struct RelationCase {
    symbol: SymbolRow,
    gold: FxHashSet<i64>,
}

impl Engine {
    /// The cases of `relation`: up to `n` sampled definitions the server
    /// answers for, with notes on what could not be asked.
    pub(super) fn relation_cases(
        &self,
        store: &Store,
        definitions: &[SymbolRow],
        relation: Relation,
        n: usize,
        notes: &mut Vec<String>,
    ) -> Result<Vec<RelationCase>, Error> {
        let (Some(bridge), Some(runtime)) = (&self.lsp, &self.runtime) else { return Ok(Vec::new()) };
        let askable: Vec<&SymbolRow> =
            definitions.iter().filter(|d| relation.asks(d) && bridge.server_for(d.language.name()).is_some()).collect();
        if askable.is_empty() {
            let what = match relation {
                Relation::Callers => "function or method",
                Relation::Subclasses => "class (in Go, interface)",
            };
            notes.push(format!("no {} set: no {what} in a language with a language server on PATH", relation.name()));
            return Ok(Vec::new());
        }
        let mut candidates = sample(askable, usize::MAX, |d| format!("{}:{}", d.path, d.qualified_name));
        candidates.truncate(n.saturating_mul(ASKS_PER_CASE));
        let mut cases = Vec::new();
        let mut silent: FxHashSet<String> = FxHashSet::default();
        let mut failures: Vec<String> = Vec::new();
        for batch in candidates.chunks(BATCH) {
            if cases.len() >= n {
                break;
            }
            let batch: Vec<&SymbolRow> = batch.iter().copied().filter(|d| !silent.contains(d.language.name())).collect();
            let answers = runtime.block_on(ask_all(bridge, relation, &batch));
            for (symbol, answer) in batch.into_iter().zip(answers) {
                let locations = match answer {
                    Ok(l) => l,
                    Err(LspError::Unsupported { server, method }) => {
                        if silent.insert(symbol.language.name().to_string()) {
                            notes.push(format!("no {} set for {}: {server} does not answer {method}", relation.name(), symbol.language));
                        }
                        continue;
                    }
                    Err(e) => {
                        failures.push(e.to_string());
                        continue;
                    }
                };
                let mut gold = related(store, symbol, relation, &locations)?;
                // gopls names every type satisfying an interface at once,
                // and asked about those types it would name interfaces.
                if relation == Relation::Subclasses && symbol.language != Language::Go {
                    gold = subclass_closure(store, bridge, runtime, symbol, gold)?;
                }
                if !gold.is_empty() && cases.len() < n {
                    cases.push(RelationCase { symbol: symbol.clone(), gold });
                }
            }
        }
        if cases.is_empty() && silent.is_empty() {
            notes.push(format!("no {} set: no language server answered for a sampled definition", relation.name()));
        }
        if let Some(first) = failures.first() {
            let (count, relation) = (failures.len(), relation.name());
            notes.push(format!("{count} {relation} questions failed at the language server and were left out (the first: {first})"));
        }
        Ok(cases)
    }

    /// Scores the graph and the name match on the cases.
    pub(super) fn run_relation_set(&self, store: &Store, relation: Relation, cases: &[RelationCase]) -> Result<EvalSet, Error> {
        let graph = ken_graph::Graph::new(store);
        let systems: [(&str, &Answerer); 2] = [
            ("graph", &|symbol| {
                let traversal = match relation {
                    Relation::Callers => graph.callers(symbol.clone(), 1)?,
                    Relation::Subclasses => graph.subclasses(symbol.clone())?,
                };
                Ok(distinct(traversal.hits.into_iter().map(|h| h.symbol.id), symbol.id))
            }),
            ("name match", &|symbol| self.name_match(store, relation, symbol)),
        ];
        let mut rows = Vec::new();
        let mut misses = Vec::new();
        for (name, answer) in systems {
            let (mut reciprocal, mut recall, mut precision, mut times) = (0.0, 0.0, 0.0, Vec::new());
            for case in cases {
                let started = Instant::now();
                let answer = answer(&case.symbol)?;
                times.push(started.elapsed().as_secs_f64() * 1000.0);
                let top: Vec<bool> = answer.iter().take(10).map(|id| case.gold.contains(id)).collect();
                if let Some(rank) = top.iter().position(|&right| right) {
                    reciprocal += 1.0 / (rank + 1) as f64;
                }
                recall += top.iter().filter(|&&right| right).count() as f64 / case.gold.len().min(10) as f64;
                let confirmed = answer.iter().filter(|id| case.gold.contains(id)).count();
                if rows.is_empty() && confirmed < case.gold.len() {
                    misses.push(missed(store, case, &answer)?);
                }
                precision += if answer.is_empty() { 0.0 } else { confirmed as f64 / answer.len() as f64 };
            }
            times.sort_by(f64::total_cmp);
            let n = cases.len().max(1) as f64;
            rows.push(EvalRow {
                system: name.to_string(),
                mrr_at_10: reciprocal / n,
                recall_at_10: recall / n,
                precision: Some(precision / n),
                p50_ms: percentile(&times, 0.5),
                p95_ms: percentile(&times, 0.95),
            });
        }
        Ok(EvalSet { name: relation.name().to_string(), queries: cases.len(), rows, misses })
    }

    /// What a text search finds: the definitions around `name(`, or the
    /// classes whose header names `name`, in file order.
    fn name_match(&self, store: &Store, relation: Relation, symbol: &SymbolRow) -> Result<Vec<i64>, Error> {
        let name = regex::escape(&symbol.name);
        let pattern = match relation {
            Relation::Callers => format!(r"\b{name}\s*\("),
            Relation::Subclasses => format!(r"\b(class|struct|interface)\s+\w+[^{{;]*\b{name}\b"),
        };
        let request = GrepRequest { pattern, limit: Some(NAME_MATCH_LINES), ..Default::default() };
        let mut ids = Vec::new();
        for hit in self.grep(&request)?.matches {
            let Some(user) = store.symbol_at(&hit.path, hit.line)? else { continue };
            let wanted = match relation {
                Relation::Callers => user.kind != SymbolKind::Module,
                Relation::Subclasses => user.kind.is_type() && user.start_line == hit.line,
            };
            if wanted {
                ids.push(user.id);
            }
        }
        Ok(distinct(ids.into_iter(), symbol.id))
    }
}

/// The classes derived from `symbol`, level by level: clangd names the
/// direct ones, tsserver every one.
fn subclass_closure(
    store: &Store,
    bridge: &LspBridge,
    runtime: &tokio::runtime::Handle,
    symbol: &SymbolRow,
    direct: FxHashSet<i64>,
) -> Result<FxHashSet<i64>, Error> {
    let mut all = direct.clone();
    let mut frontier: Vec<SymbolRow> = direct.iter().filter_map(|&id| store.symbol_by_id(id).ok().flatten()).collect();
    for _ in 1..MAX_SUBCLASS_DEPTH {
        if frontier.is_empty() {
            break;
        }
        let asked: Vec<&SymbolRow> = frontier.iter().collect();
        let answers = runtime.block_on(ask_all(bridge, Relation::Subclasses, &asked));
        let mut next = Vec::new();
        for (derived, answer) in asked.into_iter().zip(answers) {
            let Ok(locations) = answer else { continue };
            for id in related(store, derived, Relation::Subclasses, &locations)? {
                if id != symbol.id && all.insert(id) {
                    next.extend(store.symbol_by_id(id)?);
                }
            }
        }
        frontier = next;
    }
    Ok(all)
}

/// The server's answers for `symbols`, in their order, all asked at once (the
/// bridge's permits bound what is in flight; callers batch by `BATCH`).
async fn ask_all(bridge: &LspBridge, relation: Relation, symbols: &[&SymbolRow]) -> Vec<Result<Vec<Location>, LspError>> {
    let mut tasks = tokio::task::JoinSet::new();
    for (i, symbol) in symbols.iter().enumerate() {
        let bridge = bridge.clone();
        let at = SymbolPosition::new(&symbol.path, symbol.language.name(), symbol.start_line, symbol.start_col, &symbol.name);
        tasks.spawn(async move {
            let answer = match relation {
                Relation::Callers => bridge.incoming_calls(&at).await.map(|a| a.value.into_iter().flat_map(|c| c.from).collect()),
                Relation::Subclasses => bridge.implementations(&at).await.map(|a| a.value),
            };
            (i, answer)
        });
    }
    let mut answers: Vec<Option<Result<Vec<Location>, LspError>>> = (0..symbols.len()).map(|_| None).collect();
    while let Some(done) = tasks.join_next().await {
        if let Ok((i, answer)) = done {
            answers[i] = Some(answer);
        }
    }
    answers.into_iter().map(|a| a.unwrap_or_else(|| Err(LspError::Io("the question's task ended without an answer".into())))).collect()
}

/// The index's definitions at the server's locations: the function around
/// each call (module-level code has none), or each derived class.
fn related(store: &Store, symbol: &SymbolRow, relation: Relation, locations: &[Location]) -> Result<FxHashSet<i64>, Error> {
    let mut ids = FxHashSet::default();
    for location in locations {
        let Some(found) = store.symbol_at(&location.path, location.start_line)? else { continue };
        let wanted = match relation {
            Relation::Callers => found.kind != SymbolKind::Module,
            // The server points at the derived class's name; one of the
            // same name is the class itself (a `.d.ts` declaration's
            // implementation in JavaScript), not a subclass.
            Relation::Subclasses => found.kind.is_type() && found.start_line == location.start_line && found.name != symbol.name,
        };
        if wanted && found.id != symbol.id {
            ids.insert(found.id);
        }
    }
    Ok(ids)
}

/// `Asked: path:line name, …`: what the server named and the answer lacks.
fn missed(store: &Store, case: &RelationCase, answer: &[i64]) -> Result<String, Error> {
    let mut lacking: Vec<SymbolRow> = Vec::new();
    for &id in case.gold.iter().filter(|id| !answer.contains(id)) {
        lacking.extend(store.symbol_by_id(id)?);
    }
    lacking.sort_by(|a, b| (&a.path, a.start_line).cmp(&(&b.path, b.start_line)));
    let named: Vec<String> = lacking.iter().map(|s| format!("{}:{} {}", s.path, s.start_line, s.name)).collect();
    Ok(format!("{} ({}:{}): {}", case.symbol.qualified_name, case.symbol.path, case.symbol.start_line, named.join(", ")))
}

/// `ids` in order, once each, without the asked symbol itself.
fn distinct(ids: impl Iterator<Item = i64>, asked: i64) -> Vec<i64> {
    let mut seen = FxHashSet::default();
    ids.filter(|&id| id != asked && seen.insert(id)).collect()
}
