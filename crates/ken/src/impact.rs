//! `ken impact`: CodePlan's change classification and may-impact analysis
//! on the command line. Prints the atomic changes of the working tree (or
//! the staged files, or named files), then the blocks that may have to
//! change with them, each with the rule that reaches it.

use anyhow::{Context as _, Result};
use clap::Args;
use ken_engine::Engine;
use ken_engine::api::{EditorKind, ExecuteRequest, ExecuteResponse, ImpactRequest, ImpactResponse, PlanGraph, PlanRequest, Strategy};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct ImpactArgs {
    /// Only these files or directories. Outside git (and without --diff),
    /// each file is compared with its indexed version.
    files: Vec<PathBuf>,
    /// Compare the working tree with this revision (a commit, branch or tag).
    #[arg(long, value_name = "REV", conflicts_with = "staged")]
    diff: Option<String>,
    /// Compare the staged files with HEAD.
    #[arg(long)]
    staged: bool,
    /// Compare the working tree with HEAD (the default).
    #[arg(long, conflicts_with_all = ["diff", "staged"])]
    worktree: bool,
    /// Follow each relation this many steps (1 to 8).
    #[arg(long, default_value_t = 1, value_name = "N")]
    depth: u32,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(cwd: &Path, index_dir: Option<PathBuf>, args: ImpactArgs) -> Result<()> {
    let options = crate::read::engine_options(&crate::read::index_dir_of(cwd, index_dir), cwd)?;
    let engine = Engine::open(options)?;
    let root = engine.root().canonicalize().unwrap_or_else(|_| engine.root().to_path_buf());
    let mut paths = Vec::new();
    for file in &args.files {
        let full = cwd.join(file);
        // A deleted file has no canonical path: its directory does.
        let full = match (full.canonicalize(), full.parent().and_then(|d| d.canonicalize().ok()), full.file_name()) {
            (Ok(p), _, _) => p,
            (Err(_), Some(dir), Some(name)) => dir.join(name),
            _ => full,
        };
        let relative =
            full.strip_prefix(&root).with_context(|| format!("{} is outside the indexed repository {}", file.display(), root.display()))?;
        paths.push(relative.to_string_lossy().replace('\\', "/"));
    }
    let request = ImpactRequest { rev: args.diff.clone(), staged: args.staged, paths, depth: Some(args.depth), files: Vec::new() };
    let response = engine.impact(&request)?;
    crate::output::print_answer(args.json, &response, render, &response.notes)
}

/// The changes, then the impacted blocks with their reasons.
pub fn render(response: &ImpactResponse) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} changes in {} files (against {})", response.changes.len(), response.files.len(), response.base);
    for c in &response.changes {
        let change = &c.change;
        let line = change.after.or(change.before).map_or(0, |r| r.start);
        let rules = if c.rules.is_empty() { "Nil".to_string() } else { c.rules.join(", ") };
        let _ = writeln!(out, "  {}:{}  {:<3}  {}  ({}; {})", c.path, line, change.label, change.symbol, change.label.describe(), rules);
        for e in &change.escaping {
            let what = if e.name.is_empty() { format!("{:?}", e.kind) } else { format!("{:?} {}", e.kind, e.name) };
            let _ = writeln!(out, "        modifies {} (line {})", what.to_lowercase(), e.line);
        }
    }
    let _ = writeln!(out, "{} blocks may be impacted", response.impacted.len());
    for block in &response.impacted {
        let s = &block.symbol;
        let changed = if block.changed { "  [changed]" } else { "" };
        let _ = writeln!(out, "  {}:{}-{}  {} {}{changed}", s.path, s.start_line, s.end_line, s.kind, s.qualified_name);
        for r in &block.reasons {
            let depth = if r.depth > 1 { format!(", {} steps", r.depth) } else { String::new() };
            let sites: Vec<String> = r.sites.iter().map(|s| format!("{}:{}", s.path, s.line)).collect();
            let _ = writeln!(out, "      {} of {} {} (at {}{depth})", r.rule, r.label, r.cause, sites.join(", "));
        }
    }
    out
}

