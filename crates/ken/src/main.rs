//! `ken`: the command-line interface. Parses arguments, finds the index,
//! calls the library crates and prints text or JSON. No analysis lives here.

mod ask;
mod eval;
mod graph;
mod highlight;
mod impact;
mod local;
mod locate;
mod model;
mod output;
mod pack;
mod plan_search;
mod push;
mod read;
mod search;
mod serve;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use ken_core::ChunkBudget;
use ken_engine::{IndexProgress, IntentProgress};
use ken_index::{IndexOptions, Progress};
use read::ReadCommand;
use std::io::IsTerminal;

/// Mining and tokenizing allocate many small strings on every core;
/// mimalloc's per-thread heaps make that markedly cheaper than glibc's malloc.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(name = "ken", version, about = "Kenning: index, search and understand code repositories")]
pub(crate) struct Cli {
    /// Run as if ken was started in this directory.
    #[arg(short = 'C', global = true, value_name = "DIR")]
    directory: Option<PathBuf>,
    /// Where the index lives (default: <repo>/.kenning).
    #[arg(long, global = true, env = "KEN_INDEX_DIR", value_name = "DIR")]
    index_dir: Option<PathBuf>,
    /// When to colour the output: auto (on a terminal, unless NO_COLOR is
    /// set), always or never.
    #[arg(long, global = true, value_enum, default_value_t, value_name = "WHEN")]
    color: output::ColorChoice,
    /// When to make paths hyperlinks (OSC 8): auto (with colour, on a
    /// terminal known to show them), always or never.
    #[arg(long, global = true, value_enum, default_value_t, value_name = "WHEN")]
    hyperlinks: output::LinkChoice,
    /// Keep vectors in this Qdrant server (its gRPC address, e.g.
    /// http://localhost:6334; a cluster's nodes separated by commas) instead
    /// of the embedded shard. The same as KEN_QDRANT_URL or `[vectors] url`.
    #[arg(long, global = true, value_name = "URL")]
    qdrant_url: Option<String>,
    #[command(subcommand)]
    command: Command,
}

// Parsed once per process: boxing the big variant would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Index a repository, or bring its index up to date.
    Index(IndexArgs),
    #[command(flatten)]
    Read(ReadCommand),
    /// Answer a question about the code with the language model, citing
    /// `path:start-end` for each claim (a local model unless [llm] or
    /// KEN_LLM_BASE_URL names an OpenAI-compatible endpoint).
    Ask(ask::AskArgs),
    /// Plan a change (MutaGReP's plan search): the language model proposes
    /// plans in plain steps, retrieval grounds each step in the code, and the
    /// plan the code supports best is printed with its symbols.
    PlanSearch(plan_search::PlanSearchArgs),
    /// Measure retrieval on this repository: its own names and docstrings as
    /// queries (docstrings blanked in a scratch copy), MRR@10, Recall@10 and
    /// latency per mode, without each lane, and for ranking settings to compare.
    Eval(eval::EvalArgs),
    /// Classify a change into CodePlan's atomic changes and list the blocks
    /// that may have to change with it, each with the relation that reaches
    /// it (`Rel(D, M, CalledBy)`): the working tree against HEAD by default.
    Impact(impact::ImpactArgs),
    /// CodePlan's plan graph: seed blocks (or edits already made) and the
    /// obligations the may-impact rules derive from them, as text, JSON or DOT.
    Plan(impact::PlanArgs),
    /// Serve the HTTP API (hybrid search, symbols, graph, status; OpenAPI at /openapi.json).
    Serve(serve::ServeArgs),
    /// Send this index to a team hub (`ken serve --hub`), from CI after
    /// `ken index`: only the files that changed since the last push, with
    /// their vectors.
    Push(push::PushArgs),
    /// A team hub's tokens: `ken hub token NAME --access push --dir DIR`.
    #[command(subcommand)]
    Hub(push::HubCommand),
    /// Serve MCP over stdio, for coding agents (search, hybrid_search, symbol, callers, …).
    Mcp(serve::McpArgs),
    /// Keep the index fresh as files change: each burst of changes is
    /// searchable by name, BM25 and the graph first, then embedded. Runs
    /// until Ctrl-C, answering `ken search` and the other read commands.
    Watch(serve::WatchArgs),
    /// Print a shell's completion script for ken, e.g.
    /// `ken completions bash > ~/.local/share/bash-completion/completions/ken`
    /// or `ken completions zsh > "${fpath[1]}/_ken"`.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Print ken's manual page (roff), e.g. `ken man > ~/.local/share/man/man1/ken.1`.
    Man,
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
    /// Also index files that say they are generated (minified bundles,
    /// protobuf output, `@generated` or "DO NOT EDIT" headers). The index
    /// remembers it until `--rebuild`.
    #[arg(long)]
    include_generated: bool,
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
    /// Reuse the embeddings of another index of this repository (another
    /// commit or branch, a CI artifact): a directory holding `index.sqlite`,
    /// or a repository with its `.kenning`. Only changed text is embedded.
    #[arg(long, value_name = "DIR")]
    from: Option<PathBuf>,
    /// Throw away the embeddings and embed everything again (after changing --model).
    #[arg(long)]
    reembed: bool,
    /// Also have the language model write five intents ("I want to …") for
    /// each function, method and type, embedded as a lane of their own
    /// (MutaGReP). Cached by the symbol's text: later runs ask only about
    /// changed code. A local model unless [llm] or KEN_LLM_BASE_URL names an endpoint.
    #[arg(long)]
    intents: bool,
    /// Only bring embeddings up to date (what `ken search` runs in the background).
    #[arg(long, hide = true)]
    embed_only: bool,
    #[command(flatten)]
    model: model::ModelArgs,
    /// Do not show a progress bar.
    #[arg(long, short)]
    quiet: bool,
}

