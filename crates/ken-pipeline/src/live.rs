//! Stage 2 with live language servers: breadth-first, one depth level at a
//! time, each frontier symbol asks its server for incoming calls and
//! references at once (the bridge bounds requests in flight and each
//! request's time). Answers are mapped back to the symbols of the index
//! that enclose them. A symbol whose server is missing, slow, broken or
//! out of budget is expanded over the static graph instead, and the report
//! says which and why: an answer is never lost to a language server.

use crate::config::PipelineConfig;
use crate::graph::{self, CodeGraph, Limits, Origin, Via, is_noise};
use ken_core::SymbolKind;
use ken_lsp::{LspBridge, SymbolPosition};
use ken_store::{Store, StoreError};
use serde::Serialize;
use std::time::{Duration, Instant};

/// Live expansion: a bridge to the language servers and a runtime to drive it.
pub struct Live<'a> {
    pub bridge: &'a LspBridge,
    pub runtime: &'a tokio::runtime::Handle,
}

#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct LiveReport {
    /// Servers that answered.
    pub servers: Vec<String>,
    pub requests: usize,
    pub cached: usize,
    /// Symbols expanded (live or by fallback).
    pub expanded_nodes: usize,
    /// Symbols expanded with the static graph instead.
    pub fallback_nodes: usize,
    /// Why (distinct reasons).
    pub reasons: Vec<String>,
    pub budget_exhausted: bool,
    pub lsp_ms: f64,
}

/// What one symbol's server said: callers and references, as (path, line).
struct Answer {
    sites: Vec<(String, u32, &'static str)>,
    servers: Vec<String>,
    requests: usize,
    cached: usize,
}

impl Live<'_> {
    pub(crate) fn expand(
        &self,
        store: &Store,
        graph: &mut CodeGraph,
        limits: &Limits,
        config: &PipelineConfig,
    ) -> Result<LiveReport, StoreError> {
        let started = Instant::now();
        let deadline = started + Duration::from_millis(config.lsp.budget_ms);
        let mut report = LiveReport::default();
        let mut frontier: Vec<usize> = (0..graph.nodes.len()).collect();
        for _level in 0..limits.max_depth {
            if frontier.is_empty() || graph.nodes.len() >= limits.max_nodes {
                break;
            }
            let positions: Vec<SymbolPosition> = frontier
                .iter()
                .map(|&n| {
                    let s = &graph.nodes[n].symbol;
                    SymbolPosition {
                        path: s.path.clone(),
                        language: s.language.name().to_string(),
                        line: s.start_line,
                        col: s.start_col,
                        name: s.name.clone(),
                    }
                })
                .collect();
            let remaining = deadline.saturating_duration_since(Instant::now());
            let answers = self.runtime.block_on(ask_all(self.bridge, positions, remaining));
            let mut next = Vec::new();
            for (&at, answer) in frontier.iter().zip(answers) {
                report.expanded_nodes += 1;
                match answer {
                    Ok(answer) => {
                        report.requests += answer.requests;
                        report.cached += answer.cached;
                        for server in answer.servers {
                            if !report.servers.contains(&server) {
                                report.servers.push(server);
                            }
                        }
                        next.extend(self.add_sites(store, graph, at, answer.sites, limits)?);
                    }
                    Err(reason) => {
                        report.fallback_nodes += 1;
                        if reason.contains("budget") {
                            report.budget_exhausted = true;
                        }
                        if !report.reasons.contains(&reason) {
                            report.reasons.push(reason);
                        }
                        next.extend(graph::grow_static(store, graph, at, limits)?);
                    }
                }
                if graph.truncated {
                    break;
                }
            }
            frontier = next;
        }
        report.lsp_ms = crate::ms(started);
        Ok(report)
    }

