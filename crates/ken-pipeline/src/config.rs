//! Configuration: built-in defaults, then the user's `ken.toml`, then the
//! repository's, then `KEN_*` environment variables, then command-line flags
//! and per-request overrides. Every layer is validated with an error that
//! names the setting and where it came from.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const CONFIG_FILE: &str = "ken.toml";

/// Where a setting came from, for error messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    File(PathBuf),
    Env(&'static str),
    Flag,
    Request,
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::File(p) => write!(f, "{}", p.display()),
            Source::Env(v) => write!(f, "environment variable {v}"),
            Source::Flag => f.write_str("command line"),
            Source::Request => f.write_str("request"),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// `field` is the setting's path (`pipeline.max_graph_depth`,
    /// `config_overrides.ranking_weights.w1`).
    #[error("{origin}: `{field}` {problem}")]
    Invalid { origin: Source, field: String, problem: String },
    #[error("{path}: {detail}; fix the file or remove it")]
    Parse { path: PathBuf, detail: String },
}

impl ConfigError {
    pub fn field(&self) -> Option<&str> {
        match self {
            ConfigError::Invalid { field, .. } => Some(field),
            ConfigError::Parse { .. } => None,
        }
    }
}

/// How the graph around the seeds is grown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Expansion {
    /// The stored dependency graph (fast, always available).
    Static,
    /// Live language servers (references and call hierarchy), falling back
    /// to the static graph per symbol when a server is missing or fails.
    Lsp,
}

impl Expansion {
    pub fn parse(text: &str) -> Option<Expansion> {
        match text {
            "static" | "graph" => Some(Expansion::Static),
            "lsp" | "live" => Some(Expansion::Lsp),
            _ => None,
        }
    }
}

/// How stage 5 orders the members of the clusters, and so the clusters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MemberOrder {
    /// Seeds keep hybrid retrieval's order, above the symbols the expansion
    /// reached, which follow by their weighted factors: the clusters add
    /// context without losing retrieval's ranking (seed 003's order lowered
    /// MRR@10 on every question set, bench/README.md).
    Retrieval,
    /// Seed 003: every member by its weighted factors alone.
    Factors,
}

impl MemberOrder {
    pub fn parse(text: &str) -> Option<MemberOrder> {
        match text {
            "retrieval" => Some(MemberOrder::Retrieval),
            "factors" | "seed003" => Some(MemberOrder::Factors),
            _ => None,
        }
    }
}

/// Stage 5's weights: text relevance, centrality in the cluster, proximity to seeds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RankingWeights {
    pub w1: f64,
    pub w2: f64,
    pub w3: f64,
}

impl RankingWeights {
    /// Above 0 once validated.
    pub fn sum(&self) -> f64 {
        self.w1 + self.w2 + self.w3
    }
}

impl Default for RankingWeights {
    fn default() -> Self {
        RankingWeights { w1: 0.4, w2: 0.35, w3: 0.25 }
    }
}

/// Everything the five stages read.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PipelineConfig {
    /// Clusters returned; stage 1 retrieves twice as many seeds.
    pub top_k: usize,
    /// How hybrid retrieval fuses its lanes (`[search.ranking]`).
    pub ranking: ken_search::Ranking,
    pub max_graph_depth: u32,
    pub max_nodes: usize,
    /// Neighbours taken from one node, best first, so one hub cannot fill the graph.
    pub max_neighbors: usize,
    pub expansion: Expansion,
    pub clustering_resolution: f64,
    pub min_cluster_size: usize,
    /// A seed whose text relevance reaches this is kept even alone in its cluster.
    pub strong_seed: f64,
    pub ranking_weights: RankingWeights,
    pub order: MemberOrder,
    /// Names the noise filter drops, on top of the built-in list.
    pub noise_names: Vec<String>,
    /// Lines of `raw_code` per symbol; longer code is cut with a marker.
    pub max_code_lines: usize,
    pub lsp: LspSettings,
    pub server: ServerSettings,
    /// The language model of `ask`, the query DSL and intents (`[llm]`).
    pub llm: ken_llm::LlmConfig,
    /// `[vectors]`: the embedded shard, or a Qdrant server.
    pub vectors: ken_search::VectorsConfig,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LspSettings {
    pub request_timeout_ms: u64,
    pub max_in_flight: usize,
    pub cache_ttl_secs: u64,
    /// The whole LSP expansion stops after this long; the rest uses the static graph.
    pub budget_ms: u64,
    /// Servers to prefer over the built-in table (`[[lsp.servers]]`).
    pub servers: Vec<LspServer>,
}