fn writes_only_to_stdout(command: &Command) -> bool {
    match command {
        Command::Read(ReadCommand::Search(args)) => !args.pipeline.wanted(),
        Command::Serve(_) | Command::Mcp(_) | Command::Watch(_) | Command::Push(_) | Command::Hub(_) => false,
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
    if let Some(url) = &cli.qdrant_url {
        // The flag is the environment variable, read where the configuration
        // is (every command, and the processes a command starts).
        // SAFETY: no other thread exists yet.
        unsafe { std::env::set_var("KEN_QDRANT_URL", url) };
    }
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
        eprintln!("error: {}", error_text(&err));
        std::process::exit(1);
    }
}

/// An error and its causes on one line.
pub(crate) fn error_text(err: &anyhow::Error) -> String {
    let mut message = err.to_string();
    for cause in err.chain().skip(1) {
        message.push_str(": ");
        message.push_str(&cause.to_string());
    }
    message
}

/// The read command a command line names, for a server answering a client.
pub(crate) fn parse_read_command(args: &[String]) -> Option<ReadCommand> {
    match Cli::try_parse_from(args).ok()?.command {
        Command::Read(command) => Some(command),
        _ => None,
    }
}

fn run(cli: Cli) -> Result<()> {
    let Cli { directory, index_dir, color, hyperlinks, qdrant_url: _, command } = cli;
    // Completions and the manual need no repository, not even a current directory.
    let cwd = || -> Result<PathBuf> {
        match &directory {
            Some(dir) if !dir.is_dir() => bail!("{} is not a directory; pass an existing directory to -C", dir.display()),
            Some(dir) => Ok(dir.canonicalize()?),
            None => std::env::current_dir().context("cannot read the current directory"),
        }
    };
    match command {
        Command::Index(args) => index(&cwd()?, index_dir, args),
        Command::Read(command) => {
            let color = color.for_stdout();
            let context = output::Context { cwd: cwd()?, color, links: hyperlinks.for_stdout(color) };
            read::run(context, index_dir, command)
        }
        Command::Ask(args) => ask::run(&cwd()?, index_dir, color.for_stdout(), args),
        Command::PlanSearch(args) => plan_search::run(&cwd()?, index_dir, args),
        Command::Eval(args) => eval::run(&cwd()?, index_dir, args),
        Command::Impact(args) => impact::run(&cwd()?, index_dir, args),
        Command::Plan(args) => impact::plan(&cwd()?, index_dir, args),
        Command::Serve(args) => serve::serve(&cwd()?, index_dir, args),
        Command::Mcp(args) => serve::mcp(&cwd()?, index_dir, args),
        Command::Push(args) => push::push(&cwd()?, index_dir, args),
        Command::Hub(command) => push::hub(command),
        Command::Watch(args) => serve::watch(&cwd()?, index_dir, args),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut <Cli as clap::CommandFactory>::command(), "ken", &mut std::io::stdout());
            Ok(())
        }
        Command::Man => Ok(clap_mangen::Man::new(<Cli as clap::CommandFactory>::command()).render(&mut std::io::stdout())?),
    }
}

