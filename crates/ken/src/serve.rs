//! `ken serve` (HTTP API) and `ken mcp` (MCP over stdio): one engine per
//! process, which also answers the read commands of `ken` run meanwhile
//! (`local.rs`, with `read::answer`).

use crate::model::ModelArgs;
use anyhow::{Context, Result, bail};
use clap::Args;
use ken_pipeline::{PipelineConfig, Source};
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
        let _local = crate::local::listen(engine.clone(), &dir, crate::read::answer);
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
        let _local = crate::local::listen(engine.clone(), &dir, crate::read::answer);
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
