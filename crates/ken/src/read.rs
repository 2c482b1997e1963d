//! The read commands (`search`, `symbols`, `outline`, `graph`, `status`).
//! Each runs against an [`Engine`] and collects what it prints in an
//! [`Output`], so the same code answers in this process or in a `ken serve`
//! or `ken mcp` that holds the index (`local.rs`): the bytes are the same.

use crate::local::{Answer, Ask};
use crate::output::{self, Context, Output};
use crate::{graph, locate, search};
use anyhow::{Result, bail};
use clap::{Args, Subcommand};
use ken_engine::{Engine, EngineOptions};
use ken_store::{SymbolQuery, SymbolRow};
use std::fmt::Write;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct SymbolsArgs {
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
    /// One line per symbol from a template: `{path}:{line}: {name}`, or
    /// `vimgrep`. Fields: path, line, col, end_line, kind, name,
    /// qualified_name, language, signature.
    #[arg(long, value_name = "TEMPLATE", conflicts_with = "json")]
    format: Option<String>,
}

#[derive(Args)]
pub struct OutlineArgs {
    /// File path, relative to the current directory or the repository root.
    file: PathBuf,
    #[arg(long)]
    json: bool,
}

/// The commands that only read the index: a server holding it can answer them.
// Parsed once per process: boxing the big variant would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
pub enum ReadCommand {
    /// Find symbols by exact or partial name (case-insensitive, exact first).
    Symbols(SymbolsArgs),
    /// Show the symbol tree of a file.
    Outline(OutlineArgs),
    /// Query the dependency graph: callers, callees, class hierarchy, tests…
    Graph(graph::GraphArgs),
    /// Search code: natural language, names, or both (dense + BM25 + exact names).
    Search(search::SearchArgs),
    /// Find the files and functions a bug report is about: paste the whole
    /// report (title, prose, stack traces, code), as an argument or on stdin.
    Locate(locate::LocateArgs),
    /// The code a task needs within a token budget: the most relevant
    /// definitions whole, their callers', callees' and bases' signatures, and
    /// their files' imports, labelled `path:start-end` (markdown, XML or JSON).
    Context(crate::pack::ContextArgs),
    /// A repository map: the most important definitions' signatures, nested
    /// by class, ranked by PageRank (personalised to the paths or symbols
    /// given), within a token budget.
    Map(crate::pack::MapArgs),
    /// Show what the index holds and how far embedding got.
    Status {
        #[arg(long)]
        json: bool,
    },
}

/// Runs a read command: by the server that holds the index when one is up
/// and can answer it, else here. Prints the output and fails with its error.
pub fn run(context: Context, index_dir: Option<PathBuf>, mut command: ReadCommand) -> Result<()> {
    let cwd = context.cwd.as_path();
    if let ReadCommand::Search(args) = &command
        && let Some(hub) = &args.hub
    {
        return search::on_hub(args, hub);
    }
    let dir = index_dir_of(cwd, index_dir);
    if let ReadCommand::Search(args) = &command
        && !dir.join(ken_store::DB_FILE).is_file()
    {
        search::check(args)?;
        search::first_index(cwd, &dir, &args.model)?;
    }
    let model = match &command {
        ReadCommand::Search(args) => args.model.explicit()?.map(|(_, text)| text),
        _ => None,
    };
    // The client reads the report: the server has another stdin and cwd.
    let input = match &mut command {
        ReadCommand::Locate(args) => {
            args.read_report(&context)?;
            args.text.clone()
        }
        _ => None,
    };
    let output = match crate::local::ask(&dir, &context, model, input) {
        Some(output) => output,
        None => here(&dir, &context, command)?,
    };
    print!("{}", output.stdout);
    eprint!("{}", output.stderr);
    match output.error {
        Some(error) => bail!(error),
        None => Ok(()),
    }
}

/// Opens the index in this process and runs the command.
fn here(dir: &Path, context: &Context, command: ReadCommand) -> Result<Output> {
    let mut options = engine_options(dir, &context.cwd)?;
    if let ReadCommand::Search(args) = &command {
        options.model = args.model.explicit()?;
        options.shard_wait = Some(search::reader_wait());
        if args.pipeline.wanted() {
            // `--expansion lsp` starts language servers: they need a runtime.
            return search::pipeline_here(options, context, args);
        }
    }
    let engine = Engine::open(options)?;
    let mut out = Output::default();
    if let Err(e) = execute(&engine, context, &command, &mut out) {
        out.error = Some(crate::error_text(&e));
    }
    Ok(out)
}

