//! `ken search`, and the vector phases of `ken index` (points, then embeddings).

use crate::model::ModelArgs;
use anyhow::{Context, Result, bail};
use clap::Args;
use ken_embed::{Embedder, ModelSpec};
use ken_search::{Mode, SearchOptions, SearchResponse, Searcher, VectorShard};
use ken_store::Store;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a search waits for a writer to let go of the vector index
/// (`KEN_LOCK_WAIT_SECS`, default 10).
fn reader_wait() -> Duration {
    let secs = std::env::var("KEN_LOCK_WAIT_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(10.0f64);
    Duration::from_secs_f64(secs.clamp(0.0, 3600.0))
}



#[derive(Args)]
pub struct SearchArgs {
    /// What to look for: a question, a description, or a name.
    pub query: Vec<String>,
    /// Number of results (clusters with --pipeline).
    #[arg(short = 'k', long)]
    pub k: Option<usize>,
    /// Only this language; repeatable.
    #[arg(long)]
    pub lang: Vec<String>,
    /// Only files matching this glob (`src/**/*.py`, `tests/*`).
    #[arg(long, value_name = "GLOB")]
    pub path: Option<String>,
    /// Only these kinds (function, class, method, …); repeatable.
    #[arg(long)]
    pub kind: Vec<String>,
    /// hybrid (dense + BM25 + exact names), semantic, lexical, or exact.
    #[arg(long, default_value = "hybrid")]
    pub mode: String,
    /// Reciprocal Rank Fusion constant.
    #[arg(long, default_value_t = 60.0, value_name = "K")]
    pub rrf_k: f32,
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub pipeline: crate::serve::PipelineArgs,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn search(cwd: &Path, index_dir: Option<PathBuf>, args: SearchArgs) -> Result<()> {
    let query = args.query.join(" ");
    let mode = Mode::parse(&args.mode).with_context(|| format!("unknown --mode `{}`; use hybrid, semantic, lexical or exact", args.mode))?;
    let k = args.k.unwrap_or(10);
    if k == 0 || k > 1000 {
        bail!("-k must be between 1 and 1000");
    }
    let languages = args.lang.iter().map(|l| crate::language_name(l)).collect::<Result<Vec<_>>>()?;
    crate::check_kinds(&args.kind)?;
    // Validate the query before any indexing work.
    ken_search::plan_query(&query)?;

    let dir = match index_dir {
        Some(d) => cwd.join(d),
        None => ken_index::default_index_dir(&crate::repo_root(cwd)),
    };
    if !dir.join(ken_store::DB_FILE).is_file() {
        first_index(cwd, &dir, &args.model)?;
    }
    if args.pipeline.wanted() {
        if args.k.is_some_and(|k| k > ken_pipeline::MAX_TOP_K) {
            bail!("-k must be between 1 and {} with --pipeline", ken_pipeline::MAX_TOP_K);
        }
        let request = ken_server::api::HybridSearchRequest {
            query,
            top_k: args.k,
            config_overrides: None,
            explain: args.pipeline.explain,
            languages,
            kinds: args.kind.clone(),
            path: args.path.clone(),
        };
        let response = crate::serve::pipeline_search(dir, &crate::repo_root(cwd), request, &args.pipeline, &args.model)?;
        if args.json {
            println!("{}", serde_json::to_string_pretty(&response)?);
        } else {
            print!("{}", crate::serve::render(&response, args.pipeline.explain));
            for note in &response.notes {
                eprintln!("note: {note}");
            }
        }
        return Ok(());
    }
    let store = Store::open_read_only(&dir)?;
    let wants_model = mode.uses_dense() && store.embed_progress()?.embedded() > 0;
    let (spec, spec_text, _) = args.model.spec(&store)?;
    if let Some((indexed, indexed_spec)) = ken_search::indexed_model(&store)?
        && ModelSpec::parse(&indexed_spec).is_ok_and(|indexed_spec| spec.certainly_differs(&indexed_spec))
    {
        // Refused before the model is fetched: it could never be used here.
        bail!(
            "this index was embedded with `{indexed}`, not `{spec_text}`; run `ken index --model {spec_text} --reembed` to embed it with the new model, or drop --model"
        );
    }
    let dim = ken_search::shard_dim(&store)?;
    // Loading the shard and the model are independent: do both at once.
    // Only the dense lane needs the shard; BM25 and names are in SQLite.
    let (shard, model) = std::thread::scope(|scope| {
        let model = scope.spawn(|| wants_model.then(|| args.model.resolver().load(&spec)));
        let shard = wants_model.then(|| VectorShard::open(&dir, dim, reader_wait()));
        (shard, model.join().unwrap_or(None))
    });
    let mut dense_off = None;
    let shard = match shard {
        Some(Ok(s)) => Some(s),
        Some(Err(e)) if mode == Mode::Semantic => return Err(e.into()),
        Some(Err(e)) => {
            dense_off = Some(e.to_string());
            None
        }
        None => None,
    };
    let embedder: Option<Box<dyn Embedder>> = match model {
        None => None,
        Some(Ok(e)) => {
            if let Some((indexed, _)) = ken_search::indexed_model(&store)?
                && indexed != e.model_id()
            {
                bail!(
                    "this index was embedded with `{indexed}`, not `{}`; run `ken index --model {spec_text} --reembed` to embed it with the new model, or drop --model",
                    e.model_id()
                );
            }
            Some(e)
        }
        Some(Err(e)) if mode == Mode::Semantic => return Err(e.into()),
        Some(Err(e)) => {
            dense_off.get_or_insert(e.to_string());
            None
        }
    };
    let searcher = Searcher { store: &store, shard: shard.as_ref(), embedder: embedder.as_deref(), dense_off };
    let options = SearchOptions {
        k,
        mode,
        languages,
        kinds: args.kind.clone(),
        path_glob: args.path.clone(),
        rrf_k: args.rrf_k,
        ..Default::default()
    };
    let response = searcher.search(&query, &options)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&response)?);
    } else {
        print!("{}", render(&response, std::io::stdout().is_terminal()));
        for note in &response.notes {
            eprintln!("note: {note}");
        }
    }
    Ok(())
}

