//! `ken serve` (HTTP API) and `ken mcp` (MCP over stdio): one engine per
//! process, which also answers the read commands of `ken` run meanwhile
//! (`local.rs`). The pipeline's flags and text rendering.

use crate::model::ModelArgs;
use anyhow::{Context, Result, bail};
use clap::Args;
use ken_pipeline::{Expansion, Overrides, PipelineConfig, PipelineResponse, RankingWeights, Source};
use ken_server::{Engine, EngineOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Args)]
pub struct ServeArgs {
    /// Address to listen on (default 127.0.0.1:7878, or server.addr in ken.toml; port 0 picks a free one).
    #[arg(long, value_name = "ADDR")]
    pub addr: Option<String>,
    /// Start language servers and warm them, for `"expansion": "lsp"` requests.
    #[arg(long)]
    pub lsp: bool,
    #[command(flatten)]
    pub model: ModelArgs,
}

#[derive(Args)]
pub struct McpArgs {
    /// Start language servers, for hybrid_search with `"expansion": "lsp"`.
    #[arg(long)]
    pub lsp: bool,
    #[command(flatten)]
    pub model: ModelArgs,
}

/// The pipeline's knobs on the command line (`ken search --pipeline`).
#[derive(Args, Clone, Debug, Default)]
pub struct PipelineArgs {
    /// Run the five-stage pipeline: seeds, graph expansion, clustering,
    /// reranking. Prints clusters of related symbols.
    #[arg(long)]
    pub pipeline: bool,
    /// Say why each symbol is there: seed or relation, and the factor scores (implies --pipeline).
    #[arg(long)]
    pub explain: bool,
    /// Grow the graph over the stored graph (static) or live language servers (lsp).
    #[arg(long, value_name = "static|lsp")]
    pub expansion: Option<String>,
    /// Steps of expansion from the seeds (0–5, default 2).
    #[arg(long, value_name = "N")]
    pub depth: Option<u32>,
    /// Most symbols in the graph (default 100).
    #[arg(long, value_name = "N")]
    pub max_nodes: Option<usize>,
    /// Louvain resolution: higher gives smaller clusters (default 1.0).
    #[arg(long, value_name = "R")]
    pub resolution: Option<f64>,
    /// Ranking weights: text relevance, centrality, proximity (default 0.4,0.35,0.25).
    #[arg(long, value_name = "W1,W2,W3")]
    pub weights: Option<String>,
}

impl PipelineArgs {
    pub fn wanted(&self) -> bool {
        self.pipeline || self.explain || self.expansion.is_some()
    }

    pub fn overrides(&self) -> Result<Overrides> {
        let expansion = match &self.expansion {
            Some(text) => Some(Expansion::parse(text).with_context(|| format!("unknown --expansion `{text}`; use static or lsp"))?),
            None => None,
        };
        let ranking_weights = match &self.weights {
            Some(text) => {
                let w: Vec<f64> = text
                    .split(',')
                    .map(|p| p.trim().parse::<f64>())
                    .collect::<Result<_, _>>()
                    .ok()
                    .filter(|w: &Vec<f64>| w.len() == 3)
                    .with_context(|| format!("--weights `{text}` must be three numbers, e.g. 0.4,0.35,0.25"))?;
                Some(RankingWeights { w1: w[0], w2: w[1], w3: w[2] })
            }
            None => None,
        };
        Ok(Overrides {
            ranking_weights,
            max_graph_depth: self.depth,
            clustering_resolution: self.resolution,
            max_nodes: self.max_nodes,
            min_cluster_size: None,
            expansion,
        })
    }
}

/// The index directory and the repository root for a command run in `cwd`.
fn locate(cwd: &Path, index_dir: Option<PathBuf>) -> Result<(PathBuf, PathBuf)> {
    let root = crate::repo_root(cwd);
    let dir = match index_dir {
        Some(d) => cwd.join(d),
        None => ken_index::default_index_dir(&root),
    };
    if !dir.join(ken_store::DB_FILE).is_file() {
        bail!("no index in {}; run `ken index` in the repository first (or pass --index-dir)", dir.display());
    }
    Ok((dir, root))
}

fn load_config(root: &Path) -> Result<PipelineConfig> {
    PipelineConfig::load(root).map_err(|e| anyhow::anyhow!("{e}"))
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")
}

/// The engine of a served index: it keeps the shard open, so its reindex
/// writes into the handle its searches read from.
fn engine(dir: PathBuf, config: PipelineConfig, model: &ModelArgs, lsp: bool) -> Result<Engine> {
    let mut options = EngineOptions::new(dir);
    options.config = config;
    options.model = model.explicit()?;
    options.lsp = lsp;
    options.keep_shard = true;
    Ok(Engine::open(options)?)
}

