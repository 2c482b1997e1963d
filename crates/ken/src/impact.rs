//! `ken impact`: CodePlan's change classification and may-impact analysis
//! on the command line. Prints the atomic changes of the working tree (or
//! the staged files, or named files), then the blocks that may have to
//! change with them, each with the rule that reaches it.

use anyhow::{Context as _, Result};
use clap::Args;
use ken_engine::Engine;
use ken_engine::api::{ImpactRequest, ImpactResponse};
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
    if args.json {
        println!("{}", serde_json::to_string_pretty(&response)?);
    } else {
        print!("{}", render(&response));
        for note in &response.notes {
            eprintln!("note: {note}");
        }
    }
    Ok(())
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
            let _ = writeln!(out, "      {} of {} {} (at {}:{}{depth})", r.rule, r.label, r.cause, r.site.path, r.site.line);
        }
    }
    out
}
