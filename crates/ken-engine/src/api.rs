//! Request and response shapes shared by the HTTP API and the MCP tools.
//! Unknown fields are rejected; every range is checked by `validate`, with
//! an error naming the field.

use crate::Error;

/// The response types the engine answers with, for the surfaces that
/// serialise them and describe them (OpenAPI): they need no other crate.
pub use ken_graph::Traversal;
pub use ken_pipeline::PipelineResponse;
use ken_pipeline::{MAX_TOP_K, Overrides};
pub use ken_search::{LocateResponse, SearchResponse};
use ken_search::{LocateWeights, MAX_QUERY_CHARS, MAX_REPORT_CHARS, Mode};
pub use ken_store::SymbolRow;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Longest query accepted (characters); `ken search` cuts, the API refuses.
pub const MAX_QUERY_LEN: usize = MAX_QUERY_CHARS;

/// `POST /api/v1/hybrid-search`: seed 003's request, plus optional filters.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HybridSearchRequest {
    /// What to look for: a question, a description, or a name.
    pub query: String,
    /// Clusters to return (1 to 100; default from the configuration, 10).
    #[serde(default)]
    pub top_k: Option<usize>,
    /// Per-request settings: `ranking_weights` {w1, w2, w3}, `max_graph_depth`
    /// (0–5), `clustering_resolution` (0–10], `max_nodes`, `min_cluster_size`,
    /// `expansion` ("static" or "lsp").
    #[serde(default)]
    pub config_overrides: Option<Overrides>,
    /// Add, per symbol, why it is there: seed or relation, and the factor scores.
    #[serde(default)]
    pub explain: bool,
    /// Only these languages.
    #[serde(default)]
    pub languages: Vec<String>,
    /// Only these symbol kinds (for the seeds).
    #[serde(default)]
    pub kinds: Vec<String>,
    /// Only files matching this glob (for the seeds).
    #[serde(default)]
    pub path: Option<String>,
    /// `llm`: each cluster also gets a title by the language model
    /// (`llm_title`), cached; `structural`: only the title from its members.
    /// Default: `llm` when `[llm]` names a model or an endpoint.
    #[serde(default)]
    pub titles: Option<ClusterTitles>,
    /// `dsl` or `keywords`: the seeds are retrieved with the query expanded
    /// by the language model (see `SearchRequest`). Default `none`.
    #[serde(default)]
    pub query_expansion: Option<QueryExpansion>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ClusterTitles {
    Structural,
    Llm,
}

impl ClusterTitles {
    pub fn parse(text: &str) -> Option<ClusterTitles> {
        match text {
            "structural" => Some(ClusterTitles::Structural),
            "llm" => Some(ClusterTitles::Llm),
            _ => None,
        }
    }
}

/// `POST /api/v1/search`: hybrid retrieval alone (dense + BM25 + exact names).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    pub query: String,
    /// Results (1 to 1000, default 10).
    #[serde(default)]
    pub k: Option<usize>,
    /// hybrid (default), semantic, lexical, exact, or intents (only the
    /// intent lane: symbols whose intents match, from `ken index --intents`).
    #[serde(default)]
    pub mode: Option<Mode>,
    #[serde(default)]
    pub languages: Vec<String>,
    #[serde(default)]
    pub kinds: Vec<String>,
    #[serde(default)]
    pub path: Option<String>,
    /// Reciprocal Rank Fusion constant (default 60); the same as `ranking.rrf_k`.
    #[serde(default)]
    pub rrf_k: Option<f32>,
    /// How lanes are fused and which priors apply, over the server's
    /// `[search.ranking]` settings.
    #[serde(default)]
    pub ranking: Option<ken_search::RankingOverrides>,
    /// `dsl`: the language model rewrites the query (CoUnit: English, the
    /// original wording, a hypothetical answer in code), each is searched,
    /// and the lists are fused. `keywords`: the model proposes the words the
    /// code likely holds; BM25 searches them beside the query (MutaGReP).
    /// Default `none`.
    #[serde(default)]
    pub query_expansion: Option<QueryExpansion>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum QueryExpansion {
    #[default]
    None,
    /// CoUnit's query DSL with HyDE.
    Dsl,
    /// MutaGReP's keyword search: the model proposes the words the code
    /// likely holds, and BM25 searches them beside the query.
    Keywords,
}

impl QueryExpansion {
    pub fn parse(text: &str) -> Option<QueryExpansion> {
        match text {
            "none" => Some(QueryExpansion::None),
            "dsl" => Some(QueryExpansion::Dsl),
            "keywords" => Some(QueryExpansion::Keywords),
            _ => None,
        }
    }
}

/// `POST /api/v1/ask`: a question answered by the language model from
/// retrieved code, every claim cited as `path:start-end`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskRequest {
    pub question: String,
    /// Code units retrieved before merging (1 to 100, default 16).
    #[serde(default)]
    pub k: Option<usize>,
    /// How the context is retrieved: `hybrid` (default) or `pipeline`.
    #[serde(default)]
    pub retrieval: Option<AskRetrieval>,
    /// Tokens of code in the prompt (256 to 1000000; default: what the model
    /// holds, less the question and the answer).
    #[serde(default)]
    pub budget_tokens: Option<usize>,
    /// Longest answer, in tokens (16 to 8192, default 512).
    #[serde(default)]
    pub max_tokens: Option<usize>,
    #[serde(default)]
    pub languages: Vec<String>,
    #[serde(default)]
    pub path: Option<String>,
    /// `dsl` or `keywords`: retrieve with the query expanded (see
    /// `SearchRequest`).
    #[serde(default)]
    pub query_expansion: Option<QueryExpansion>,
}