/// A language server to run, from `ken.toml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LspServer {
    pub name: String,
    /// Kenning language names: python, typescript, tsx, javascript, go, c, cpp, rust.
    pub languages: Vec<String>,
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ServerSettings {
    pub addr: String,
    pub request_timeout_secs: u64,
    pub max_body_bytes: usize,
    /// Requests handled at once; more wait (and time out rather than pile up).
    pub max_concurrent: usize,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        PipelineConfig {
            top_k: 10,
            ranking: ken_search::Ranking::default(),
            max_graph_depth: 2,
            max_nodes: 100,
            max_neighbors: 12,
            expansion: Expansion::Static,
            clustering_resolution: 1.0,
            min_cluster_size: 2,
            strong_seed: 0.5,
            ranking_weights: RankingWeights::default(),
            order: MemberOrder::Retrieval,
            noise_names: Vec::new(),
            max_code_lines: 120,
            lsp: LspSettings { request_timeout_ms: 2000, max_in_flight: 10, cache_ttl_secs: 300, budget_ms: 1000, servers: Vec::new() },
            server: ServerSettings { addr: "127.0.0.1:7878".into(), request_timeout_secs: 30, max_body_bytes: 1 << 20, max_concurrent: 64 },
            llm: ken_llm::LlmConfig::default(),
            vectors: ken_search::VectorsConfig::default(),
        }
    }
}

