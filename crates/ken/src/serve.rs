//! `ken serve` (HTTP API), `ken mcp` (MCP over stdio) and `ken watch`: one
//! engine per process, which also answers the read commands of `ken` run
//! meanwhile (`local.rs`, with `read::answer`).

use crate::model::ModelArgs;
use anyhow::{Context, Result, bail};
use clap::Args;
use ken_engine::{WatchEvent, WatchOptions};
use ken_pipeline::{PipelineConfig, Source};
use ken_server::{Engine, EngineOptions};
use serde_json::json;
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
    /// Keep the index fresh as files change (as `ken watch` does).
    #[arg(long)]
    pub watch: bool,
    /// Run a team hub that keeps repositories pushed to it (`ken push`) in
    /// this directory and searches them all; its ken.toml sets `[vectors]`.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["lsp", "watch"])]
    pub hub: Option<PathBuf>,
    /// The largest push a hub takes, decompressed (default 1 GiB).
    #[arg(long, value_name = "BYTES", requires = "hub", default_value_t = 1 << 30)]
    pub max_push_bytes: usize,
    #[command(flatten)]
    pub model: ModelArgs,
}

#[derive(Args)]
pub struct WatchArgs {
    /// Only make changes searchable by name, BM25 and the graph; do not embed them with the model.
    #[arg(long)]
    pub no_embed: bool,
    /// Also watch vendored and build directories (node_modules, target, dist, vendor…).
    #[arg(long)]
    pub include_vendored: bool,
    /// One JSON object per pass on stdout (`searchable`, `embedded`, `failed`).
    #[arg(long)]
    pub json: bool,
    /// Print only failures.
    #[arg(long, short)]
    pub quiet: bool,
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
    if let Some(dir) = &args.hub {
        return serve_hub(&cwd.join(dir), &args);
    }
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
        let stop = ken_core::Cancel::default();
        let watching = args.watch.then(|| {
            let (engine, stop) = (engine.clone(), stop.clone());
            let print = Printer { json: false, quiet: true };
            std::thread::spawn(move || engine.watch(&WatchOptions::default(), &stop, &|e| print.event(&e)))
        });
        ken_server::http::serve(engine.clone(), listener, shutdown_signal()).await.context("the HTTP server failed")?;
        stop.cancel();
        if let Some(watching) = watching {
            watching.join().map_err(|_| anyhow::anyhow!("the watcher panicked"))??;
        }
        engine.shutdown().await;
        Ok(())
    })
}

/// `ken serve --hub DIR`: the team hub, configured by `DIR/ken.toml`
/// (`[vectors]` for a cluster, `[server]` for its address and deadline).
fn serve_hub(dir: &Path, args: &ServeArgs) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot make the hub directory {}", dir.display()))?;
    let mut config = load_config(dir)?;
    if let Some(addr) = &args.addr {
        config.server.addr = addr.clone();
        config.validate(&Source::Flag, "").map_err(|e| anyhow::anyhow!("--addr: {e}"))?;
    }
    let addr = config.server.addr.clone();
    // A push is indexed while the client waits: minutes for a large first push.
    let timeout = std::time::Duration::from_secs(config.server.request_timeout_secs.max(3600));
    let hub = Arc::new(ken_engine::hub::Hub::open(dir, config)?);
    let rt = runtime()?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(&addr)
            .await
            .with_context(|| format!("cannot listen on {addr}; pass another --addr (port 0 picks a free one)"))?;
        eprintln!("ken serve: hub listening on http://{} (repositories in {})", listener.local_addr()?, dir.display());
        ken_server::hub::serve(hub, listener, args.max_push_bytes, timeout, shutdown_signal()).await.context("the hub failed")
    })
}

/// `ken watch`: the index kept fresh until Ctrl-C. Like a server, it
/// answers the read commands run meanwhile (it holds the index).
pub fn watch(cwd: &Path, index_dir: Option<PathBuf>, args: WatchArgs) -> Result<()> {
    let root = crate::repo_root(cwd);
    let dir = match index_dir {
        Some(d) => cwd.join(d),
        None => ken_index::default_index_dir(&root),
    };
    let config = load_config(&root)?;
    let rt = runtime()?;
    rt.block_on(async {
        let mut options = EngineOptions::new(dir.clone());
        options.root = Some(root.clone());
        options.config = config;
        options.model = args.model.explicit()?;
        options.keep_shard = true;
        std::fs::create_dir_all(&dir).with_context(|| format!("cannot make the index directory {}", dir.display()))?;
        let engine = Arc::new(Engine::open(options)?);
        let _local = crate::local::listen(engine.clone(), &dir, crate::read::answer);
        let stop = ken_core::Cancel::default();
        let watch_options = WatchOptions { embed: !args.no_embed, include_vendored: args.include_vendored, ..WatchOptions::default() };
        let print = Printer { json: args.json, quiet: args.quiet };
        let mut watching = {
            let (engine, stop) = (engine.clone(), stop.clone());
            tokio::task::spawn_blocking(move || engine.watch(&watch_options, &stop, &|e| print.event(&e)))
        };
        // Cancelling `stop` also stops the pass under way after its batch.
        let done = tokio::select! {
            _ = shutdown_signal() => {
                stop.cancel();
                (&mut watching).await
            }
            done = &mut watching => done,
        };
        done.map_err(|_| anyhow::anyhow!("the watcher panicked"))??;
        engine.shutdown().await;
        Ok(())
    })
}

/// Prints what a watch does: a line per pass on stderr, or JSON lines on stdout.
#[derive(Clone, Copy)]
struct Printer {
    json: bool,
    quiet: bool,
}

impl Printer {
    fn event(&self, event: &WatchEvent) {
        use std::io::Write;
        let line = match event {
            WatchEvent::Watching { directories } => {
                (json!({"event": "watching", "directories": directories}), format!("ken watch: watching {directories} directories"))
            }
            WatchEvent::Searchable { report, seconds, events } => {
                let changes = report.summary.as_ref().map(|s| s.changes.clone()).unwrap_or_default();
                let text = format!(
                    "{} added, {} modified, {} renamed, {} deleted: searchable {seconds:.2} s after the first of {events} events",
                    changes.added, changes.modified, changes.renamed, changes.deleted
                );
                let changed = changes.added + changes.modified + changes.renamed + changes.deleted;
                if changed == 0 && *events > 0 && !self.json {
                    return;
                }
                let phases = report.summary.as_ref().map(|s| s.phases).unwrap_or_default();
                (json!({"event": "searchable", "seconds": seconds, "events": events, "changes": changes, "phases": phases}), text)
            }
            WatchEvent::Embedded { report } => {
                let (points, seconds) = report.vectors.embed.as_ref().map_or((0, 0.0), |e| (e.embedded, e.seconds));
                (json!({"event": "embedded", "points": points, "seconds": seconds}), format!("embedded {points} points in {seconds:.2} s"))
            }
            WatchEvent::Failed { error } => {
                let text = format!("warning: a pass failed ({error}); the next change retries");
                (json!({"event": "failed", "error": error.to_string()}), text)
            }
        };
        if self.json {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", line.0);
            let _ = out.flush();
        } else if !self.quiet || matches!(event, WatchEvent::Failed { .. }) {
            eprintln!("{}", line.1);
        }
    }
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