/// `POST /api/v1/plan-search`: MutaGReP's plan search. The language model
/// proposes plans for a feature request, step by step in plain words;
/// retrieval grounds each step in the repository's symbols; the plan whose
/// steps the code supports best wins.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanSearchRequest {
    /// The feature request or change, in words.
    pub request: String,
    /// Symbols grounding each step (1 to 20, default 3).
    #[serde(default)]
    pub k: Option<usize>,
    /// Plans expanded after the first (0 to 32, default 3): each costs
    /// `branching` calls of the model.
    #[serde(default)]
    pub expansions: Option<usize>,
    /// Successors proposed per expanded plan (1 to 4, default 2).
    #[serde(default)]
    pub branching: Option<usize>,
    /// Most steps in a plan (1 to 10, default 5).
    #[serde(default)]
    pub max_steps: Option<usize>,
}

/// The best plan found, and how the search went.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct PlanSearchResponse {
    pub request: String,
    pub plan: Plan,
    /// Plans proposed and scored (the first included).
    pub explored: usize,
    /// The model that proposed them (`None`: no model; `notes` says why).
    pub model: Option<String>,
    pub notes: Vec<String>,
    pub seconds: f64,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Plan {
    /// The mean of the steps' scores (0 to 1).
    pub score: f32,
    pub steps: Vec<PlanStep>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct PlanStep {
    /// What to do, first person ("I want to …").
    pub intent: String,
    /// How well the best grounded symbol fits the intent (cosine of their
    /// embeddings; without vectors, the search's own order).
    pub score: f32,
    pub symbols: Vec<GroundedSymbol>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct GroundedSymbol {
    pub qualified_name: String,
    #[schemars(with = "String")]
    pub kind: ken_core::SymbolKind,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub score: f32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AskRetrieval {
    /// Hybrid retrieval (dense, BM25, names), the strongest units.
    #[default]
    Hybrid,
    /// The five-stage pipeline: seeds and their graph neighbourhood, by cluster.
    Pipeline,
}

/// An answer and what it rests on.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct AskResponse {
    pub question: String,
    /// The model's answer with its checked citations; empty without a model.
    pub answer: String,
    /// Citations that stand: lines that exist and were in the context.
    pub citations: Vec<ken_llm::answer::Citation>,
    /// Citations removed from the answer, with why.
    pub dropped_citations: Vec<ken_llm::answer::DroppedCitation>,
    /// The code the model read, in prompt order: each span's lines, how
    /// strongly retrieval wanted them, and what they hold (`label`, e.g.
    /// `function parse_args`).
    pub context: Vec<ken_llm::answer::Span>,
    /// The model that answered (`None`: no model; `notes` says why).
    pub model: Option<String>,
    pub usage: AskUsage,
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
pub struct AskUsage {
    pub prompt_tokens: usize,
    pub completion_tokens: usize,
    /// Answered from the disk cache of model calls.
    pub cached: bool,
    pub retrieve_ms: f64,
    /// From the question to the answer's first text (`None`: cached or no model).
    pub first_token_ms: Option<f64>,
    pub total_ms: f64,
}

/// `POST /api/v1/locate`: a bug report in; the files and functions to
/// change out, with the evidence for each.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LocateRequest {
    /// The whole report as written: title, prose, stack traces, code.
    pub report: String,
    /// Files to return (1 to 100, default 10).
    #[serde(default)]
    pub k: Option<usize>,
    /// Functions and classes per file (0 to 50, default 5).
    #[serde(default)]
    pub symbols: Option<usize>,
    /// Each lane's weight and the priors, over the defaults.
    #[serde(default)]
    pub weights: Option<LocateWeights>,
    /// `llm`: the language model reorders the top files (Agentless's
    /// localization step); `none` (the default) needs no model.
    #[serde(default)]
    pub rerank: Option<LocateRerank>,
    /// Also each lane's ranking and each file's prior (`explain` in the
    /// answer), to see why a file ranks where it does or to try weights.
    #[serde(default)]
    pub explain: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LocateRerank {
    #[default]
    None,
    Llm,
}

/// `GET /api/v1/symbols?name=…`: symbols by exact or partial name.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SymbolsRequest {
    /// Name, part of a name, or qualified suffix (`Session.send`).
    pub name: String,
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub lang: Option<String>,
    /// At most this many (1 to 1000, default 20).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// `GET /api/v1/symbol?symbol=…`: one symbol with its code.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SymbolRequest {
    /// Qualified name, unique plain name, or PATH:LINE.
    pub symbol: String,
}

/// `GET /api/v1/graph/{relation}?symbol=…&depth=…`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GraphRequest {
    /// Qualified name, unique plain name, or PATH:LINE.
    pub symbol: String,
    /// Steps to follow for callers, callees and tests (1 to 32, default 1).
    #[serde(default)]
    pub depth: Option<u32>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum GraphRelation {
    Callers,
    Callees,
    Subclasses,
    Superclasses,
    Refs,
    Tests,
    /// The methods a method overrides (relation `Overrides`) and those
    /// overriding it (`OverriddenBy`), transitively.
    Overrides,
}

impl GraphRelation {
    pub const ALL: [GraphRelation; 7] = [
        GraphRelation::Callers,
        GraphRelation::Callees,
        GraphRelation::Subclasses,
        GraphRelation::Superclasses,
        GraphRelation::Refs,
        GraphRelation::Tests,
        GraphRelation::Overrides,
    ];
    pub fn parse(text: &str) -> Option<GraphRelation> {
        GraphRelation::ALL.into_iter().find(|r| r.as_str() == text)
    }
    pub fn as_str(self) -> &'static str {
        match self {
            GraphRelation::Callers => "callers",
            GraphRelation::Callees => "callees",
            GraphRelation::Subclasses => "subclasses",
            GraphRelation::Superclasses => "superclasses",
            GraphRelation::Refs => "refs",
            GraphRelation::Tests => "tests",
            GraphRelation::Overrides => "overrides",
        }
    }
}

/// `GET /api/v1/path?from=…&to=…&max_depth=…`: how one symbol reaches
/// another through calls, instantiations, uses, overrides and inheritance.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PathRequest {
    /// Qualified name, unique plain name, or PATH:LINE.
    pub from: String,
    /// Qualified name, unique plain name, or PATH:LINE.
    pub to: String,
    /// The longest chain to look for (1 to 32, default 12).
    #[serde(default)]
    pub max_depth: Option<u32>,
}

