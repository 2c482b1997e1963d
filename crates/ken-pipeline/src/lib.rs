//! The hybrid search pipeline (CodexLens, seed 003): five stages that turn a
//! query into ranked clusters of related symbols.
//!
//! 1. **Seeds**: hybrid retrieval (dense + BM25 + exact names), `top_k × 2`.
//! 2. **Expansion** and 3. **graph building** (`graph.rs`, `live.rs`):
//!    breadth-first from the seeds over the static dependency graph, or over
//!    live language servers with a per-symbol fallback to the static graph.
//! 4. **Clustering** (`louvain.rs`): Louvain communities at a resolution;
//!    generic names are filtered out; clusters smaller than
//!    `min_cluster_size` are dropped unless they hold a strong seed.
//! 5. **Reranking** (`rank.rs`): text relevance, PageRank in the cluster and
//!    proximity to seeds, weighted (0.4 / 0.35 / 0.25 by default). By
//!    default (`MemberOrder::Retrieval`) seeds keep retrieval's order and
//!    the weighted factors order the symbols the expansion reached below
//!    them; `factors` is seed 003's order, by the factors alone.
//!
//! Every response carries per-stage timings and, per symbol, why it is
//! there. Reads the index (SQLite and the vector shard) and source files
//! for `raw_code`; writes nothing.

mod config;
mod graph;
mod live;
pub mod louvain;
mod rank;

pub use config::{
    CONFIG_FILE, ConfigError, ConfigFile, Expansion, LspServer, LspSettings, MAX_TOP_K, MemberOrder, Overrides, PipelineConfig,
    RankingWeights, ServerSettings, Source, user_config_path,
};
pub use graph::{NOISE_NAMES, Origin, Via};
pub use live::{Live, LiveReport};
pub use rank::Factors;

use graph::{CodeGraph, Limits};
use ken_core::SymbolKind;
use ken_search::{SearchError, SearchOptions, Searcher};
use ken_store::{StoreError, SymbolRow};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// A graph node with its ranking factors and its score.
type ScoredNode = (usize, Factors, f64);

#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Search(#[from] SearchError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Seed 003's response: clusters of symbols, plus how the answer was made.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct PipelineResponse {
    pub query_id: String,
    pub execution_time_ms: u64,
    pub results: Vec<Cluster>,
    pub query: String,
    pub timings: StageTimings,
    pub expansion: ExpansionReport,
    /// What the caller should know: a lane that was off, a fallback…
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Cluster {
    pub cluster_id: String,
    pub score: f64,
    pub title: String,
    /// What the members do together, in the language model's words
    /// (CodexLens), when titles by the model were asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llm_title: Option<String>,
    pub symbols: Vec<ClusterSymbol>,
    pub metadata: ClusterMetadata,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ClusterMetadata {
    pub size: usize,
    pub seeds: usize,
    pub files: usize,
    pub edges: usize,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ClusterSymbol {
    /// `file_path:name:line`.
    pub id: String,
    pub name: String,
    pub qualified_name: String,
    #[schemars(with = "String")]
    pub kind: SymbolKind,
    pub file_path: String,
    pub range: Range,
    pub score: f64,
    pub raw_code: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<Explanation>,
}

/// Lines are 1-based (as everywhere in ken); `char` is the 0-based byte column.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct Range {
    pub start: Position,
    pub end: Position,
}

#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct Position {
    pub line: u32,
    pub char: u32,
}

/// Why a symbol is in the answer.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Explanation {
    #[serde(flatten)]
    pub origin: ExplainOrigin,
    pub factors: Factors,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
#[serde(tag = "origin", rename_all = "lowercase")]
pub enum ExplainOrigin {
    Seed {
        rank: usize,
        lanes: ken_search::LaneRanks,
    },
    /// `from` (seed 003's id) and `from_name` (qualified) `relation` this symbol.
    Reached {
        from: String,
        from_name: String,
        relation: String,
        via: Via,
        depth: u32,
    },
}

#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct StageTimings {
    pub embed_ms: f64,
    pub seeds_ms: f64,
    pub expansion_ms: f64,
    pub clustering_ms: f64,
    pub ranking_ms: f64,
    pub total_ms: f64,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ExpansionReport {
    pub mode: Expansion,
    pub seeds: usize,
    pub nodes: usize,
    pub edges: usize,
    pub depth_reached: u32,
    /// `max_nodes` stopped the growth.
    pub truncated: bool,
    /// Generic names left out by the noise filter.
    pub noise_filtered: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lsp: Option<LiveReport>,
}