pub fn serve(cwd: &Path, index_dir: Option<PathBuf>, args: ServeArgs) -> Result<()> {
    let (dir, root) = locate(cwd, index_dir)?;
    let mut config = load_config(&root)?;
    if let Some(addr) = &args.addr {
        config.server.addr = addr.clone();
        // Name the flag the user typed, once, not the setting behind it.
        config.validate(&Source::Flag, "").map_err(|e| match e {
            ken_pipeline::ConfigError::Invalid { problem, .. } => anyhow::anyhow!("--addr {problem}"),
            other => anyhow::anyhow!("{other}"),
        })?;
    }
    let addr = config.server.addr.clone();
    let rt = runtime()?;
    rt.block_on(async {
        let engine = Arc::new(engine(dir.clone(), config, &args.model, args.lsp)?);
        let _local = crate::local::listen(engine.clone(), &dir);
        let listener = tokio::net::TcpListener::bind(&addr)
            .await
            .with_context(|| format!("cannot listen on {addr}; pass another --addr (port 0 picks a free one)"))?;
        let local = listener.local_addr()?;
        eprintln!("ken serve: listening on http://{local} (index {}); GET /openapi.json lists the endpoints", engine.root().display());
        if args.lsp {
            let warm = engine.clone();
            tokio::spawn(async move {
                for problem in warm.warm_lsp().await {
                    eprintln!("warning: language server: {problem}");
                }
            });
        }
        ken_server::http::serve(engine.clone(), listener, shutdown_signal()).await.context("the HTTP server failed")?;
        engine.shutdown().await;
        Ok(())
    })
}

pub fn mcp(cwd: &Path, index_dir: Option<PathBuf>, args: McpArgs) -> Result<()> {
    let (dir, root) = locate(cwd, index_dir)?;
    let config = load_config(&root)?;
    let rt = runtime()?;
    rt.block_on(async {
        let engine = Arc::new(engine(dir.clone(), config, &args.model, args.lsp)?);
        let _local = crate::local::listen(engine.clone(), &dir);
        ken_server::mcp::serve_stdio(engine.clone()).await.map_err(anyhow::Error::msg)?;
        engine.shutdown().await;
        Ok(())
    })
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
}

/// Clusters as text: score, title, then each symbol (and, with `explain`, why).
pub fn render(response: &PipelineResponse, explain: bool) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let e = &response.expansion;
    let symbols: usize = response.results.iter().map(|c| c.symbols.len()).sum();
    let _ = writeln!(
        out,
        "{} symbols in {} clusters ({} seeds, {} graph, {} nodes, {} edges)\n",
        symbols,
        response.results.len(),
        e.seeds,
        match e.mode {
            Expansion::Static => "static",
            Expansion::Lsp => "live LSP",
        },
        e.nodes,
        e.edges
    );
    if response.results.is_empty() {
        let _ = writeln!(out, "no results for `{}`", response.query);
    }
    for (i, cluster) in response.results.iter().enumerate() {
        let _ = writeln!(out, "cluster {}  {:.3}  {}", i + 1, cluster.score, cluster.title);
        for s in &cluster.symbols {
            let _ = writeln!(
                out,
                "  {:.3}  {:<9} {}  {}:{}-{}",
                s.score, s.kind, s.qualified_name, s.file_path, s.range.start.line, s.range.end.line
            );
            if explain && let Some(x) = &s.explain {
                let origin = match &x.origin {
                    ken_pipeline::ExplainOrigin::Seed { rank, lanes } => {
                        let mut parts = Vec::new();
                        for (lane, rank) in [("dense", lanes.dense), ("bm25", lanes.sparse), ("exact", lanes.exact)] {
                            if let Some(r) = rank {
                                parts.push(format!("{lane} {r}"));
                            }
                        }
                        format!("seed #{rank} ({})", parts.join(", "))
                    }
                    ken_pipeline::ExplainOrigin::Reached { from_name, relation, via, depth, .. } => {
                        let via = match via {
                            ken_pipeline::Via::Graph => "graph",
                            ken_pipeline::Via::Lsp => "lsp",
                        };
                        format!("{from_name} {relation} this ({via}, depth {depth})")
                    }
                };
                let f = &x.factors;
                let _ =
                    writeln!(out, "         {origin} · text {:.2} · centrality {:.2} · proximity {:.2}", f.text, f.centrality, f.proximity);
            }
        }
        out.push('\n');
    }
    let t = &response.timings;
    let _ = writeln!(
        out,
        "stages: seeds {:.1} ms · expansion {:.1} ms · clustering {:.1} ms · ranking {:.1} ms · total {:.1} ms",
        t.seeds_ms, t.expansion_ms, t.clustering_ms, t.ranking_ms, t.total_ms
    );
    out
}