impl PathRequest {
    pub fn validate(&self) -> Result<(), Error> {
        SymbolRequest { symbol: self.from.clone() }.validate().map_err(|e| Error::invalid("from", e.message))?;
        SymbolRequest { symbol: self.to.clone() }.validate().map_err(|e| Error::invalid("to", e.message))?;
        check_range("max_depth", self.max_depth.map(|d| d as usize), 1, ken_graph::MAX_DEPTH as usize)
    }
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct PathResponse {
    pub from: SymbolRow,
    pub to: SymbolRow,
    /// Each hop from `from`, with the relation and the site it is seen at;
    /// null when `from` does not reach `to` within `max_depth`.
    pub path: Option<Vec<ken_graph::Hit>>,
}

/// `ken eval`: retrieval quality on query sets the repository supplies.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EvalRequest {
    /// Queries per set (1 to 1000, default 50).
    #[serde(default)]
    pub queries: Option<usize>,
    /// Ranking configurations to run beside the defaults, each as
    /// `key = value, …` over `[search.ranking]`'s settings
    /// (`rrf_k = 30, file_boost = 0.5`).
    #[serde(default)]
    pub compare: Vec<String>,
    /// Also score callers and subclasses, with the language servers as the
    /// oracle (needs a server started with `--lsp`).
    #[serde(default)]
    pub lsp: bool,
}

impl EvalRequest {
    pub fn validate(&self) -> Result<(), Error> {
        check_range("queries", self.queries, 1, 1000)?;
        if self.compare.len() > 16 {
            return Err(Error::invalid("compare", format!("at most 16 configurations (got {})", self.compare.len())));
        }
        Ok(())
    }
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct EvalReport {
    pub sets: Vec<EvalSet>,
    pub notes: Vec<String>,
    /// The whole evaluation, the docstring set's scratch index included.
    pub seconds: f64,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct EvalSet {
    /// `identifier`, `docstring`, `callers` or `subclasses`.
    pub name: String,
    pub queries: usize,
    pub rows: Vec<EvalRow>,
    /// Callers and subclasses: what the graph (the first row) missed, a
    /// line per question (`Square.area: src/tiles.ts:3 totalArea, …`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub misses: Vec<String>,
}

/// One system on one set: a mode, the hybrid mode without a lane, or a
/// ranking configuration compared.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct EvalRow {
    pub system: String,
    pub mrr_at_10: f64,
    pub recall_at_10: f64,
    /// Callers and subclasses only: the share of the whole answer that the
    /// language server confirms (a lower bound, as a server misses what it
    /// cannot type).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub precision: Option<f64>,
    /// Each query's search in this process, warm.
    pub p50_ms: f64,
    pub p95_ms: f64,
}

/// `GET /api/v1/untested?limit=…`: public functions and methods no test reaches.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UntestedRequest {
    /// At most this many, most important first (1 to 10000, default 50).
    #[serde(default)]
    pub limit: Option<usize>,
}