#[derive(Args)]
pub struct PlanArgs {
    /// What to change, in words.
    #[arg(required = true)]
    instruction: Vec<String>,
    /// A block to edit: qualified name, unique plain name, or PATH:LINE (repeatable).
    #[arg(long = "seed", value_name = "SYMBOL")]
    seeds: Vec<String>,
    /// The kind of change the seeds will get (MMS, MMB, DM, MF, …), so
    /// their derived obligations are planned before the edit.
    #[arg(long, value_name = "LABEL")]
    assume: Option<String>,
    /// Seed with the edits already made: the working tree against HEAD (or --diff REV, or --staged).
    #[arg(long)]
    seed_diff: bool,
    /// With --seed-diff: compare against this revision.
    #[arg(long, value_name = "REV", requires = "seed_diff")]
    diff: Option<String>,
    /// With --seed-diff: the staged files.
    #[arg(long, requires = "seed_diff")]
    staged: bool,
    /// Follow each relation this many steps (1 to 8).
    #[arg(long, default_value_t = 1, value_name = "N")]
    depth: u32,
    #[arg(long, value_parser = ["text", "json", "dot"], default_value = "text")]
    format: String,
    /// Carry the plan out (CodePlan's adaptive loop) in a scratch copy and print the patch.
    #[arg(long)]
    execute: bool,
    /// With --execute: who edits each block.
    #[arg(long, value_parser = ["structural", "llm"], default_value = "structural", requires = "execute")]
    editor: String,
    /// With --execute: the oracle, by name (pyright, tsc, cargo, go, mypy) or as a command run by `sh -c`.
    #[arg(long, value_name = "ORACLE", requires = "execute")]
    oracle: Option<String>,
    /// With --execute: repair rounds after the first oracle run (0 to 10).
    #[arg(long, default_value_t = 3, value_name = "N", requires = "execute")]
    rounds: u32,
    /// With --execute: `repair` edits only what the oracle reports (no plan).
    #[arg(long, value_parser = ["plan", "repair"], default_value = "plan", requires = "execute")]
    strategy: String,
    /// With --execute: most block edits (1 to 1000).
    #[arg(long, default_value_t = 200, value_name = "N", requires = "execute")]
    max_edits: u32,
    /// With --execute: write the patch to the files (only where they are unchanged meanwhile).
    #[arg(long, requires = "execute")]
    apply: bool,
}

pub fn plan(cwd: &Path, index_dir: Option<PathBuf>, args: PlanArgs) -> Result<()> {
    let options = crate::read::engine_options(&crate::read::index_dir_of(cwd, index_dir), cwd)?;
    let engine = Engine::open(options)?;
    let seed_diff = args.seed_diff.then(|| ImpactRequest { rev: args.diff.clone(), staged: args.staged, ..Default::default() });
    let request = PlanRequest {
        instruction: args.instruction.join(" "),
        seeds: args.seeds.clone(),
        assume: args.assume.clone(),
        seed_diff,
        depth: Some(args.depth),
    };
    if args.execute {
        return execute(&engine, request, &args);
    }
    let graph = engine.plan(&request)?;
    match args.format.as_str() {
        "json" => println!("{}", serde_json::to_string_pretty(&graph)?),
        "dot" => print!("{}", graph.to_dot()),
        _ => print!("{}", render_plan(&graph)),
    }
    for note in &graph.notes {
        eprintln!("note: {note}");
    }
    Ok(())
}

fn execute(engine: &Engine, plan: PlanRequest, args: &PlanArgs) -> Result<()> {
    let named = args.oracle.as_deref().filter(|o| ken_engine::api::ORACLES.contains(o));
    let request = ExecuteRequest {
        plan,
        editor: if args.editor == "llm" { EditorKind::Llm } else { EditorKind::Structural },
        strategy: if args.strategy == "repair" { Strategy::Repair } else { Strategy::Plan },
        oracle: named.map(str::to_string),
        oracle_command: if named.is_none() { args.oracle.clone() } else { None },
        rounds: Some(args.rounds),
        max_edits: Some(args.max_edits),
        apply: args.apply,
    };
    let response = engine.execute(&request)?;
    match args.format.as_str() {
        "json" => println!("{}", serde_json::to_string_pretty(&response)?),
        "dot" => print!("{}", response.plan.to_dot()),
        _ => print!("{}", render_execution(&response)),
    }
    for note in &response.notes {
        eprintln!("note: {note}");
    }
    if let Some(log) = &response.log {
        eprintln!("log: {log}");
    }
    Ok(())
}

/// The plan as carried out, the oracle rounds, then the patch.
pub fn render_execution(response: &ExecuteResponse) -> String {
    let mut out = render_plan(&response.plan);
    for r in &response.rounds {
        let _ = writeln!(out, "oracle round {}: {} new error(s) from `{}`", r.round, r.errors, r.command);
        for d in r.diagnostics.iter().take(10) {
            let message = d.message.split_whitespace().collect::<Vec<_>>().join(" ");
            let _ = writeln!(out, "  {}:{}: {message}", d.path, d.line);
        }
    }
    let verdict = match response.passed {
        Some(true) => "the oracle passes",
        Some(false) => "the oracle still fails",
        None => "unchecked (no oracle)",
    };
    let applied = if response.applied { "applied" } else { "not applied (--apply writes it)" };
    let _ = writeln!(out, "{} edit(s) in {} file(s), {verdict}; patch {applied}", response.edits.len(), response.files.len());
    if !response.patch.is_empty() {
        out.push('\n');
        out.push_str(&response.patch);
    }
    out
}

/// Nodes in plan order with their status and instruction, then the edges.
pub fn render_plan(graph: &PlanGraph) -> String {
    let mut out = String::new();
    for n in &graph.nodes {
        let status = n.status.name();
        let seed = if n.seed { " (seed)" } else { "" };
        let b = &n.block;
        let _ = writeln!(out, "{}  [{status}]{seed}  {}:{}-{}  {} {}", n.id, b.path, b.start_line, b.end_line, b.kind, b.qualified_name);
        let _ = writeln!(out, "       {}", n.instruction);
        if let Some(note) = &n.note {
            let _ = writeln!(out, "       ({note})");
        }
    }
    for e in &graph.edges {
        let _ = writeln!(out, "  {} -> {}  {} {}", e.from, e.to, e.label, e.rule);
    }
    out
}
