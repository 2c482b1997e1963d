//! `ken graph …`: queries over the dependency graph.

use crate::output::{self, Output};
use anyhow::{Result, bail};
use clap::{Args, Subcommand, ValueEnum};
use ken_graph::{ExportFormat, Graph, Hit, SymbolRef, Traversal};
use ken_store::{Store, SymbolRow};
use serde_json::json;
use std::fmt::Write;
use std::path::Path;

#[derive(Args)]
pub struct GraphArgs {
    #[command(subcommand)]
    command: GraphCommand,
}

/// How a command names a symbol: a qualified name (`requests.api.get`), a
/// plain name if it is unique (`get`), or `PATH:LINE`.
#[derive(Args)]
struct Target {
    /// Qualified name, unique plain name, or PATH:LINE.
    symbol: String,
    #[arg(long)]
    json: bool,
    /// One line per symbol found, from a template: `{site_path}:{site_line}:
    /// {qualified_name}`, or `vimgrep` (the definitions). Fields: path, line,
    /// col, end_line, kind, name, qualified_name, language, signature (the
    /// symbol's), site_path, site_line, site_col (where the relation is
    /// seen), depth, relation, resolution.
    #[arg(long, value_name = "TEMPLATE", conflicts_with = "json")]
    format: Option<String>,
}

/// The fields of a walk's hit: its symbol's, then the relation's.
const HIT_FIELDS: &[&str] = &[
    "path",
    "line",
    "col",
    "end_line",
    "kind",
    "name",
    "qualified_name",
    "language",
    "signature",
    "site_path",
    "site_line",
    "site_col",
    "depth",
    "relation",
    "resolution",
];

fn hit_field(h: &Hit, field: &str) -> String {
    match field {
        "site_path" => h.site.path.clone(),
        "site_line" => h.site.line.to_string(),
        "site_col" => h.site.col.to_string(),
        "depth" => h.depth.to_string(),
        "relation" => h.relation.clone(),
        "resolution" => h.resolution.to_string(),
        _ => output::symbol_field(&h.symbol, field),
    }
}

impl Target {
    fn template(&self) -> Result<Option<output::Template>> {
        self.format.as_deref().map(|f| output::Template::parse(f, HIT_FIELDS)).transpose()
    }
}

#[derive(Args)]
struct Walk {
    #[command(flatten)]
    target: Target,
    /// How many steps to follow.
    #[arg(long, short, default_value_t = 1)]
    depth: u32,
}

#[derive(Subcommand)]
enum GraphCommand {
    /// Functions and methods that call SYMBOL (or instantiate its class).
    Callers(Walk),
    /// Functions, methods and classes SYMBOL calls or instantiates.
    Callees(Walk),
    /// Classes derived from CLASS, transitively.
    Subclasses(Target),
    /// Base classes of CLASS, transitively.
    Superclasses(Target),
    /// Methods METHOD overrides, and methods overriding it.
    Overrides(Target),
    /// Every place SYMBOL is used, labelled with the relation.
    Refs(Target),
    /// How FROM reaches TO through calls, instantiations and uses.
    Path(PathArgs),
    /// Test functions that reach SYMBOL.
    Tests(TestsArgs),
    /// Public functions and methods no test reaches.
    Untested(UntestedArgs),
    /// The graph, or a symbol's neighbourhood, as JSON or Graphviz DOT.
    Export(ExportArgs),
}

#[derive(Args)]
struct TestsArgs {
    #[command(flatten)]
    target: Target,
    /// How many calls away a test may be.
    #[arg(long, short, default_value_t = 8)]
    depth: u32,
}

