//! `ken`: the command-line interface. Parses arguments, finds the index,
//! calls the library crates and prints text or JSON. No analysis lives here.

mod graph;
mod model;
mod output;
mod search;
mod serve;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use ken_core::ChunkBudget;
use ken_engine::IndexProgress;
use ken_index::{IndexOptions, Progress};
use ken_store::{Store, SymbolQuery, SymbolRow};
use std::io::IsTerminal;

/// Mining and tokenizing allocate many small strings on every core;
/// mimalloc's per-thread heaps make that markedly cheaper than glibc's malloc.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(name = "ken", version, about = "Kenning: index, search and understand code repositories")]
struct Cli {
    /// Run as if ken was started in this directory.
    #[arg(short = 'C', global = true, value_name = "DIR")]
    directory: Option<PathBuf>,
    /// Where the index lives (default: <repo>/.kenning).
    #[arg(long, global = true, env = "KEN_INDEX_DIR", value_name = "DIR")]
    index_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Index a repository, or bring its index up to date.
    Index(IndexArgs),
    /// Find symbols by exact or partial name (case-insensitive, exact first).
    Symbols(SymbolsArgs),
    /// Show the symbol tree of a file.
    Outline(OutlineArgs),
    /// Query the dependency graph: callers, callees, class hierarchy, tests…
    Graph(graph::GraphArgs),
    /// Search code: natural language, names, or both (dense + BM25 + exact names).
    Search(search::SearchArgs),
    /// Serve the HTTP API (hybrid search, symbols, graph, status; OpenAPI at /openapi.json).
    Serve(serve::ServeArgs),
    /// Serve MCP over stdio, for coding agents (search, hybrid_search, symbol, callers, …).
    Mcp(serve::McpArgs),
    /// Show what the index holds and how far embedding got.
    Status {
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
struct IndexArgs {
    /// Repository to index (default: the repository holding the current directory).
    path: Option<PathBuf>,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
    /// Skip files larger than this many bytes.
    #[arg(long, default_value_t = 1 << 20, value_name = "BYTES")]
    max_file_size: u64,
    /// Chunk budget in characters.
    #[arg(long, default_value_t = ChunkBudget::default().max_chars, value_name = "N")]
    chunk_chars: u32,
    /// Chunk budget in lines.
    #[arg(long, default_value_t = ChunkBudget::default().max_lines, value_name = "N")]
    chunk_lines: u32,
    /// Lines shared by consecutive chunks when a node must be cut by lines.
    #[arg(long, default_value_t = ChunkBudget::default().overlap_lines, value_name = "N")]
    chunk_overlap: u32,
    /// Also index vendored and build directories (node_modules, target, dist, vendor…).
    #[arg(long)]
    include_vendored: bool,
    /// Delete the index and build it again from scratch.
    #[arg(long)]
    rebuild: bool,
    /// Skip resolving references into the dependency graph (the next run
    /// without this flag resolves what was skipped).
    #[arg(long)]
    no_graph: bool,
    /// Build only the lexical and graph layers; embed later with `ken index`.
    #[arg(long, env = "KEN_NO_EMBED", value_parser = clap::builder::BoolishValueParser::new())]
    no_embed: bool,
    /// Throw away the embeddings and embed everything again (after changing --model).
    #[arg(long)]
    reembed: bool,
    /// Only bring embeddings up to date (what `ken search` runs in the background).
    #[arg(long, hide = true)]
    embed_only: bool,
    #[command(flatten)]
    model: model::ModelArgs,
    /// Do not show a progress bar.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Args)]
struct SymbolsArgs {
    /// Name or part of a name; a qualified suffix such as `Session.send` works too.
    #[arg(required_unless_present = "rank")]
    name: Option<String>,
    /// Order by importance (PageRank, references, usage across files); with
    /// no NAME, list the most important symbols of the repository.
    #[arg(long)]
    rank: bool,
    /// Only these kinds (function, class, method, …); repeatable.
    #[arg(long)]
    kind: Vec<String>,
    /// Only this language.
    #[arg(long)]
    lang: Option<String>,
    /// At most this many results (0: all).
    #[arg(short = 'k', long, default_value_t = 20)]
    limit: usize,
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct OutlineArgs {
    /// File path, relative to the current directory or the repository root.
    file: PathBuf,
    #[arg(long)]
    json: bool,
}

fn writes_only_to_stdout(command: &Command) -> bool {
    match command {
        Command::Search(args) => !args.pipeline.wanted(),
        Command::Serve(_) | Command::Mcp(_) => false,
        _ => true,
    }
}

fn main() {
    // Tree-sitter's C code allocates a node at a time: the same heaps for it.
    // SAFETY: set once, before any parser exists; mimalloc's functions have
    // the C signatures tree-sitter asks for.
    unsafe {
        use libmimalloc_sys as mi;
        tree_sitter::set_allocator(Some(mi::mi_malloc), Some(mi::mi_calloc), Some(mi::mi_realloc), Some(mi::mi_free));
    }
    let cli = Cli::parse();
    if writes_only_to_stdout(&cli.command) {
        // `ken search … | head`: a closed pipe ends the output quietly, as
        // in other Unix tools, instead of panicking inside println!. Not for
        // commands that talk to language servers over pipes, where a crashed
        // server must be an error, not a signal that kills ken.
        #[cfg(unix)]
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("KEN_LOG").unwrap_or_else(|_| "warn,qdrant_edge=error".into()))
        .with_writer(std::io::stderr)
        .init();
    if let Err(err) = run(cli) {
        let mut message = err.to_string();
        for cause in err.chain().skip(1) {
            message.push_str(": ");
            message.push_str(&cause.to_string());
        }
        eprintln!("error: {message}");
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> Result<()> {
    let cwd = match &cli.directory {
        Some(dir) => {
            if !dir.is_dir() {
                bail!("{} is not a directory; pass an existing directory to -C", dir.display());
            }
            dir.canonicalize()?
        }
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    match cli.command {
        Command::Index(args) => index(&cwd, cli.index_dir, args),
        Command::Symbols(args) => symbols(&cwd, cli.index_dir, args),
        Command::Outline(args) => outline(&cwd, cli.index_dir, args),
        Command::Graph(args) => graph::run(&open_index(&cwd, cli.index_dir)?, args),
        Command::Search(args) => search::search(&cwd, cli.index_dir, args),
        Command::Serve(args) => serve::serve(&cwd, cli.index_dir, args),
        Command::Mcp(args) => serve::mcp(&cwd, cli.index_dir, args),
        Command::Status { json } => search::status(&open_index(&cwd, cli.index_dir)?, json),
    }
}

/// The repository holding `dir`: the nearest ancestor with an index or a
/// `.git`, else `dir` itself.
pub(crate) fn repo_root(dir: &Path) -> PathBuf {
    dir.ancestors()
        .find(|a| a.join(".kenning").is_dir() || a.join(".git").exists())
        .unwrap_or(dir)
        .to_path_buf()
}

fn index(cwd: &Path, index_dir: Option<PathBuf>, args: IndexArgs) -> Result<()> {
    let root = match &args.path {
        Some(path) => {
            let path = cwd.join(path);
            if !path.exists() {
                bail!("{} does not exist; pass the path of a repository to index", path.display());
            }
            path
        }
        None => repo_root(cwd),
    };
    let index_dir = index_dir.map(|d| cwd.join(d)).unwrap_or_else(|| ken_index::default_index_dir(&root));
    let mut opts = IndexOptions::new(root, index_dir);
    opts.max_file_size = args.max_file_size;
    opts.budget = ChunkBudget { max_chars: args.chunk_chars, max_lines: args.chunk_lines, overlap_lines: args.chunk_overlap };
    if opts.budget.max_chars == 0 || opts.budget.max_lines == 0 {
        bail!("--chunk-chars and --chunk-lines must be at least 1");
    }
    opts.include_vendored = args.include_vendored;
    opts.rebuild = args.rebuild;
    opts.graph = !args.no_graph;

    let bar = if args.quiet || args.json || !std::io::stderr().is_terminal() {
        indicatif::ProgressBar::hidden()
    } else {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_message("walking");
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        bar
    };
    let style = indicatif::ProgressStyle::with_template("{spinner} mining {bar:30} {pos}/{len} files {elapsed}")
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    let embed_style =
        indicatif::ProgressStyle::with_template("{spinner} embedding {msg} {bar:30} {pos}/{len} {elapsed} (eta {eta})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    let progress = |p: IndexProgress| match p {
        IndexProgress::Files(Progress::Walked { files }) => {
            bar.set_style(style.clone());
            bar.set_length(files);
        }
        IndexProgress::Files(Progress::Mining { done, total }) => {
            bar.set_length(total);
            bar.set_position(done);
        }
        IndexProgress::Files(Progress::Linking) => {
            bar.set_style(indicatif::ProgressStyle::default_spinner());
            bar.set_message("resolving references");
        }
        IndexProgress::Points => {
            bar.set_style(indicatif::ProgressStyle::default_spinner());
            bar.set_message("writing the BM25 index");
        }
        IndexProgress::Embedding(p) => {
            bar.set_style(embed_style.clone());
            bar.set_length(p.total());
            bar.set_position(p.embedded());
            bar.set_message(if p.symbols_embedded < p.symbols { "symbols" } else { "chunks" });
        }
    };
    let index_dir = opts.index_dir.clone();
    let mut options = ken_engine::EngineOptions::new(index_dir.clone());
    options.root = Some(opts.root.clone());
    options.model = args.model.explicit()?;
    let engine = ken_engine::Engine::open(options)?;
    let request = ken_engine::IndexRequest { options: opts, embed: !args.no_embed, reembed: args.reembed, embed_only: args.embed_only };
    let report = match engine.index(&request, &progress) {
        Ok(report) => report,
        Err(e) if e.kind == ken_engine::ErrorKind::Busy && args.embed_only => return Ok(()),
        Err(e) if e.kind == ken_engine::ErrorKind::Busy => match search::busy_message(&index_dir) {
            Some(message) => bail!(message),
            None => return Err(e.into()),
        },
        Err(e) => return Err(e.into()),
    };
    bar.finish_and_clear();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else if let Some(summary) = &report.summary {
        print!("{}{}", output::index_summary(summary), output::vector_report(&report.vectors));
    } else if !args.quiet {
        print!("{}", output::vector_report(&report.vectors));
    }
    Ok(())
}

/// `--kind` values must be symbol kinds.
pub(crate) fn check_kinds(kinds: &[String]) -> Result<()> {
    for kind in kinds {
        ken_core::SymbolKind::parse_or_list(kind).map_err(anyhow::Error::msg)?;
    }
    Ok(())
}

/// The canonical name of a `--lang` value.
pub(crate) fn language_name(text: &str) -> Result<String> {
    Ok(ken_core::Language::from_name_or_list(text).map_err(anyhow::Error::msg)?.name().to_string())
}

/// Opens the index for reading: `--index-dir`, or the one of the repository
/// holding the current directory.
fn open_index(cwd: &Path, index_dir: Option<PathBuf>) -> Result<Store> {
    let dir = match index_dir {
        Some(d) => cwd.join(d),
        None => {
            let root = repo_root(cwd);
            let dir = ken_index::default_index_dir(&root);
            if !dir.join(ken_store::DB_FILE).is_file() {
                bail!("no index found for {}; run `ken index` there first (or pass --index-dir)", root.display());
            }
            dir
        }
    };
    Ok(Store::open_read_only(&dir)?)
}

fn symbols(cwd: &Path, index_dir: Option<PathBuf>, args: SymbolsArgs) -> Result<()> {
    let store = open_index(cwd, index_dir)?;
    check_kinds(&args.kind)?;
    let language = args.lang.as_deref().map(language_name).transpose()?;
    let name = args.name.clone().unwrap_or_default();
    let rows = if args.rank {
        let mut rows: Vec<(SymbolRow, f64)> = match &args.name {
            Some(name) => store
                .find_symbols(&SymbolQuery { text: name.clone(), kinds: args.kind.clone(), language: language.clone(), limit: 0 })?
                .into_iter()
                .map(|s| {
                    let importance = store.metrics(s.id).ok().flatten().map_or(0.0, |m| m.importance);
                    (s, importance)
                })
                .collect(),
            None => ken_graph::Graph::new(&store)
                .ranked(usize::MAX)?
                .into_iter()
                .filter(|(s, _)| args.kind.is_empty() || args.kind.contains(&s.kind))
                .filter(|(s, _)| language.as_ref().is_none_or(|l| &s.language == l))
                .map(|(s, m)| (s, m.importance))
                .collect(),
        };
        rows.sort_by(|a, b| b.1.total_cmp(&a.1));
        rows.truncate(if args.limit == 0 { usize::MAX } else { args.limit });
        rows.into_iter().map(|(s, _)| s).collect()
    } else {
        store.find_symbols(&SymbolQuery { text: name.clone(), kinds: args.kind, language, limit: args.limit })?
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else if rows.is_empty() {
        eprintln!("no symbol matches `{name}`");
    } else {
        print!("{}", output::symbol_list(&rows));
    }
    Ok(())
}

fn outline(cwd: &Path, index_dir: Option<PathBuf>, args: OutlineArgs) -> Result<()> {
    let store = open_index(cwd, index_dir)?;
    let root = store.meta("root")?.map(PathBuf::from);
    let typed = cwd.join(&args.file);
    let mut candidates: Vec<String> = Vec::new();
    if let (Some(root), Ok(abs)) = (&root, typed.canonicalize()) {
        if let Ok(rel) = abs.strip_prefix(root) {
            candidates.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
    let as_given = args.file.to_string_lossy().replace('\\', "/");
    candidates.push(as_given.trim_start_matches("./").to_string());
    for path in &candidates {
        if let Some(rows) = store.outline(path)? {
            if args.json {
                println!("{}", serde_json::to_string_pretty(&output::outline_json(path, &rows))?);
            } else {
                print!("{}", output::outline_text(path, &rows));
            }
            return Ok(());
        }
    }
    let similar = store.paths_ending_with(candidates.last().map(String::as_str).unwrap_or_default())?;
    match similar.as_slice() {
        [only] => {
            let rows = store.outline(only)?.unwrap_or_default();
            if args.json {
                println!("{}", serde_json::to_string_pretty(&output::outline_json(only, &rows))?);
            } else {
                print!("{}", output::outline_text(only, &rows));
            }
            Ok(())
        }
        [] => bail!("{} is not in the index; check the path, or run `ken index` if the file is new", args.file.display()),
        many => bail!("{} matches several indexed files: {}; give more of the path", args.file.display(), many.join(", ")),
    }
}