impl UntestedRequest {
    pub fn validate(&self) -> Result<(), Error> {
        check_range("limit", self.limit, 1, 10_000)
    }
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct UntestedResponse {
    /// How many there are in all.
    pub total: usize,
    pub symbols: Vec<SymbolRow>,
}

/// `POST /api/v1/index`: bring the index up to date.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReindexRequest {
    /// Delete the index and build it again.
    #[serde(default)]
    pub rebuild: bool,
    /// Skip embeddings (lexical and graph layers only).
    #[serde(default)]
    pub no_embed: bool,
    /// Also write intents with the language model (`ken index --intents`).
    #[serde(default)]
    pub intents: bool,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct SymbolDetail {
    /// `file_path:name:line`.
    pub id: String,
    pub symbol: ken_store::SymbolRow,
    pub code: String,
    #[schemars(with = "Option<serde_json::Value>")]
    pub metrics: Option<ken_store::MetricsRow>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct StatusResponse {
    pub index_dir: String,
    pub root: String,
    #[schemars(with = "serde_json::Value")]
    pub stats: ken_store::IndexStats,
    #[schemars(with = "serde_json::Value")]
    pub embeddings: ken_store::EmbedProgress,
    pub model: Option<String>,
    /// Intents (`ken index --intents`): how many, and for how many symbols.
    pub intents: IntentCounts,
    pub reindexing: bool,
    /// Each language server: state, restarts, requests, failures, cache hits.
    pub language_servers: Vec<serde_json::Value>,
}

#[derive(Clone, Copy, Debug, Default, Serialize, JsonSchema)]
pub struct IntentCounts {
    pub intents: u64,
    pub symbols: u64,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Health {
    pub status: &'static str,
    pub version: &'static str,
}

fn check_query(query: &str) -> Result<(), Error> {
    if query.trim().is_empty() {
        return Err(Error::invalid("query", "must not be empty; describe the code you want or give a name"));
    }
    if query.chars().count() > MAX_QUERY_LEN {
        return Err(Error::invalid("query", format!("is longer than {MAX_QUERY_LEN} characters")));
    }
    Ok(())
}

fn check_languages(field: &str, languages: &[String]) -> Result<(), Error> {
    for l in languages {
        ken_core::Language::from_name_or_list(l).map_err(|e| Error::invalid(field, format!("has {e}")))?;
    }
    Ok(())
}

fn check_kinds(field: &str, kinds: &[String]) -> Result<(), Error> {
    for k in kinds {
        ken_core::SymbolKind::parse_or_list(k).map_err(|e| Error::invalid(field, format!("has {e}")))?;
    }
    Ok(())
}

fn check_range(field: &str, value: Option<usize>, lo: usize, hi: usize) -> Result<(), Error> {
    match value {
        Some(v) if v < lo || v > hi => Err(Error::invalid(field, format!("must be between {lo} and {hi} (got {v})"))),
        _ => Ok(()),
    }
}

impl HybridSearchRequest {
    pub fn validate(&self) -> Result<(), Error> {
        check_query(&self.query)?;
        check_range("top_k", self.top_k, 1, MAX_TOP_K)?;
        check_languages("languages", &self.languages)?;
        check_kinds("kinds", &self.kinds)
    }
}

impl SearchRequest {
    /// A hybrid search for text that may be longer than a query (a task, a
    /// question): cut to what a search reads, with the default ranking.
    pub fn for_text(text: &str, k: usize, languages: &[String], path: Option<&str>) -> SearchRequest {
        SearchRequest {
            query: text.chars().take(MAX_QUERY_LEN).collect(),
            k: Some(k),
            mode: None,
            languages: languages.to_vec(),
            kinds: Vec::new(),
            path: path.map(str::to_string),
            rrf_k: None,
            ranking: None,
            query_expansion: None,
        }
    }

    pub fn validate(&self) -> Result<(), Error> {
        check_query(&self.query)?;
        check_range("k", self.k, 1, 1000)?;
        if let Some(k) = self.rrf_k
            && !(k.is_finite() && k > 0.0 && k <= 10_000.0)
        {
            return Err(Error::invalid("rrf_k", format!("must be a number above 0 and at most 10000 (got {k})")));
        }
        if let Some(overrides) = &self.ranking
            && let Some((field, problem)) = overrides.apply(&ken_search::Ranking::default()).invalid()
        {
            return Err(Error::invalid(&format!("ranking.{field}"), problem));
        }
        check_languages("languages", &self.languages)?;
        check_kinds("kinds", &self.kinds)
    }
}

impl AskRequest {
    pub fn validate(&self) -> Result<(), Error> {
        if self.question.trim().is_empty() {
            return Err(Error::invalid("question", "must not be empty"));
        }
        if self.question.chars().count() > MAX_REPORT_CHARS {
            return Err(Error::invalid("question", format!("is longer than {MAX_REPORT_CHARS} characters")));
        }
        check_range("k", self.k, 1, 100)?;
        check_range("budget_tokens", self.budget_tokens, 256, 1_000_000)?;
        check_range("max_tokens", self.max_tokens, 16, 8192)?;
        check_languages("languages", &self.languages)
    }
}

impl PlanSearchRequest {
    pub fn validate(&self) -> Result<(), Error> {
        if self.request.trim().is_empty() {
            return Err(Error::invalid("request", "must not be empty; describe the feature or change you want"));
        }
        if self.request.chars().count() > MAX_QUERY_LEN {
            return Err(Error::invalid("request", format!("is longer than {MAX_QUERY_LEN} characters")));
        }
        check_range("k", self.k, 1, 20)?;
        check_range("expansions", self.expansions, 0, 32)?;
        check_range("branching", self.branching, 1, 4)?;
        check_range("max_steps", self.max_steps, 1, 10)
    }
}

impl LocateRequest {
    pub fn validate(&self) -> Result<(), Error> {
        if self.report.trim().is_empty() {
            return Err(Error::invalid("report", "must not be empty; paste the bug report: title, description, stack trace"));
        }
        if self.report.chars().count() > MAX_REPORT_CHARS {
            return Err(Error::invalid("report", format!("is longer than {MAX_REPORT_CHARS} characters")));
        }
        check_range("k", self.k, 1, 100)?;
        check_range("symbols", self.symbols, 0, 50)?;
        if let Some((field, problem)) = self.weights.as_ref().and_then(LocateWeights::invalid) {
            return Err(Error::invalid(&format!("weights.{field}"), problem));
        }
        Ok(())
    }
}

impl SymbolsRequest {
    pub fn validate(&self) -> Result<(), Error> {
        if self.name.trim().is_empty() {
            return Err(Error::invalid("name", "must not be empty"));
        }
        check_range("limit", self.limit, 1, 1000)?;
        if let Some(l) = &self.lang {
            check_languages("lang", std::slice::from_ref(l))?;
        }
        if let Some(k) = &self.kind {
            check_kinds("kind", std::slice::from_ref(k))?;
        }
        Ok(())
    }
}

impl SymbolRequest {
    pub fn validate(&self) -> Result<(), Error> {
        if self.symbol.trim().is_empty() {
            return Err(Error::invalid("symbol", "must not be empty; give a qualified name, a unique name or PATH:LINE"));
        }
        Ok(())
    }
}

impl GraphRequest {
    pub fn validate(&self) -> Result<(), Error> {
        SymbolRequest { symbol: self.symbol.clone() }.validate()?;
        check_range("depth", self.depth.map(|d| d as usize), 1, ken_graph::MAX_DEPTH as usize)
    }
}

/// `POST /api/v1/impact`: which blocks may have to change with a change
/// (CodePlan's may-impact analysis). The change is read from git (the
/// working tree or the staged files against a revision), from the index
/// (named files against their indexed version), or given whole in `files`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImpactRequest {
    /// The revision the working tree (or the staged files) is compared with (default `HEAD`).
    #[serde(default)]
    pub rev: Option<String>,
    /// Compare the staged files, not the working tree.
    #[serde(default)]
    pub staged: bool,
    /// Only these files or directories (relative to the repository). Without
    /// `rev` and outside git, each is compared with its indexed version.
    #[serde(default)]
    pub paths: Vec<String>,
    /// Follow each relation this many steps (1 to 8, default 1).
    #[serde(default)]
    pub depth: Option<u32>,
    /// The two versions of each changed file, given whole (an editor's
    /// unsaved text, an agent's proposed edit); git and the disk are not read.
    #[serde(default)]
    pub files: Vec<FileVersions>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileVersions {
    pub path: String,
    /// The old text ("" for a new file).
    pub before: String,
    /// The new text ("" for a deleted file).
    pub after: String,
}

/// Most bytes of one file version that the change analysis reads.
pub const MAX_IMPACT_FILE_BYTES: usize = 2 << 20;

impl ImpactRequest {
    pub fn validate(&self) -> Result<(), Error> {
        if let Some(rev) = &self.rev
            && (rev.is_empty() || rev.starts_with('-') || rev.chars().any(|c| c.is_whitespace() || c.is_control()))
        {
            return Err(Error::invalid("rev", "must be a git revision (a commit, branch or tag), without spaces or a leading `-`"));
        }
        for (field, path) in self.paths.iter().map(|p| ("paths", p)).chain(self.files.iter().map(|f| ("files.path", &f.path))) {
            if path.trim().is_empty() || path.starts_with('/') || path.split(['/', '\\']).any(|part| part == "..") {
                return Err(Error::invalid(field, format!("must be a path inside the repository (got {path:?})")));
            }
        }
        if let Some(f) = self.files.iter().find(|f| f.before.len().max(f.after.len()) > MAX_IMPACT_FILE_BYTES) {
            return Err(Error::invalid("files", format!("{}: a version is larger than {MAX_IMPACT_FILE_BYTES} bytes", f.path)));
        }
        if !self.files.is_empty() && (self.rev.is_some() || self.staged) {
            return Err(Error::invalid("files", "gives both versions; it cannot be combined with `rev` or `staged`"));
        }
        check_range("depth", self.depth.map(|d| d as usize), 1, 8)?;
        Ok(())
    }
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ImpactResponse {
    /// What the old versions were read from: `git HEAD`, `git <rev>`, `index` or `request`.
    pub base: String,
    /// The files compared.
    pub files: Vec<String>,
    /// The atomic changes (CodePlan's labels), by file.
    pub changes: Vec<FileChange>,
    /// The blocks that may have to change, nearest first, each with every
    /// rule that reaches it.
    pub impacted: Vec<ImpactedBlock>,
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FileChange {
    pub path: String,
    #[serde(flatten)]
    pub change: ken_change::Change,
    /// Table 1's may-impact rules of this change (`Rel(D, M, CalledBy)`),
    /// or none (`Nil`).
    pub rules: Vec<String>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ImpactedBlock {
    pub symbol: SymbolRow,
    /// Fewest steps from a change.
    pub depth: u32,
    /// The block is itself among the changes.
    pub changed: bool,
    pub reasons: Vec<ImpactReason>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ImpactReason {
    pub label: ken_change::ChangeLabel,
    /// The changed symbol (qualified name; for an import, the name it binds).
    pub cause: String,
    /// The rule, as Table 1 writes it: `Rel(D, M, CalledBy)`.
    pub rule: String,
    /// CodePlan's relation from the cause to this block (`CalledBy`).
    pub relation: String,
    pub depth: u32,
    /// Beyond one step: the impacted block it was reached through.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub through: Option<String>,
    /// Where the edges were written (each call, use, or base-class list), in source order.
    pub sites: Vec<ImpactSite>,
}

/// Where an impacted block refers to the change: a reference's line and
/// column, and the lines its expression reaches, which a checker may flag
/// on any of: from `start_line` (a value passed to a call on several lines
/// starts at the call) to `end_line` (a call with its arguments, a `match`
/// with its arms).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct ImpactSite {
    pub path: String,
    pub line: u32,
    pub col: u32,
    pub start_line: u32,
    pub end_line: u32,
}

/// `POST /api/v1/plan`: CodePlan's plan graph for a change. Seeds are
/// blocks to edit with the instruction (`seeds`), or edits already made
/// (`seed_diff`, read as `POST /api/v1/impact` reads a change); the graph
/// grows by the may-impact rules into derived obligations.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanRequest {
    /// What to do, in words (the seed nodes' instruction).
    pub instruction: String,
    /// Blocks to edit: qualified names, unique plain names, or PATH:LINE.
    #[serde(default)]
    pub seeds: Vec<String>,
    /// The kind of change the seeds will get (a CodePlan label: `MMS`,
    /// `MMB`, `DM`…), so their derived obligations are known before the
    /// edit; without it, seed blocks stand alone until edited.
    #[serde(default)]
    pub assume: Option<String>,
    /// Edits already made: their blocks are completed seeds, and what they
    /// impact is pending.
    #[serde(default)]
    pub seed_diff: Option<ImpactRequest>,
    /// Follow each relation this many steps (1 to 8, default 1).
    #[serde(default)]
    pub depth: Option<u32>,
}

impl PlanRequest {
    pub fn validate(&self) -> Result<(), Error> {
        if self.instruction.trim().is_empty() {
            return Err(Error::invalid("instruction", "must not be empty: say what to change"));
        }
        if self.instruction.chars().count() > MAX_QUERY_CHARS {
            return Err(Error::invalid("instruction", format!("is longer than {MAX_QUERY_CHARS} characters")));
        }
        if self.seeds.is_empty() && self.seed_diff.is_none() {
            return Err(Error::invalid("seeds", "name at least one block to change, or give `seed_diff`"));
        }
        if self.seeds.iter().any(|s| s.trim().is_empty()) {
            return Err(Error::invalid("seeds", "must not hold an empty name"));
        }
        if let Some(label) = &self.assume
            && ken_change::ChangeLabel::parse(label).is_none()
        {
            let known: Vec<&str> = ken_change::ChangeLabel::ALL.iter().map(|l| l.code()).collect();
            return Err(Error::invalid("assume", format!("must be a change label: {}", known.join(", "))));
        }
        if let Some(diff) = &self.seed_diff {
            diff.validate()?;
        }
        check_range("depth", self.depth.map(|d| d as usize), 1, 8)?;
        Ok(())
    }
}

/// The plan graph: ⟨block, instruction, status⟩ nodes; each edge carries the
/// relation that made its target an obligation.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
pub struct PlanGraph {
    pub nodes: Vec<PlanNode>,
    pub edges: Vec<PlanEdge>,
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct PlanNode {
    /// `n1`, `n2`… in the order the plan would take them.
    pub id: String,
    pub block: SymbolRow,
    pub instruction: String,
    pub status: PlanStatus,
    /// A seed (given by the user or an edit already made), not derived.
    pub seed: bool,
    /// Why the editor left it as it is, or failed (plan execution).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PlanStatus {
    Pending,
    /// Edited (or, for a seed diff, edited already).
    Completed,
    /// Visited by the editor, which found nothing to change.
    Unchanged,
    /// The editor could not edit it (the note says why).
    Failed,
}

impl PlanStatus {
    pub fn name(self) -> &'static str {
        match self {
            PlanStatus::Pending => "pending",
            PlanStatus::Completed => "done",
            PlanStatus::Unchanged => "unchanged",
            PlanStatus::Failed => "failed",
        }
    }
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct PlanEdge {
    pub from: String,
    pub to: String,
    /// The change at `from` that obliges `to`: its label.
    pub label: ken_change::ChangeLabel,
    /// Table 1's rule: `Rel(D, M, CalledBy)`.
    pub rule: String,
    pub relation: String,
}

impl PlanGraph {
    /// Graphviz: pending nodes bold, completed ones grey; edges labelled by their rule.
    pub fn to_dot(&self) -> String {
        let quote = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
        let mut out = String::from("digraph plan {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n");
        for n in &self.nodes {
            let style = match n.status {
                PlanStatus::Pending => "style=bold",
                PlanStatus::Completed => "style=filled, fillcolor=lightgrey",
                PlanStatus::Unchanged => "style=dashed",
                PlanStatus::Failed => "style=filled, fillcolor=lightpink",
            };
            let label =
                format!("{}\\n{}:{}\\n{}", quote(&n.block.qualified_name), quote(&n.block.path), n.block.start_line, quote(&n.instruction));
            out.push_str(&format!("  {} [label=\"{label}\", {style}];\n", n.id));
        }
        for e in &self.edges {
            out.push_str(&format!("  {} -> {} [label=\"{} {}\"];\n", e.from, e.to, e.label.code(), quote(&e.rule)));
        }
        out.push_str("}\n");
        out
    }
}

/// `POST /api/v1/execute`: CodePlan's adaptive plan-and-execute loop
/// (Algorithm 1). The plan's pending blocks are edited one by one in a
/// scratch copy of the repository; each edit is classified and the
/// obligations it derives join the plan; then an oracle (a type checker or
/// compiler) is run, and its new errors seed further rounds. The result is
/// a patch, written to the repository only with `apply`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExecuteRequest {
    pub plan: PlanRequest,
    /// Who edits a block (default `structural`).
    #[serde(default)]
    pub editor: EditorKind,
    /// `plan` (default): obligations from the may-impact rules, then the
    /// oracle; `repair`: the seeds and the oracle's errors only (CodePlan's
    /// baseline without a plan).
    #[serde(default)]
    pub strategy: Strategy,
    /// The oracle: `pyright`, `tsc`, `cargo`, `go` or `mypy`. Without one,
    /// the plan is carried out unchecked.
    #[serde(default)]
    pub oracle: Option<String>,
    /// An oracle command line run by `sh -c` in the scratch copy (the CLI's
    /// `--oracle CMD`; never from the network).
    #[serde(skip)]
    pub oracle_command: Option<String>,
    /// Rounds of repair after the first oracle run (0 to 10, default 3).
    #[serde(default)]
    pub rounds: Option<u32>,
    /// Most block edits in one run (1 to 1000, default 200).
    #[serde(default)]
    pub max_edits: Option<u32>,
    /// Write the patch to the repository's files.
    #[serde(default)]
    pub apply: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EditorKind {
    /// Mechanical edits: an added or removed parameter carried to the calls
    /// (a caller without the value takes it on as a parameter), a rename
    /// carried to the calls, an override given its base method's signature.
    #[default]
    Structural,
    /// The language model rewrites each block (ken-llm), with the block's
    /// class sketched, the code it depends on and the edits that led to it.
    Llm,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    #[default]
    Plan,
    Repair,
}

/// The oracles known by name.
pub const ORACLES: [&str; 5] = ["pyright", "tsc", "cargo", "go", "mypy"];

impl ExecuteRequest {
    pub fn validate(&self) -> Result<(), Error> {
        self.plan.validate()?;
        if let Some(oracle) = &self.oracle
            && !ORACLES.contains(&oracle.as_str())
        {
            return Err(Error::invalid("oracle", format!("must be one of {} (got {oracle:?})", ORACLES.join(", "))));
        }
        if self.oracle.is_some() && self.oracle_command.is_some() {
            return Err(Error::invalid("oracle", "give an oracle by name or a command, not both"));
        }
        check_range("rounds", self.rounds.map(|r| r as usize), 0, 10)?;
        check_range("max_edits", self.max_edits.map(|r| r as usize), 1, 1000)?;
        Ok(())
    }
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ExecuteResponse {
    /// The plan as carried out: every node's final status.
    pub plan: PlanGraph,
    /// The edits, in the order they were made.
    pub edits: Vec<BlockEdit>,
    /// Each oracle run: the first after the plan, then one per repair round.
    pub rounds: Vec<OracleRound>,
    /// The last oracle run found no error the change made; `None` without an oracle.
    pub passed: Option<bool>,
    /// A unified diff of every file changed, against the repository as it was read.
    pub patch: String,
    /// The files the patch changes.
    pub files: Vec<String>,
    /// The patch was written to the repository.
    pub applied: bool,
    /// The run's full log (nodes, prompts, replies, edits, oracle output), as JSON.
    pub log: Option<String>,
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct BlockEdit {
    /// The plan node edited.
    pub node: String,
    pub path: String,
    pub symbol: String,
    pub editor: EditorKind,
    /// The edit, as a unified diff of the file.
    pub diff: String,
    /// Its atomic changes (`MMS f`), which derived the next obligations.
    pub changes: Vec<String>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct OracleRound {
    pub round: u32,
    pub command: String,
    pub exit_code: Option<i32>,
    /// Errors the repository did not have before the change.
    pub errors: usize,
    /// The first of them (up to 50).
    pub diagnostics: Vec<ken_change::diagnostics::Diagnostic>,
    /// Plan nodes these errors seeded.
    pub seeded: Vec<String>,
}

pub use ken_llm::tokens::TokenizerName;

/// `POST /api/v1/context`: the code a task needs, packed into a token
/// budget: the most relevant definitions whole, their neighbours' signatures
/// (callers, callees, base classes), and the import headers of their files.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextRequest {
    /// The task, in words (a request, a bug report, a question).
    pub task: String,
    /// Tokens the pack may take (256 to 262144, default 8192), labels included.
    #[serde(default)]
    pub budget: Option<usize>,
    /// Who counts the tokens: `o200k` (default) or `cl100k`.
    #[serde(default)]
    pub tokenizer: Option<TokenizerName>,
    /// Definitions retrieved for the task (1 to 200; default one per 200
    /// tokens of budget, at least 40); the budget decides how many fit.
    #[serde(default)]
    pub k: Option<usize>,
    #[serde(default)]
    pub languages: Vec<String>,
    #[serde(default)]
    pub path: Option<String>,
}

impl ContextRequest {
    pub fn validate(&self) -> Result<(), Error> {
        if self.task.trim().is_empty() {
            return Err(Error::invalid("task", "must not be empty: say what the code is needed for"));
        }
        if self.task.chars().count() > MAX_REPORT_CHARS {
            return Err(Error::invalid("task", format!("is longer than {MAX_REPORT_CHARS} characters")));
        }
        check_range("budget", self.budget, 256, 262_144)?;
        check_range("k", self.k, 1, 200)?;
        Ok(())
    }
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ContextPack {
    pub task: String,
    pub budget: usize,
    pub tokenizer: TokenizerName,
    /// Tokens the pieces take, labels included (never above the budget).
    pub tokens: usize,
    /// In reading order: the strongest first and last, the weakest in the
    /// middle ("lost in the middle").
    pub pieces: Vec<ContextPiece>,
    /// Candidates left out for want of room.
    pub omitted: usize,
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ContextPiece {
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    /// `definition` (whole code), `signatures` (a neighbour's declaration),
    /// `imports` (the file's import header); merged pieces list each.
    pub kinds: Vec<String>,
    /// The symbols it holds, and why a neighbour is there (`caller of X`).
    pub labels: Vec<String>,
    pub language: String,
    pub tokens: usize,
    pub text: String,
}

impl ContextPack {
    /// Markdown: each piece under its `path:start-end` label, fenced.
    pub fn to_markdown(&self) -> String {
        let mut out = format!("# Context: {}\n\n", self.task.lines().next().unwrap_or(""));
        for p in &self.pieces {
            let what = if p.labels.is_empty() { String::new() } else { format!(" ({})", p.labels.join("; ")) };
            out.push_str(&format!(
                "## {}:{}-{}{what}\n\n```{}\n{}\n```\n\n",
                p.path,
                p.start_line,
                p.end_line,
                p.language,
                p.text.trim_end()
            ));
        }
        out
    }

    /// XML, as many agents' prompts take files: `<file path= lines=>`.
    pub fn to_xml(&self) -> String {
        let escape = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
        let mut out =
            format!("<context task=\"{}\" tokens=\"{}\" tokenizer=\"{}\">\n", escape(&self.task), self.tokens, self.tokenizer.as_str());
        for p in &self.pieces {
            out.push_str(&format!(
                "<file path=\"{}\" lines=\"{}-{}\" kind=\"{}\" symbols=\"{}\">\n{}\n</file>\n",
                escape(&p.path),
                p.start_line,
                p.end_line,
                p.kinds.join(" "),
                escape(&p.labels.join("; ")),
                escape(p.text.trim_end())
            ));
        }
        out.push_str("</context>\n");
        out
    }
}

/// `POST /api/v1/map`: a repository map (aider's idea): the most important
/// definitions' signatures, ranked by PageRank over the dependency graph,
/// personalised to `focus` when given, within a token budget.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MapRequest {
    /// Paths (files or directories) and symbol names (bare or qualified) to
    /// centre the map on; empty: the whole repository, by importance.
    #[serde(default)]
    pub focus: Vec<String>,
    /// Tokens the map may take (64 to 262144, default 2048).
    #[serde(default)]
    pub budget: Option<usize>,
    /// Who counts the tokens: `o200k` (default) or `cl100k`.
    #[serde(default)]
    pub tokenizer: Option<TokenizerName>,
    /// Leave test code in (by default it weighs a fifth).
    #[serde(default)]
    pub tests: bool,
}

impl MapRequest {
    pub fn validate(&self) -> Result<(), Error> {
        check_range("budget", self.budget, 64, 262_144)?;
        if self.focus.len() > 100 {
            return Err(Error::invalid("focus", "names more than 100 paths or symbols"));
        }
        if let Some(bad) = self.focus.iter().find(|f| f.trim().is_empty()) {
            return Err(Error::invalid("focus", format!("holds an empty item ({bad:?})")));
        }
        Ok(())
    }
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct RepoMap {
    pub budget: usize,
    pub tokenizer: TokenizerName,
    /// Tokens the text form takes (never above the budget).
    pub tokens: usize,
    /// The focus as resolved: `path` or `symbol` for each item given.
    pub focus: Vec<String>,
    /// Files by their best definition's rank; definitions by line.
    pub files: Vec<MapFile>,
    /// Definitions shown, and ranked in all.
    pub shown: usize,
    pub ranked: usize,
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct MapFile {
    pub path: String,
    pub symbols: Vec<MapSymbol>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct MapSymbol {
    pub line: u32,
    pub end_line: u32,
    pub kind: String,
    pub qualified_name: String,
    /// The declaration on one line (long ones cut with `…`).
    pub signature: String,
    /// Nesting under the file's other shown definitions (a method under its class).
    pub depth: u32,
    /// Its rank's score (0 for a container shown only to hold a member).
    pub score: f64,
}

impl RepoMap {
    /// The text an agent reads: each file, then its definitions with their
    /// line numbers, nested by indentation.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for f in &self.files {
            out.push_str(&map_file_text(f));
        }
        out
    }
}

pub(crate) fn map_file_text(f: &MapFile) -> String {
    let mut out = format!("{}:\n", f.path);
    for s in &f.symbols {
        out.push_str(&map_line_text(s));
    }
    out
}

pub(crate) fn map_line_text(s: &MapSymbol) -> String {
    format!("{:>6}│ {}{}\n", s.line, "    ".repeat(s.depth as usize), s.signature)
}

/// MCP `outline`: a file's symbol tree.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutlineRequest {
    /// The file's path in the repository, as the index spells it.
    pub path: String,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FileOutline {
    pub path: String,
    /// In file order; `parent` names each one's container.
    pub symbols: Vec<SymbolRow>,
}

/// MCP `grep`: lines of the indexed files that match a regular expression
/// or a literal (the text as indexed, so line numbers agree with every
/// other answer).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepRequest {
    /// A regular expression (Rust's `regex` syntax), or a literal with `literal`.
    pub pattern: String,
    #[serde(default)]
    pub literal: bool,
    #[serde(default)]
    pub case_insensitive: bool,
    /// Only files under this path.
    #[serde(default)]
    pub path: Option<String>,
    /// At most this many matching lines (1 to 1000, default 100).
    #[serde(default)]
    pub limit: Option<usize>,
}

impl GrepRequest {
    pub fn validate(&self) -> Result<(), Error> {
        if self.pattern.is_empty() {
            return Err(Error::invalid("pattern", "must not be empty"));
        }
        check_range("limit", self.limit, 1, 1000)?;
        Ok(())
    }
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct GrepResponse {
    pub pattern: String,
    pub matches: Vec<GrepMatch>,
    pub files_searched: usize,
    /// More lines matched than `limit`.
    pub truncated: bool,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct GrepMatch {
    pub path: String,
    pub line: u32,
    /// The line (its first 300 characters).
    pub text: String,
}