/// The index a command means: `--index-dir`, else the repository's.
pub fn index_dir_of(cwd: &Path, index_dir: Option<PathBuf>) -> PathBuf {
    match index_dir {
        Some(d) => cwd.join(d),
        None => ken_index::default_index_dir(&crate::repo_root(cwd)),
    }
}

/// How to open an existing index in this process: with the configuration
/// of the repository it was built from (ken.toml's `[search.ranking]`,
/// `[llm]`…, as a server reads it).
pub fn engine_options(dir: &Path, cwd: &Path) -> Result<EngineOptions> {
    if !dir.join(ken_store::DB_FILE).is_file() {
        let root = crate::repo_root(cwd);
        if ken_index::default_index_dir(&root) == dir {
            bail!("no index found for {}; run `ken index` there first (or pass --index-dir)", root.display());
        }
        bail!("no index in {}; run `ken index` in the repository first (or pass --index-dir)", dir.display());
    }
    let root = ken_store::Store::open_read_only(dir)?.meta("root")?.map(PathBuf::from).unwrap_or_else(|| crate::repo_root(cwd));
    let mut options = EngineOptions::new(dir.to_path_buf());
    options.config = ken_pipeline::PipelineConfig::load(&root).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(options)
}

/// Runs a read command against an engine, in this process or a server's.
pub fn execute(engine: &Engine, context: &Context, command: &ReadCommand, out: &mut Output) -> Result<()> {
    match command {
        ReadCommand::Search(args) => search::search(engine, context, args, out),
        ReadCommand::Locate(args) => locate::locate(engine, args, out),
        ReadCommand::Context(args) => crate::pack::context(engine, args, out),
        ReadCommand::Map(args) => crate::pack::map(engine, context, args, out),
        ReadCommand::Symbols(args) => symbols(engine, context, args, out),
        ReadCommand::Outline(args) => outline(engine, context, args, out),
        ReadCommand::Graph(args) => graph::run(&engine.store()?, context.links.then(|| engine.root()), args, out),
        ReadCommand::Status { json } => status(engine, *json, out),
    }
}

fn symbols(engine: &Engine, context: &Context, args: &SymbolsArgs, out: &mut Output) -> Result<()> {
    let template = args.format.as_deref().map(|f| output::Template::parse(f, output::SYMBOL_FIELDS)).transpose()?;
    let kinds = crate::parse_kinds(&args.kind)?;
    let language = args.lang.as_deref().map(crate::parse_language).transpose()?;
    let store = engine.store()?;
    let name = args.name.clone().unwrap_or_default();
    let rows = if args.rank {
        let mut rows: Vec<(SymbolRow, f64)> = match &args.name {
            Some(name) => store
                .find_symbols(&SymbolQuery { text: name.clone(), kinds: kinds.clone(), language, limit: 0 })?
                .into_iter()
                .map(|s| {
                    let importance = store.metrics(s.id).ok().flatten().map_or(0.0, |m| m.importance);
                    (s, importance)
                })
                .collect(),
            None => ken_graph::Graph::new(&store)
                .ranked(if args.limit == 0 { usize::MAX } else { args.limit }, |kind, lang| {
                    (kinds.is_empty() || kinds.contains(&kind)) && language.is_none_or(|l| lang == l)
                })?
                .into_iter()
                .map(|(s, m)| (s, m.importance))
                .collect(),
        };
        rows.sort_by(|a, b| b.1.total_cmp(&a.1));
        rows.truncate(if args.limit == 0 { usize::MAX } else { args.limit });
        rows.into_iter().map(|(s, _)| s).collect()
    } else {
        store.find_symbols(&SymbolQuery { text: name.clone(), kinds, language, limit: args.limit })?
    };
    if args.json {
        writeln!(out.stdout, "{}", serde_json::to_string_pretty(&rows)?)?;
    } else if rows.is_empty() {
        writeln!(out.stderr, "no symbol matches `{name}`")?;
    } else if let Some(template) = template {
        rows.iter().for_each(|r| out.stdout.push_str(&template.line(|f| output::symbol_field(r, f))));
    } else {
        out.stdout.push_str(&output::symbol_list(&rows, context.links.then(|| engine.root())));
    }
    Ok(())
}