#[derive(Args)]
struct PathArgs {
    from: String,
    to: String,
    /// Longest chain to look for.
    #[arg(long, default_value_t = 12)]
    max_depth: u32,
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct UntestedArgs {
    /// At most this many results (0: all).
    #[arg(short = 'k', long, default_value_t = 50)]
    limit: usize,
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Json,
    Dot,
}

#[derive(Args)]
struct ExportArgs {
    /// Only this symbol's neighbourhood (default: the whole repository).
    symbol: Option<String>,
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
    /// Steps around SYMBOL to include.
    #[arg(long, short, default_value_t = 2)]
    depth: u32,
}

/// Runs a graph command; `root` (links on) makes sites hyperlinks.
pub fn run(store: &Store, root: Option<&Path>, args: &GraphArgs, out: &mut Output) -> Result<()> {
    let graph = Graph::new(store);
    let resolve = |text: &str| -> Result<SymbolRow> { Ok(graph.resolve(&SymbolRef::parse(text))?) };
    let walk = |t: Traversal, target: &Target, what: &str, out: &mut Output| print_walk(t, target, what, root, out);
    match &args.command {
        GraphCommand::Callers(w) => walk(graph.callers(resolve(&w.target.symbol)?, w.depth)?, &w.target, "callers", out),
        GraphCommand::Callees(w) => walk(graph.callees(resolve(&w.target.symbol)?, w.depth)?, &w.target, "callees", out),
        GraphCommand::Subclasses(t) => {
            let root = resolve(&t.symbol)?;
            require_type(&root, "subclasses")?;
            walk(graph.subclasses(root)?, t, "subclasses", out)
        }
        GraphCommand::Superclasses(t) => {
            let root = resolve(&t.symbol)?;
            require_type(&root, "superclasses")?;
            walk(graph.superclasses(root)?, t, "superclasses", out)
        }
        GraphCommand::Overrides(t) => {
            let root = resolve(&t.symbol)?;
            if !root.kind.is_callable() {
                bail!("{} is a {}; `ken graph overrides` takes a method", root.qualified_name, root.kind);
            }
            let (up, down) = graph.overrides(root)?;
            if let Some(template) = t.template()? {
                up.hits.iter().chain(&down.hits).for_each(|h| out.stdout.push_str(&template.line(|f| hit_field(h, f))));
            } else if t.json {
                writeln!(
                    out.stdout,
                    "{}",
                    serde_json::to_string_pretty(&json!({ "symbol": up.symbol, "overrides": up.hits, "overridden_by": down.hits }))?
                )?;
            } else {
                let mut text = heading(&up.symbol);
                section(&mut text, "overrides", &up.hits);
                section(&mut text, "overridden by", &down.hits);
                out.stdout.push_str(&text);
            }
            Ok(())
        }
        GraphCommand::Refs(t) => walk(graph.refs(resolve(&t.symbol)?)?, t, "references", out),
        GraphCommand::Tests(t) => walk(graph.tests(resolve(&t.target.symbol)?, t.depth)?, &t.target, "tests", out),
        GraphCommand::Path(p) => {
            let (from, to) = (resolve(&p.from)?, resolve(&p.to)?);
            let chain = graph.path(from.clone(), to.clone(), p.max_depth)?;
            if p.json {
                writeln!(out.stdout, "{}", serde_json::to_string_pretty(&json!({ "from": from, "to": to, "path": chain }))?)?;
                return Ok(());
            }
            match chain {
                Some(hops) => {
                    let mut text = heading(&from);
                    for h in &hops {
                        let _ = writeln!(
                            text,
                            "  → {:<15} {}  {}:{}:{}",
                            h.relation, h.symbol.qualified_name, h.site.path, h.site.line, h.site.col
                        );
                    }
                    out.stdout.push_str(&text);
                }
                None => writeln!(
                    out.stdout,
                    "{} does not reach {} within {} steps of calls, instantiations and uses",
                    from.qualified_name, to.qualified_name, p.max_depth
                )?,
            }
            Ok(())
        }
        GraphCommand::Untested(u) => {
            let mut rows = graph.untested()?;
            let total = rows.len();
            if u.limit > 0 {
                rows.truncate(u.limit);
            }
            if u.json {
                writeln!(out.stdout, "{}", serde_json::to_string_pretty(&json!({ "total": total, "symbols": rows }))?)?;
            } else {
                writeln!(out.stdout, "{total} public functions and methods are not reached by any test (most important first):")?;
                for s in &rows {
                    writeln!(out.stdout, "  {:<11} {}  {}:{}", s.kind, s.qualified_name, s.path, s.start_line)?;
                }
            }
            Ok(())
        }
        GraphCommand::Export(e) => {
            let root = e.symbol.as_deref().map(resolve).transpose()?;
            let format = match e.format {
                Format::Json => ExportFormat::Json,
                Format::Dot => ExportFormat::Dot,
            };
            writeln!(out.stdout, "{}", graph.export(root, e.depth, format)?)?;
            Ok(())
        }
    }
}

fn require_type(root: &SymbolRow, command: &str) -> Result<()> {
    if root.kind.is_type() {
        Ok(())
    } else {
        bail!("{} is a {}; `ken graph {command}` takes a class, struct, interface or trait", root.qualified_name, root.kind)
    }
}

fn heading(s: &SymbolRow) -> String {
    format!("{} ({}, {}:{})\n", s.qualified_name, s.kind, s.path, s.start_line)
}

fn section(out: &mut String, title: &str, hits: &[Hit]) {
    let _ = writeln!(out, "  {title}:{}", if hits.is_empty() { " none" } else { "" });
    for h in hits {
        let _ = writeln!(out, "    {}  {}:{}", h.symbol.qualified_name, h.symbol.path, h.symbol.start_line);
    }
}

fn print_walk(t: Traversal, target: &Target, what: &str, root: Option<&Path>, text: &mut Output) -> Result<()> {
    if target.json {
        writeln!(text.stdout, "{}", serde_json::to_string_pretty(&t)?)?;
        return Ok(());
    }
    if let Some(template) = target.template()? {
        t.hits.iter().for_each(|h| text.stdout.push_str(&template.line(|f| hit_field(h, f))));
        return Ok(());
    }
    let out = &mut text.stdout;
    out.push_str(&heading(&t.symbol));
    if t.hits.is_empty() {
        let _ = writeln!(out, "  no {what} found");
    }
    for h in &t.hits {
        let indent = "  ".repeat(h.depth as usize);
        let how = if h.resolution == ken_core::Resolution::Exact { String::new() } else { format!("  [{}]", h.resolution) };
        let site = output::link(&format!("{}:{}:{}", h.site.path, h.site.line, h.site.col), root, &h.site.path);
        let _ = writeln!(out, "{indent}{:<15} {}  {site}{how}", h.relation, h.symbol.qualified_name);
    }
    if t.truncated {
        let _ = writeln!(out, "  … more beyond this depth; pass a larger --depth");
    }
    Ok(())
}