/// A repository searched before it was indexed: mine it now (lexical and
/// exact search work at once), and embed in a background process.
fn first_index(cwd: &Path, dir: &Path, model: &ModelArgs) -> Result<()> {
    let root = crate::repo_root(cwd);
    eprintln!("no index yet; indexing {} (embeddings follow in the background)", root.display());
    let mut options = ken_engine::EngineOptions::new(dir.to_path_buf());
    options.root = Some(root.clone());
    options.model = model.explicit()?;
    let request = ken_engine::IndexRequest {
        options: ken_index::IndexOptions::new(root.clone(), dir.to_path_buf()),
        embed: false,
        ..Default::default()
    };
    ken_engine::Engine::open(options)?.index(&request, &|_| {})?;
    // The binary's choice, made here only: embedding takes minutes, so a
    // detached `ken index --embed-only` does it while this search answers.
    let exe = std::env::current_exe().context("cannot find the ken executable to embed in the background")?;
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("--index-dir").arg(dir).args(["index", "--embed-only", "--quiet"]).arg(&root);
    if let Some(m) = &model.model {
        cmd.args(["--model", m]);
    }
    if let Some(d) = &model.model_dir {
        cmd.arg("--model-dir").arg(d);
    }
    cmd.stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
    match cmd.spawn() {
        Ok(_) => eprintln!("embedding in the background; `ken status` shows progress"),
        Err(e) => eprintln!("warning: could not start background embedding ({e}); run `ken index`"),
    }
    Ok(())
}

/// Text results: location, kind and name, score; the header; the snippet
/// with query words in bold on a terminal.
pub fn render(response: &SearchResponse, color: bool) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    if response.hits.is_empty() {
        let _ = writeln!(out, "no results for `{}`", response.query);
        return out;
    }
    for (i, hit) in response.hits.iter().enumerate() {
        let name = if hit.qualified_name.is_empty() { hit.path.clone() } else { hit.qualified_name.clone() };
        let title = format!("{}:{}-{}", hit.path, hit.start_line, hit.end_line);
        if color {
            let _ = writeln!(out, "\x1b[1m{:>2}. {title}\x1b[0m  {} \x1b[36m{name}\x1b[0m  ({:.4})", i + 1, hit.kind, hit.score);
        } else {
            let _ = writeln!(out, "{:>2}. {title}  {} {name}  ({:.4})", i + 1, hit.kind, hit.score);
        }
        let _ = writeln!(out, "    {}", hit.header);
        for (n, line) in hit.snippet.text.lines().enumerate() {
            let line = if color { highlight(line, &response.terms) } else { line.to_string() };
            let _ = writeln!(out, "    {:>5} │ {line}", hit.snippet.start_line as usize + n);
        }
        out.push('\n');
    }
    out
}

fn highlight(line: &str, terms: &[String]) -> String {
    let lower = line.to_lowercase();
    if lower.len() != line.len() {
        return line.to_string();
    }
    let mut marks = vec![false; line.len()];
    for term in terms.iter().filter(|t| t.len() > 2) {
        let mut from = 0;
        while let Some(pos) = lower[from..].find(term.as_str()) {
            let at = from + pos;
            marks[at..at + term.len()].iter_mut().for_each(|m| *m = true);
            from = at + term.len();
        }
    }
    let mut out = String::new();
    let mut on = false;
    for (i, ch) in line.char_indices() {
        if marks[i] != on {
            out.push_str(if marks[i] { "\x1b[1;33m" } else { "\x1b[0m" });
            on = marks[i];
        }
        out.push(ch);
    }
    if on {
        out.push_str("\x1b[0m");
    }
    out
}

/// `ken status`: what the index holds and how far embedding got.
pub fn status(store: &Store, json: bool) -> Result<()> {
    let stats = store.stats()?;
    let progress = store.embed_progress()?;
    let model = ken_search::indexed_model(store)?.map(|(id, _)| id);
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "index_dir": store.dir(), "stats": stats, "embeddings": progress, "model": model,
            }))?
        );
        return Ok(());
    }
    println!("index       {}", store.dir().display());
    println!("files       {}   symbols {}   chunks {}", stats.files, stats.symbols, stats.chunks);
    let pct = |a: u64, b: u64| if b == 0 { 100 } else { a * 100 / b };
    println!(
        "embeddings  symbols {}/{} ({}%), chunks {}/{} ({}%){}",
        progress.symbols_embedded,
        progress.symbols,
        pct(progress.symbols_embedded, progress.symbols),
        progress.chunks_embedded,
        progress.chunks,
        pct(progress.chunks_embedded, progress.chunks),
        if progress.files_unsynced > 0 { format!("; {} files waiting for `ken index`", progress.files_unsynced) } else { String::new() }
    );
    println!("model       {}", model.as_deref().unwrap_or("none yet"));
    Ok(())
}

/// A writer is already at work: say what it is doing instead of failing bare.
pub fn busy_message(index_dir: &Path) -> Option<String> {
    let store = Store::open_read_only(index_dir).ok()?;
    let p = store.embed_progress().ok()?;
    Some(format!(
        "another ken process is updating the index in {} (embeddings {}/{}); `ken status` shows progress, and searches work meanwhile",
        index_dir.display(),
        p.embedded(),
        p.total()
    ))
}