/// One layer of settings, all optional: a `ken.toml`, or a request's overrides.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    #[serde(default)]
    pub search: SearchLayer,
    #[serde(default)]
    pub pipeline: PipelineLayer,
    #[serde(default)]
    pub lsp: LspLayer,
    #[serde(default)]
    pub server: ServerLayer,
    #[serde(default)]
    pub llm: ken_llm::LlmConfig,
    /// Where vectors live: the embedded shard, or a Qdrant server.
    #[serde(default)]
    pub vectors: ken_search::VectorsConfig,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchLayer {
    pub top_k: Option<usize>,
    pub ranking: Option<ken_search::RankingOverrides>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PipelineLayer {
    pub max_graph_depth: Option<u32>,
    pub max_nodes: Option<usize>,
    pub max_neighbors: Option<usize>,
    pub expansion: Option<Expansion>,
    pub clustering_resolution: Option<f64>,
    pub min_cluster_size: Option<usize>,
    pub strong_seed: Option<f64>,
    pub ranking_weights: Option<RankingWeights>,
    pub order: Option<MemberOrder>,
    pub noise_names: Option<Vec<String>>,
    pub max_code_lines: Option<usize>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LspLayer {
    pub request_timeout_ms: Option<u64>,
    pub max_in_flight: Option<usize>,
    pub cache_ttl_secs: Option<u64>,
    pub budget_ms: Option<u64>,
    pub servers: Option<Vec<LspServer>>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerLayer {
    pub addr: Option<String>,
    pub request_timeout_secs: Option<u64>,
    pub max_body_bytes: Option<usize>,
    pub max_concurrent: Option<usize>,
}

/// Per-request overrides (seed 003's `config_overrides`, plus a few more).
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Overrides {
    pub ranking_weights: Option<RankingWeights>,
    /// `retrieval` (the default) or `factors` (seed 003's order).
    pub order: Option<MemberOrder>,
    pub max_graph_depth: Option<u32>,
    pub clustering_resolution: Option<f64>,
    pub max_nodes: Option<usize>,
    pub min_cluster_size: Option<usize>,
    pub expansion: Option<Expansion>,
}

impl PipelineConfig {
    /// Defaults, the user's config, the repository's config, then the environment.
    pub fn load(repo_root: &Path) -> Result<PipelineConfig, ConfigError> {
        let mut config = PipelineConfig::default();
        for path in [user_config_path(), Some(repo_root.join(CONFIG_FILE))].into_iter().flatten() {
            if path.is_file() {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| ConfigError::Parse { path: path.clone(), detail: format!("cannot read it ({e})") })?;
                let layer: ConfigFile = toml::from_str(&text).map_err(|e| {
                    let line = e.span().map_or(0, |span| text[..span.start.min(text.len())].matches('\n').count() + 1);
                    ConfigError::Parse { path: path.clone(), detail: format!("line {line}: {}", e.message()) }
                })?;
                config.apply_file(&layer, &Source::File(path))?;
            }
        }
        config.apply_env(|name| std::env::var(name).ok())?;
        Ok(config)
    }

    pub fn apply_file(&mut self, layer: &ConfigFile, source: &Source) -> Result<(), ConfigError> {
        let mut next = self.clone();
        set(&mut next.top_k, layer.search.top_k);
        if let Some(overrides) = &layer.search.ranking {
            next.ranking = overrides.apply(&next.ranking);
        }
        let p = &layer.pipeline;
        set(&mut next.max_graph_depth, p.max_graph_depth);
        set(&mut next.max_nodes, p.max_nodes);
        set(&mut next.max_neighbors, p.max_neighbors);
        set(&mut next.expansion, p.expansion);
        set(&mut next.clustering_resolution, p.clustering_resolution);
        set(&mut next.min_cluster_size, p.min_cluster_size);
        set(&mut next.strong_seed, p.strong_seed);
        set(&mut next.ranking_weights, p.ranking_weights);
        set(&mut next.order, p.order);
        set(&mut next.noise_names, p.noise_names.clone());
        set(&mut next.max_code_lines, p.max_code_lines);
        let l = &layer.lsp;
        set(&mut next.lsp.request_timeout_ms, l.request_timeout_ms);
        set(&mut next.lsp.max_in_flight, l.max_in_flight);
        set(&mut next.lsp.cache_ttl_secs, l.cache_ttl_secs);
        set(&mut next.lsp.budget_ms, l.budget_ms);
        set(&mut next.lsp.servers, l.servers.clone());
        let s = &layer.server;
        set(&mut next.server.addr, s.addr.clone());
        set(&mut next.server.request_timeout_secs, s.request_timeout_secs);
        set(&mut next.server.max_body_bytes, s.max_body_bytes);
        set(&mut next.server.max_concurrent, s.max_concurrent);
        next.llm.merge(&layer.llm);
        next.vectors.merge(&layer.vectors);
        next.validate(source, "")?;
        *self = next;
        Ok(())
    }

    /// `KEN_TOP_K`, `KEN_MAX_GRAPH_DEPTH`, `KEN_MAX_NODES`, `KEN_EXPANSION`,
    /// `KEN_CLUSTERING_RESOLUTION`, `KEN_RANKING_WEIGHTS` ("0.4,0.35,0.25"),
    /// `KEN_PIPELINE_ORDER` (retrieval or factors),
    /// `KEN_LSP_TIMEOUT_MS`, `KEN_ADDR`.
    pub fn apply_env(&mut self, var: impl Fn(&str) -> Option<String>) -> Result<(), ConfigError> {
        fn parse<T: std::str::FromStr>(name: &'static str, text: &str, field: &str) -> Result<T, ConfigError> {
            text.trim().parse().map_err(|_| ConfigError::Invalid {
                origin: Source::Env(name),
                field: field.into(),
                problem: format!("cannot be `{text}`: not a number"),
            })
        }
        // Each variable is checked as it is applied, so an error names the one at fault.
        let mut next = self.clone();
        macro_rules! number {
            ($name:literal, $field:literal, $slot:expr) => {
                if let Some(text) = var($name) {
                    $slot = parse($name, &text, $field)?;
                    next.validate(&Source::Env($name), "")?;
                }
            };
        }
        number!("KEN_TOP_K", "top_k", next.top_k);
        number!("KEN_MAX_GRAPH_DEPTH", "max_graph_depth", next.max_graph_depth);
        number!("KEN_MAX_NODES", "max_nodes", next.max_nodes);
        number!("KEN_CLUSTERING_RESOLUTION", "clustering_resolution", next.clustering_resolution);
        number!("KEN_LSP_TIMEOUT_MS", "lsp.request_timeout_ms", next.lsp.request_timeout_ms);
        if let Some(text) = var("KEN_EXPANSION") {
            next.expansion = Expansion::parse(text.trim()).ok_or_else(|| ConfigError::Invalid {
                origin: Source::Env("KEN_EXPANSION"),
                field: "expansion".into(),
                problem: format!("cannot be `{text}`; use static or lsp"),
            })?;
        }
        if let Some(text) = var("KEN_PIPELINE_ORDER") {
            next.order = MemberOrder::parse(text.trim()).ok_or_else(|| ConfigError::Invalid {
                origin: Source::Env("KEN_PIPELINE_ORDER"),
                field: "order".into(),
                problem: format!("cannot be `{text}`; use retrieval or factors"),
            })?;
        }
        if let Some(text) = var("KEN_RANKING_WEIGHTS") {
            let parts: Vec<&str> = text.split(',').collect();
            let bad = || ConfigError::Invalid {
                origin: Source::Env("KEN_RANKING_WEIGHTS"),
                field: "ranking_weights".into(),
                problem: format!("cannot be `{text}`; give three numbers, e.g. 0.4,0.35,0.25"),
            };
            if parts.len() != 3 {
                return Err(bad());
            }
            let w: Vec<f64> = parts.iter().map(|p| p.trim().parse().map_err(|_| bad())).collect::<Result<_, _>>()?;
            next.ranking_weights = RankingWeights { w1: w[0], w2: w[1], w3: w[2] };
            next.validate(&Source::Env("KEN_RANKING_WEIGHTS"), "")?;
        }
        if let Some(addr) = var("KEN_ADDR") {
            next.server.addr = addr;
            next.validate(&Source::Env("KEN_ADDR"), "")?;
        }
        next.llm.apply_env(&var);
        next.vectors.apply_env(&var);
        if var("KEN_QDRANT_URL").is_some() {
            next.validate(&Source::Env("KEN_QDRANT_URL"), "")?;
        }
        *self = next;
        Ok(())
    }

    /// Overrides (a request's, or flags) on top of this configuration.
    /// `prefix` names the overrides object in errors (`config_overrides.`).
    pub fn with_overrides(&self, overrides: &Overrides, prefix: &str, source: &Source) -> Result<PipelineConfig, ConfigError> {
        let mut next = self.clone();
        set(&mut next.ranking_weights, overrides.ranking_weights);
        set(&mut next.order, overrides.order);
        set(&mut next.max_graph_depth, overrides.max_graph_depth);
        set(&mut next.clustering_resolution, overrides.clustering_resolution);
        set(&mut next.max_nodes, overrides.max_nodes);
        set(&mut next.min_cluster_size, overrides.min_cluster_size);
        set(&mut next.expansion, overrides.expansion);
        next.validate(source, prefix)?;
        Ok(next)
    }

    /// Checks every range; `prefix` is prepended to field names in errors.
    pub fn validate(&self, source: &Source, prefix: &str) -> Result<(), ConfigError> {
        let bad =
            |field: &str, problem: String| Err(ConfigError::Invalid { origin: source.clone(), field: format!("{prefix}{field}"), problem });
        let int = |field: &str, value: u64, lo: u64, hi: u64| {
            if value < lo || value > hi { bad(field, format!("must be between {lo} and {hi} (got {value})")) } else { Ok(()) }
        };
        int("top_k", self.top_k as u64, 1, MAX_TOP_K as u64)?;
        if let Some((field, problem)) = self.ranking.invalid() {
            return Err(ConfigError::Invalid { origin: source.clone(), field: format!("search.ranking.{field}"), problem });
        }
        int("max_graph_depth", self.max_graph_depth as u64, 0, 5)?;
        int("max_nodes", self.max_nodes as u64, 1, 2000)?;
        int("max_neighbors", self.max_neighbors as u64, 1, 1000)?;
        int("min_cluster_size", self.min_cluster_size as u64, 1, 1000)?;
        int("max_code_lines", self.max_code_lines as u64, 0, 100_000)?;
        let r = self.clustering_resolution;
        if !r.is_finite() || r <= 0.0 || r > 10.0 {
            return bad("clustering_resolution", format!("must be a number above 0 and at most 10 (got {r})"));
        }
        if !self.strong_seed.is_finite() || !(0.0..=1.0).contains(&self.strong_seed) {
            return bad("strong_seed", format!("must be between 0 and 1 (got {})", self.strong_seed));
        }
        let w = self.ranking_weights;
        for (name, value) in [("w1", w.w1), ("w2", w.w2), ("w3", w.w3)] {
            if !value.is_finite() || !(0.0..=1000.0).contains(&value) {
                return bad(&format!("ranking_weights.{name}"), format!("must be a finite number from 0 to 1000 (got {value})"));
            }
        }
        if w.w1 + w.w2 + w.w3 <= 0.0 {
            return bad("ranking_weights", "must not all be 0".into());
        }
        for name in &self.noise_names {
            if name.trim().is_empty() {
                return bad("noise_names", "must not contain empty names".into());
            }
        }
        int("lsp.request_timeout_ms", self.lsp.request_timeout_ms, 10, 120_000)?;
        int("lsp.max_in_flight", self.lsp.max_in_flight as u64, 1, 256)?;
        int("lsp.cache_ttl_secs", self.lsp.cache_ttl_secs, 0, 86_400)?;
        int("lsp.budget_ms", self.lsp.budget_ms, 10, 600_000)?;
        for (i, server) in self.lsp.servers.iter().enumerate() {
            if server.name.trim().is_empty() || server.command.trim().is_empty() {
                return bad(&format!("lsp.servers[{i}]"), "needs a name and a command".into());
            }
            if server.languages.is_empty() {
                return bad(&format!("lsp.servers[{i}].languages"), "must name at least one language".into());
            }
        }
        if self.server.addr.parse::<std::net::SocketAddr>().is_err() {
            return bad("server.addr", format!("must be an address with a port, e.g. 127.0.0.1:7878 (got `{}`)", self.server.addr));
        }
        int("server.request_timeout_secs", self.server.request_timeout_secs, 1, 3600)?;
        int("server.max_body_bytes", self.server.max_body_bytes as u64, 256, 64 << 20)?;
        int("server.max_concurrent", self.server.max_concurrent as u64, 1, 100_000)?;
        if let Some(problem) = self.vectors.problem() {
            let (field, problem) = problem.split_once(": ").unwrap_or(("vectors", &problem));
            return bad(field, problem.to_string());
        }
        Ok(())
    }
}

pub const MAX_TOP_K: usize = 100;

fn set<T>(slot: &mut T, value: Option<T>) {
    if let Some(v) = value {
        *slot = v;
    }
}

/// `$XDG_CONFIG_HOME/ken/ken.toml`, else `~/.config/ken/ken.toml`.
pub fn user_config_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("ken").join(CONFIG_FILE))
}