/// What the pipeline reads: the index, the source tree and optionally live
/// language servers.
pub struct Pipeline<'a> {
    pub searcher: Searcher<'a>,
    /// The repository root, for `raw_code`.
    pub root: PathBuf,
    pub live: Option<Live<'a>>,
    /// Stage 1's answer when the caller retrieved already (a query expanded
    /// by the language model and fused): the seeds come from it.
    pub retrieved: Option<ken_search::SearchResponse>,
}

impl Pipeline<'_> {
    /// Runs the five stages. `filters` carries stage 1's language, kind,
    /// path and mode settings; its `k` is replaced by `top_k × 2`.
    pub fn run(
        &self,
        query: &str,
        filters: &SearchOptions,
        config: &PipelineConfig,
        explain: bool,
    ) -> Result<PipelineResponse, PipelineError> {
        let start = Instant::now();
        let mut timings = StageTimings::default();
        let mut notes = Vec::new();

        let t = Instant::now();
        let (query_vector, embed_ms) = self.query_vector(query, filters, &mut notes);
        let (mut graph, query_text) = self.seed(query, filters, query_vector.clone(), config, &mut notes)?;
        let seeds = graph.nodes.len();
        timings.embed_ms = embed_ms;
        timings.seeds_ms = ms(t);

        let t = Instant::now();
        let live_report = self.expand(&mut graph, config, &mut notes)?;
        timings.expansion_ms = ms(t);

        let t = Instant::now();
        let (membership, groups) = cluster(&graph, config);
        timings.clustering_ms = ms(t);

        let t = Instant::now();
        let results = self.rank(query, query_vector, &graph, &membership, groups, config, explain)?;
        timings.ranking_ms = ms(t);
        timings.total_ms = ms(start);
        let expansion = ExpansionReport {
            mode: config.expansion,
            seeds,
            nodes: graph.nodes.len(),
            edges: graph.edges.len(),
            depth_reached: graph.depth_reached,
            truncated: graph.truncated,
            noise_filtered: graph.noise_dropped,
            lsp: live_report,
        };
        Ok(PipelineResponse {
            query_id: query_id(),
            execution_time_ms: start.elapsed().as_millis() as u64,
            results,
            query: query_text,
            timings,
            expansion,
            notes,
        })
    }

    /// The query's embedding, made once: stage 1 searches with it and stage 5
    /// scores every node against it. Also the milliseconds it took.
    fn query_vector(&self, query: &str, filters: &SearchOptions, notes: &mut Vec<String>) -> (Option<Vec<f32>>, f64) {
        if filters.query_vector.is_some() || !filters.mode.uses_dense() || self.searcher.shard.is_none() {
            return (filters.query_vector.clone(), 0.0);
        }
        let Some(embedder) = self.searcher.embedder else { return (None, 0.0) };
        let t = Instant::now();
        let vector = match embedder.embed_query(query) {
            Ok(v) => Some(v),
            Err(e) => {
                notes.push(format!("semantic lane off: {e}"));
                None
            }
        };
        (vector, ms(t))
    }

    /// Stage 1: hybrid retrieval of `top_k × 2` hits; each symbol hit (a
    /// chunk counts as the symbol it is named after) becomes a seed node.
    /// Also the query as the search understood it.
    fn seed(
        &self,
        query: &str,
        filters: &SearchOptions,
        query_vector: Option<Vec<f32>>,
        config: &PipelineConfig,
        notes: &mut Vec<String>,
    ) -> Result<(CodeGraph, String), PipelineError> {
        let options = SearchOptions { k: config.top_k * 2, query_vector, ..filters.clone() };
        let retrieved = match &self.retrieved {
            Some(retrieved) => retrieved.clone(),
            None => self.searcher.search(query, &options)?,
        };
        notes.extend(retrieved.notes.iter().cloned());
        let mut graph = CodeGraph::default();
        for (rank, hit) in retrieved.hits.iter().enumerate() {
            let Some(id) = hit.symbol_id else { continue };
            if graph.index.contains_key(&id) {
                continue; // a chunk of a symbol already seeded
            }
            if let Some(symbol) = self.searcher.store.symbol_by_id(id)? {
                graph.add(symbol, Origin::Seed { rank: rank + 1, score: hit.score, lanes: hit.lanes });
            }
        }
        Ok((graph, retrieved.query))
    }

    /// Stages 2–3: grow the graph from the seeds over the stored graph or
    /// live language servers, then add every stored edge between its nodes.
    fn expand(&self, graph: &mut CodeGraph, config: &PipelineConfig, notes: &mut Vec<String>) -> Result<Option<LiveReport>, PipelineError> {
        let store = self.searcher.store;
        let seeds = graph.nodes.len();
        let limits = Limits {
            max_depth: config.max_graph_depth,
            max_nodes: config.max_nodes.max(seeds),
            max_neighbors: config.max_neighbors,
            noise: &config.noise_names,
        };
        let mut live_report = None;
        match (config.expansion, &self.live) {
            (Expansion::Lsp, Some(live)) => {
                let report = live.expand(store, graph, &limits, config)?;
                if report.fallback_nodes > 0 {
                    notes.push(format!(
                        "{} of {} symbols were expanded with the static graph instead of a language server ({})",
                        report.fallback_nodes,
                        report.expanded_nodes,
                        report.reasons.join("; ")
                    ));
                }
                live_report = Some(report);
            }
            (Expansion::Lsp, None) => {
                notes.push("live expansion is not available here; used the static graph".into());
                graph::expand_static(store, graph, 0..seeds, &limits)?;
            }
            (Expansion::Static, _) => graph::expand_static(store, graph, 0..seeds, &limits)?,
        }
        graph::connect_static(store, graph)?;
        Ok(live_report)
    }

    /// Stage 5: text relevance for every node, factors per cluster, the
    /// clusters ranked by their best member and cut to `top_k`, each with
    /// its members' code.
    #[allow(clippy::too_many_arguments)]
    fn rank(
        &self,
        query: &str,
        query_vector: Option<Vec<f32>>,
        graph: &CodeGraph,
        membership: &[usize],
        mut groups: Vec<Vec<usize>>,
        config: &PipelineConfig,
        explain: bool,
    ) -> Result<Vec<Cluster>, PipelineError> {
        let text = self.text_relevance(query, query_vector, graph)?;
        let strong = |node: usize| graph.nodes[node].is_seed() && text[node] >= config.strong_seed;
        groups.retain(|members| members.len() >= config.min_cluster_size || members.iter().any(|&m| strong(m)));
        let mut files = SourceFiles::new(&self.root);
        let distance = rank::seed_distances(graph);
        let fused_top = graph.nodes.iter().filter_map(|n| n.origin.seed_score()).fold(0.0f32, f32::max);
        let member_score = |m: usize, factors: &Factors| {
            let weighted = factors.score(&config.ranking_weights);
            match (config.order, graph.nodes[m].origin.seed_score()) {
                (MemberOrder::Factors, _) => weighted,
                // Seeds in [0.5, 1] by their retrieval score; reached
                // symbols below 0.5 by their factors (weights summing to 1).
                (MemberOrder::Retrieval, Some(score)) if fused_top > 0.0 => 0.5 + 0.5 * (score / fused_top).clamp(0.0, 1.0) as f64,
                (MemberOrder::Retrieval, _) => 0.5 * weighted / config.ranking_weights.sum(),
            }
        };
        let mut clusters: Vec<(f64, Vec<ScoredNode>)> = groups
            .iter()
            .map(|members| {
                let structure = rank::structure(graph, members, &distance);
                let mut scored: Vec<ScoredNode> = members
                    .iter()
                    .zip(structure)
                    .map(|(&m, (centrality, proximity))| {
                        let factors = Factors { text: text[m], centrality, proximity };
                        (m, factors, member_score(m, &factors))
                    })
                    .collect();
                scored.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
                (scored.first().map_or(0.0, |s| s.2), scored)
            })
            .collect();
        clusters.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1[0].0.cmp(&b.1[0].0)));
        clusters.truncate(config.top_k);
        Ok(clusters
            .into_iter()
            .enumerate()
            .map(|(i, (score, members))| {
                let member_nodes: Vec<usize> = members.iter().map(|m| m.0).collect();
                let community = membership[member_nodes[0]];
                let edges = graph.edges.iter().filter(|e| membership[e.src] == community && membership[e.dst] == community).count();
                let mut paths: Vec<&str> = member_nodes.iter().map(|&m| graph.nodes[m].symbol.path.as_str()).collect();
                paths.sort_unstable();
                paths.dedup();
                let title = title(graph, &member_nodes, &paths);
                let metadata = ClusterMetadata {
                    size: members.len(),
                    seeds: member_nodes.iter().filter(|&&m| graph.nodes[m].is_seed()).count(),
                    files: paths.len(),
                    edges,
                };
                let symbols = members
                    .iter()
                    .map(|&(m, factors, score)| {
                        let node = &graph.nodes[m];
                        let explain = explain.then(|| Explanation { origin: explain_origin(graph, node), factors });
                        to_symbol(&node.symbol, score, files.code(&node.symbol, config.max_code_lines), explain)
                    })
                    .collect();
                Cluster { cluster_id: format!("cluster_{i}"), score, title, llm_title: None, symbols, metadata }
            })
            .collect())
    }

    /// Each node's text relevance in [0, 1]: its dense and BM25 scores, each
    /// scaled by the best in the graph, averaged over the lanes available.
    /// A seed keeps at least its (scaled) fused retrieval score.
    fn text_relevance(&self, query: &str, query_vector: Option<Vec<f32>>, graph: &CodeGraph) -> Result<Vec<f64>, PipelineError> {
        let ids: Vec<i64> = graph.nodes.iter().map(|n| n.symbol.id).collect();
        let lanes = self.searcher.symbol_relevance(query, query_vector, &ids)?;
        let scaled = |map: &FxHashMap<i64, f32>| -> Option<FxHashMap<i64, f64>> {
            let top = map.values().cloned().fold(0.0f32, f32::max);
            (top > 0.0).then(|| map.iter().map(|(&k, &v)| (k, (v.max(0.0) / top) as f64)).collect())
        };
        let available: Vec<FxHashMap<i64, f64>> = [scaled(&lanes.dense), scaled(&lanes.sparse)].into_iter().flatten().collect();
        let fused_top = graph.nodes.iter().filter_map(|n| n.origin.seed_score()).fold(0.0f32, f32::max);
        Ok(graph
            .nodes
            .iter()
            .map(|n| {
                let lexical = if available.is_empty() {
                    0.0
                } else {
                    available.iter().map(|m| m.get(&n.symbol.id).copied().unwrap_or(0.0)).sum::<f64>() / available.len() as f64
                };
                match n.origin {
                    Origin::Seed { score, .. } if fused_top > 0.0 => lexical.max((score / fused_top) as f64),
                    _ => lexical,
                }
            })
            .collect())
    }
}