fn outline(engine: &Engine, context: &Context, args: &OutlineArgs, out: &mut Output) -> Result<()> {
    let store = engine.store()?;
    let root = engine.root();
    let typed = context.cwd.join(&args.file);
    let mut candidates: Vec<String> = Vec::new();
    if let Ok(abs) = typed.canonicalize()
        && let Ok(rel) = abs.strip_prefix(root)
    {
        candidates.push(rel.to_string_lossy().replace('\\', "/"));
    }
    let as_given = args.file.to_string_lossy().replace('\\', "/");
    candidates.push(as_given.trim_start_matches("./").to_string());
    let mut print = |path: &str, rows: &[SymbolRow]| -> Result<()> {
        if args.json {
            writeln!(out.stdout, "{}", serde_json::to_string_pretty(&output::outline_json(path, rows))?)?;
        } else {
            out.stdout.push_str(&output::outline_text(path, rows));
        }
        Ok(())
    };
    for path in &candidates {
        if let Some(rows) = store.outline(path)? {
            return print(path, &rows);
        }
    }
    let similar = store.paths_ending_with(candidates.last().map(String::as_str).unwrap_or_default())?;
    match similar.as_slice() {
        [only] => print(only, &store.outline(only)?.unwrap_or_default()),
        [] => bail!("{} is not in the index; check the path, or run `ken index` if the file is new", args.file.display()),
        many => bail!("{} matches several indexed files: {}; give more of the path", args.file.display(), many.join(", ")),
    }
}

/// `ken status`: what the index holds, how far embedding got, and whether
/// a server holding it is reindexing.
fn status(engine: &Engine, json: bool, out: &mut Output) -> Result<()> {
    let status = engine.status()?;
    if json {
        writeln!(out.stdout, "{}", serde_json::to_string_pretty(&status)?)?;
        return Ok(());
    }
    let (stats, progress) = (&status.stats, &status.embeddings);
    writeln!(out.stdout, "index       {}", status.index_dir)?;
    writeln!(out.stdout, "files       {}   symbols {}   chunks {}", stats.files, stats.symbols, stats.chunks)?;
    let pct = |a: u64, b: u64| (a * 100).checked_div(b).unwrap_or(100);
    writeln!(
        out.stdout,
        "embeddings  symbols {}/{} ({}%), chunks {}/{} ({}%){}",
        progress.symbols_embedded,
        progress.symbols,
        pct(progress.symbols_embedded, progress.symbols),
        progress.chunks_embedded,
        progress.chunks,
        pct(progress.chunks_embedded, progress.chunks),
        if progress.files_unsynced > 0 { format!("; {} files waiting for `ken index`", progress.files_unsynced) } else { String::new() }
    )?;
    writeln!(out.stdout, "model       {}", status.model.as_deref().unwrap_or("none yet"))?;
    if status.intents.intents > 0 {
        writeln!(out.stdout, "intents     {} for {} symbols", status.intents.intents, status.intents.symbols)?;
    }
    if status.reindexing {
        writeln!(out.stdout, "reindexing  yes (searches read the last committed state)")?;
    }
    Ok(())
}

/// Runs a client's command on this server's engine, or says why not.
pub fn answer(engine: &Engine, ask: Ask) -> Answer {
    if ask.version != env!("CARGO_PKG_VERSION") {
        return Answer::Declined(format!("this server runs ken {}, the client {}", env!("CARGO_PKG_VERSION"), ask.version));
    }
    let mut command = match crate::parse_read_command(&ask.args) {
        Some(command) => command,
        None => return Answer::Declined("not a read command".into()),
    };
    if let ReadCommand::Locate(args) = &mut command {
        match ask.input {
            Some(text) => args.text = Some(text),
            None => return Answer::Declined("the client sent no report".into()),
        }
    }
    if let ReadCommand::Search(args) = &command {
        if ask.model.is_some() && ask.model.as_deref() != engine.model_text() {
            return Answer::Declined("the client asks for another embedding model".into());
        }
        let wants_lsp = match &args.pipeline.expansion {
            Some(e) => e == "lsp",
            None => args.pipeline.wanted() && engine.config.expansion == ken_pipeline::Expansion::Lsp,
        };
        if wants_lsp && engine.lsp().is_none() {
            return Answer::Declined("this server has no language servers (start it with --lsp)".into());
        }
    }
    let mut output = Output::default();
    if let Err(e) = execute(engine, &ask.context, &command, &mut output) {
        output.error = Some(crate::error_text(&e));
    }
    Answer::Done(output)
}