/// The repository holding `dir`: the nearest ancestor with an index or a
/// `.git`, else `dir` itself.
pub(crate) fn repo_root(dir: &Path) -> PathBuf {
    dir.ancestors().find(|a| a.join(".kenning").is_dir() || a.join(".git").exists()).unwrap_or(dir).to_path_buf()
}

/// The index `--from` names: the directory itself, or a repository's `.kenning`.
fn seed_index(dir: &Path) -> Result<PathBuf> {
    if dir.join(ken_store::DB_FILE).is_file() {
        return Ok(dir.to_path_buf());
    }
    let inside = ken_index::default_index_dir(dir);
    if inside.join(ken_store::DB_FILE).is_file() {
        return Ok(inside);
    }
    bail!(
        "--from {}: no Kenning index there (neither {} nor {})",
        dir.display(),
        ken_store::DB_FILE,
        inside.join(ken_store::DB_FILE).display()
    )
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
    opts.include_generated = args.include_generated;
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
    let embed_style = indicatif::ProgressStyle::with_template("{spinner} embedding {msg} {bar:30} {pos}/{len} {elapsed} (eta {eta})")
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    let intent_style = indicatif::ProgressStyle::with_template("{spinner} {msg} {bar:30} {pos}/{len} symbols {elapsed} (eta {eta})")
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
        IndexProgress::Intents(p) => {
            let (message, done, total) = match p {
                IntentProgress::Writing { done, total } => ("writing intents", done, total),
                IntentProgress::Embedding { done, total } => ("embedding intents", done, total),
            };
            bar.set_style(intent_style.clone());
            bar.set_message(message);
            bar.set_length(total);
            bar.set_position(done);
        }
    };
    let index_dir = opts.index_dir.clone();
    let mut options = ken_engine::EngineOptions::new(index_dir.clone());
    options.root = Some(opts.root.clone());
    options.model = args.model.explicit()?;
    // The repository's ken.toml says where vectors go ([vectors]) and which
    // language model writes intents ([llm]).
    options.config = ken_pipeline::PipelineConfig::load(&opts.root).map_err(|e| anyhow::anyhow!("{e}"))?;
    let engine = ken_engine::Engine::open(options)?;
    let seed = match &args.from {
        Some(dir) => Some(seed_index(&cwd.join(dir))?),
        None => None,
    };
    let request = ken_engine::IndexRequest {
        options: opts,
        embed: !args.no_embed,
        model_vectors: true,
        model_batch: None,
        reembed: args.reembed,
        embed_only: args.embed_only,
        seed,
        intents: args.intents,
    };
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
    } else {
        if let Some(summary) = &report.summary {
            print!("{}{}", output::index_summary(summary), output::vector_report(&report.vectors));
        } else if !args.quiet {
            print!("{}", output::vector_report(&report.vectors));
        }
        if let Some(intents) = &report.intents {
            print!("{}", output::intent_report(intents));
        }
    }
    Ok(())
}

/// `--kind` values as symbol kinds.
pub(crate) fn parse_kinds(kinds: &[String]) -> Result<Vec<ken_core::SymbolKind>> {
    kinds.iter().map(|kind| ken_core::SymbolKind::parse_or_list(kind).map_err(anyhow::Error::msg)).collect()
}

/// A `--lang` value (a name or an alias such as `py`) as a language.
pub(crate) fn parse_language(text: &str) -> Result<ken_core::Language> {
    ken_core::Language::from_name_or_list(text).map_err(anyhow::Error::msg)
}