fn explain_origin(graph: &CodeGraph, node: &graph::Node) -> ExplainOrigin {
    match &node.origin {
        Origin::Seed { rank, lanes, .. } => ExplainOrigin::Seed { rank: *rank, lanes: *lanes },
        Origin::Reached { from, relation, via, depth } => ExplainOrigin::Reached {
            from: symbol_id(&graph.nodes[*from].symbol),
            from_name: graph.nodes[*from].symbol.qualified_name.clone(),
            relation: relation.clone(),
            via: *via,
            depth: *depth,
        },
    }
}

/// Seed 003's symbol id: `file_path:name:line`.
pub fn symbol_id(s: &SymbolRow) -> String {
    format!("{}:{}:{}", s.path, s.name, s.start_line)
}

/// Stage 4: Louvain communities over the weighted edges; each node's
/// community, and the communities' members.
fn cluster(graph: &CodeGraph, config: &PipelineConfig) -> (Vec<usize>, Vec<Vec<usize>>) {
    let weighted: Vec<(usize, usize, f64)> = graph.edges.iter().map(|e| (e.src, e.dst, graph::relation_weight(&e.relation))).collect();
    let membership = louvain::communities(graph.nodes.len(), &weighted, config.clustering_resolution);
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (node, &c) in membership.iter().enumerate() {
        if groups.len() <= c {
            groups.resize(c + 1, Vec::new());
        }
        groups[c].push(node);
    }
    (membership, groups)
}

