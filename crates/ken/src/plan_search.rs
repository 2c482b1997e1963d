//! `ken plan-search`: MutaGReP's plan search. Prints the best plan found
//! for a feature request, each step with the symbols that ground it.
//! Runs in this process (the model is loaded here, as for `ken ask`).

use anyhow::Result;
use clap::Args;
use ken_engine::Engine;
use ken_engine::api::{PlanSearchRequest, PlanSearchResponse};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct PlanSearchArgs {
    /// The feature request or change, in words.
    #[arg(required = true)]
    request: Vec<String>,
    /// Symbols grounding each step (1 to 20).
    #[arg(short = 'k', long, default_value_t = 3)]
    k: usize,
    /// Plans expanded after the first (each costs --branching calls of the model).
    #[arg(long, default_value_t = 3, value_name = "N")]
    expansions: usize,
    /// Successors the model proposes per expanded plan (1 to 4).
    #[arg(long, default_value_t = 2, value_name = "N")]
    branching: usize,
    /// Most steps in a plan (1 to 10).
    #[arg(long, default_value_t = 5, value_name = "N")]
    max_steps: usize,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(cwd: &Path, index_dir: Option<PathBuf>, args: PlanSearchArgs) -> Result<()> {
    let mut options = crate::read::engine_options(&crate::read::index_dir_of(cwd, index_dir), cwd)?;
    options.shard_wait = Some(crate::search::reader_wait());
    let engine = Engine::open(options)?;
    let request = PlanSearchRequest {
        request: args.request.join(" "),
        k: Some(args.k),
        expansions: Some(args.expansions),
        branching: Some(args.branching),
        max_steps: Some(args.max_steps),
    };
    let response = engine.plan_search(&request)?;
    crate::output::print_answer(args.json, &response, render, &response.notes)
}

/// The plan as text: each step, its fit, and its symbols with their places.
pub fn render(response: &PlanSearchResponse) -> String {
    let mut out = String::new();
    let plan = &response.plan;
    let _ = writeln!(out, "plan for: {}  (score {:.3}, {} plans explored)", response.request, plan.score, response.explored);
    for (i, step) in plan.steps.iter().enumerate() {
        let _ = writeln!(out, "\n{}. {}  (fit {:.3})", i + 1, step.intent, step.score);
        if step.symbols.is_empty() {
            let _ = writeln!(out, "     nothing in the index");
        }
        for s in &step.symbols {
            let _ = writeln!(out, "     {:.3}  {} {}  {}:{}-{}", s.score, s.kind, s.qualified_name, s.path, s.start_line, s.end_line);
        }
    }
    if let Some(model) = &response.model {
        let _ = writeln!(out, "\nmodel {model}, {:.1}s", response.seconds);
    }
    out
}
