//! `ken locate`: a bug report in (argument, `--file` or stdin), the files
//! and functions to change out, with the evidence for each.

use crate::output::{Context, Output};
use anyhow::{Context as _, Result, bail};
use clap::Args;
use ken_engine::Engine;
use ken_engine::api::{LocateRequest, LocateRerank};
use ken_search::{Evidence, LocateResponse};
use std::fmt::Write;
use std::io::Read;
use std::path::PathBuf;

#[derive(Args)]
pub struct LocateArgs {
    /// The report: title, description, stack traces, code. Read from
    /// stdin when absent or `-`.
    report: Vec<String>,
    /// Read the report from this file.
    #[arg(long, value_name = "FILE", conflicts_with = "report")]
    file: Option<PathBuf>,
    /// Files to return (1 to 100).
    #[arg(short = 'k', long, default_value_t = 10)]
    k: usize,
    /// Functions and classes to show per file (0 to 50).
    #[arg(long, default_value_t = 5, value_name = "N")]
    symbols: usize,
    /// Lane weights and priors over the defaults, as JSON (any of them).
    #[arg(long, value_name = "JSON", long_help = weights_help())]
    weights: Option<String>,
    /// `llm`: the language model (`[llm]` in ken.toml, `KEN_LLM_*`, else
    /// the local one) reorders the top 10 files.
    #[arg(long, value_name = "HOW", value_parser = ["none", "llm"])]
    rerank: Option<String>,
    /// Also each lane's ranking and each file's prior (with `--json`: the
    /// `explain` object), to see why a file ranks where it does.
    #[arg(long)]
    explain: bool,
    #[arg(long)]
    json: bool,
    /// The report's text once read (by the client: a server that answers
    /// for it reads neither its stdin nor its files).
    #[arg(skip)]
    pub text: Option<String>,
}

impl LocateArgs {
    /// Reads the report from where the user put it, once.
    pub fn read_report(&mut self, context: &Context) -> Result<()> {
        if self.text.is_some() {
            return Ok(());
        }
        let text = match &self.file {
            Some(path) => {
                let path = context.cwd.join(path);
                std::fs::read(&path)
                    .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                    .with_context(|| format!("cannot read the report from {}", path.display()))?
            }
            None if self.report.is_empty() || self.report == ["-"] => {
                if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
                    bail!("give the report as an argument, with --file, or on stdin (`ken locate < report.txt`)");
                }
                let mut bytes = Vec::new();
                std::io::stdin().read_to_end(&mut bytes).context("cannot read the report from stdin")?;
                String::from_utf8_lossy(&bytes).into_owned()
            }
            None => self.report.join(" "),
        };
        self.text = Some(text);
        Ok(())
    }
}

/// `--weights`' long help, with the defaults as they are.
fn weights_help() -> String {
    let defaults = serde_json::to_string(&ken_search::LocateWeights::default()).unwrap_or_default();
    format!("Lane weights and priors over the defaults, as JSON (any of them). The defaults:\n{defaults}")
}

pub fn locate(engine: &Engine, args: &LocateArgs, out: &mut Output) -> Result<()> {
    let Some(report) = args.text.clone() else { bail!("the report was not read") };
    let weights = match &args.weights {
        Some(text) => Some(serde_json::from_str(text).map_err(|e| anyhow::anyhow!("--weights is not valid: {e}"))?),
        None => None,
    };
    let rerank = args.rerank.as_deref().map(|how| if how == "llm" { LocateRerank::Llm } else { LocateRerank::None });
    let request = LocateRequest { report, k: Some(args.k), symbols: Some(args.symbols), weights, rerank, explain: args.explain };
    let response = engine.locate(&request)?;
    if args.json {
        writeln!(out.stdout, "{}", serde_json::to_string_pretty(&response)?)?;
    } else {
        out.stdout.push_str(&text(&response));
    }
    for note in &response.notes {
        writeln!(out.stderr, "note: {note}")?;
    }
    Ok(())
}

/// How many of the list across files the text shows (the JSON has all).
const FUNCTIONS_SHOWN: usize = 10;

/// Files with their evidence, and under each its likeliest symbols; then
/// the likeliest symbols across files.
fn text(response: &LocateResponse) -> String {
    let mut out = String::new();
    if response.files.is_empty() {
        out.push_str("no file matches the report\n");
        return out;
    }
    for (i, file) in response.files.iter().enumerate() {
        let _ = writeln!(out, "{:>2}. {}  {:.3}", i + 1, file.path, file.score);
        let _ = writeln!(out, "      {}", evidence_line(&file.evidence));
        for s in &file.symbols {
            let _ = writeln!(
                out,
                "      {}:{}-{}  {} {}  ({})",
                file.path,
                s.start_line,
                s.end_line,
                s.kind.as_str(),
                s.qualified_name,
                evidence_line(&s.evidence)
            );
        }
    }
    if !response.functions.is_empty() {
        let _ = writeln!(out, "functions across these files, best first:");
        for (i, f) in response.functions.iter().take(FUNCTIONS_SHOWN).enumerate() {
            let _ = writeln!(out, "{:>2}. {}:{}-{}  {} {}", i + 1, f.path, f.start_line, f.end_line, f.kind.as_str(), f.qualified_name);
        }
    }
    let e = &response.evidence;
    let _ = writeln!(
        out,
        "read {} frames ({} in this repository), {} paths, {} names, {} phrases, {} terms",
        e.frames, e.frames_in_repo, e.paths, e.names, e.phrases, e.terms
    );
    if let Some(explain) = &response.explain {
        let _ = writeln!(out, "lanes (a file scores weight / ({} + rank), times its prior):", explain.rrf_k);
        for lane in explain.lanes.iter().filter(|l| !l.files.is_empty()) {
            let shown: Vec<&str> = lane.files.iter().take(5).map(String::as_str).collect();
            let more = lane.files.len().saturating_sub(shown.len());
            let more = if more > 0 { format!(" and {more} more") } else { String::new() };
            let _ = writeln!(out, "  {} (weight {}): {}{more}", lane.lane, lane.weight, shown.join(", "));
        }
    }
    out
}

fn evidence_line(evidence: &[Evidence]) -> String {
    evidence.iter().map(|e| e.detail.as_str()).collect::<Vec<_>>().join(" · ")
}