fn to_symbol(s: &SymbolRow, score: f64, raw_code: String, explain: Option<Explanation>) -> ClusterSymbol {
    ClusterSymbol {
        id: symbol_id(s),
        name: s.name.clone(),
        qualified_name: s.qualified_name.clone(),
        kind: s.kind,
        file_path: s.path.clone(),
        range: Range {
            start: Position { line: s.start_line, char: s.start_col.saturating_sub(1) },
            end: Position { line: s.end_line, char: s.end_col.saturating_sub(1) },
        },
        score,
        raw_code,
        explain,
    }
}

/// A title from the members: the best symbol, how many more, and where
/// (`paths`: the members' files, sorted and distinct).
fn title(graph: &CodeGraph, members: &[usize], paths: &[&str]) -> String {
    let short = |s: &SymbolRow| {
        let parts: Vec<&str> = s.qualified_name.rsplit(['.', ':']).filter(|p| !p.is_empty()).take(2).collect();
        parts.into_iter().rev().collect::<Vec<_>>().join(".")
    };
    let top = &graph.nodes[members[0]].symbol;
    let place = match paths {
        [one] => one.to_string(),
        many => {
            let dirs: Vec<&str> = many.iter().map(|p| p.rsplit_once('/').map_or("", |d| d.0)).collect();
            if dirs.iter().all(|d| *d == dirs[0]) && !dirs[0].is_empty() {
                format!("{}/", dirs[0])
            } else {
                format!("{} files", many.len())
            }
        }
    };
    // A class most members belong to names the cluster better than its best member.
    let mut parents: FxHashMap<&str, usize> = FxHashMap::default();
    for &m in members {
        // Only members of a type: a module "parent" says nothing the place does not.
        let member =
            matches!(graph.nodes[m].symbol.kind, SymbolKind::Method | SymbolKind::Field | SymbolKind::Constructor | SymbolKind::Constant);
        if let Some(p) = graph.nodes[m].symbol.parent.as_ref().filter(|_| member) {
            *parents.entry(p.as_str()).or_default() += 1;
        }
    }
    let main_parent = parents.into_iter().filter(|(_, n)| *n * 2 > members.len() && members.len() > 2).max_by_key(|(_, n)| *n);
    match (members.len(), main_parent) {
        (1, _) => format!("{} ({place})", short(top)),
        (n, Some((parent, _))) => {
            let name = parent.rsplit(['.', ':']).next().unwrap_or(parent);
            format!("{name}: {} and {} related ({place})", short(top), n - 1)
        }
        (n, None) => format!("{} and {} related ({place})", short(top), n - 1),
    }
}