    /// Turns call and reference sites into nodes and edges: the symbol of
    /// the index enclosing a site uses the node at `at`.
    fn add_sites(
        &self,
        store: &Store,
        graph: &mut CodeGraph,
        at: usize,
        sites: Vec<(String, u32, &'static str)>,
        limits: &Limits,
    ) -> Result<Vec<usize>, StoreError> {
        let depth = graph.nodes[at].depth();
        let own = graph.nodes[at].symbol.clone();
        let mut added = Vec::new();
        for (path, line, relation) in sites {
            // The declaration itself, and sites inside the symbol (recursion).
            if path == own.path && (own.start_line..=own.end_line).contains(&line) {
                continue;
            }
            let Some(user) = store.symbol_at(&path, line)? else { continue };
            if user.kind == SymbolKind::Module {
                continue; // an import or module-level line: no symbol to show
            }
            if let Some(&existing) = graph.index.get(&user.id) {
                graph.add_edge(existing, at, relation, Via::Lsp);
                continue;
            }
            if is_noise(&user.name, limits.noise) {
                graph.noise_dropped += 1;
                continue;
            }
            if added.len() >= limits.max_neighbors {
                continue;
            }
            if graph.nodes.len() >= limits.max_nodes {
                graph.truncated = true;
                break;
            }
            let label = if relation == "calls" { "CalledBy" } else { "ReferencedBy" };
            let i = graph.add(user, Origin::Reached { from: at, relation: label.into(), via: Via::Lsp, depth: depth + 1 });
            graph.add_edge(i, at, relation, Via::Lsp);
            added.push(i);
        }
        Ok(added)
    }
}

/// Incoming calls and references of every position, concurrently, within
/// `budget`. An `Err` says why a position got no live answer.
async fn ask_all(bridge: &LspBridge, positions: Vec<SymbolPosition>, budget: Duration) -> Vec<Result<Answer, String>> {
    let mut tasks = tokio::task::JoinSet::new();
    let count = positions.len();
    for (i, at) in positions.into_iter().enumerate() {
        let bridge = bridge.clone();
        tasks.spawn(async move { (i, ask(&bridge, &at).await) });
    }
    let mut out: Vec<Option<Result<Answer, String>>> = (0..count).map(|_| None).collect();
    let collect = async {
        while let Some(joined) = tasks.join_next().await {
            if let Ok((i, answer)) = joined {
                out[i] = Some(answer);
            }
        }
    };
    let _ = tokio::time::timeout(budget, collect).await;
    tasks.abort_all();
    out.into_iter().map(|a| a.unwrap_or_else(|| Err(format!("the LSP budget of {} ms ran out", budget.as_millis())))).collect()
}

async fn ask(bridge: &LspBridge, at: &SymbolPosition) -> Result<Answer, String> {
    let (calls, refs) = tokio::join!(bridge.incoming_calls(at), bridge.references(at));
    let mut answer = Answer { sites: Vec::new(), servers: Vec::new(), requests: 0, cached: 0 };
    let mut errors = Vec::new();
    match calls {
        Ok(a) => {
            answer.requests += 1;
            answer.cached += a.cached as usize;
            answer.servers.push(a.server.clone());
            // A server without call hierarchy answered with references: those come below anyway.
            if a.fallback.is_none() {
                for call in a.value {
                    answer.sites.push((call.location.path.clone(), call.location.start_line, "calls"));
                }
            }
        }
        Err(e) => errors.push(e.to_string()),
    }
    match refs {
        Ok(a) => {
            answer.requests += 1;
            answer.cached += a.cached as usize;
            if !answer.servers.contains(&a.server) {
                answer.servers.push(a.server.clone());
            }
            for loc in a.value {
                answer.sites.push((loc.path.clone(), loc.start_line, "references"));
            }
        }
        Err(e) => errors.push(e.to_string()),
    }
    if answer.requests == 0 {
        return Err(errors.first().cloned().unwrap_or_else(|| "no answer".into()));
    }
    Ok(answer)
}