/// Source lines for `raw_code`, read once per file.
struct SourceFiles<'a> {
    root: &'a Path,
    files: FxHashMap<String, Option<Vec<String>>>,
}

impl<'a> SourceFiles<'a> {
    fn new(root: &'a Path) -> Self {
        SourceFiles { root, files: FxHashMap::default() }
    }

    fn code(&mut self, s: &SymbolRow, max_lines: usize) -> String {
        let root = self.root;
        let lines = self.files.entry(s.path.clone()).or_insert_with(|| read_lines(&root.join(&s.path)));
        lines.as_deref().map_or_else(String::new, |lines| symbol_lines(lines, s, max_lines))
    }
}

/// A symbol's code read from the source tree under `root`, at most
/// `max_lines` lines (then a "… N more lines" marker); empty if unreadable.
pub fn symbol_code(root: &Path, s: &SymbolRow, max_lines: usize) -> String {
    read_lines(&root.join(&s.path)).map_or_else(String::new, |lines| symbol_lines(&lines, s, max_lines))
}

fn read_lines(path: &Path) -> Option<Vec<String>> {
    let bytes = std::fs::read(path).ok()?;
    Some(String::from_utf8_lossy(&bytes).lines().map(str::to_string).collect())
}

fn symbol_lines(lines: &[String], s: &SymbolRow, max_lines: usize) -> String {
    let first = (s.start_line as usize).saturating_sub(1).min(lines.len());
    let last = (s.end_line as usize).min(lines.len()).max(first);
    let shown = (last - first).min(max_lines);
    let mut code = lines[first..first + shown].join("\n");
    if last - first > shown {
        code.push_str(&format!("\n… {} more lines", last - first - shown));
    }
    code
}

static QUERY_SEQ: AtomicU64 = AtomicU64::new(1);

/// `hs-YYYYMMDD-NNN`, numbered per process.
pub fn query_id() -> String {
    let seq = QUERY_SEQ.fetch_add(1, Ordering::Relaxed);
    let days = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() / 86_400) as i64;
    let (y, m, d) = civil_from_days(days);
    format!("hs-{y:04}{m:02}{d:02}-{seq:03}")
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + (m <= 2) as i64, m, d)
}

pub(crate) fn ms(t: Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 1000.0 * 100.0).round() / 100.0
}
