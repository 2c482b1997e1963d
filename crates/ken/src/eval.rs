//! `ken eval`: retrieval quality on the repository's own query sets, per
//! mode, without each lane, and for the ranking configurations given to
//! compare (`Engine::eval`). Runs in this process: the docstring set needs
//! a scratch index beside this one.

use anyhow::Result;
use clap::Args;
use ken_engine::Engine;
use ken_engine::api::{EvalReport, EvalRequest};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct EvalArgs {
    /// Queries per set (1 to 1000): the same sample on every run.
    #[arg(short = 'n', long, default_value_t = 50, value_name = "N")]
    queries: usize,
    /// A ranking configuration to run beside the defaults, as `key = value,
    /// …` over `[search.ranking]`'s settings: `--compare 'rrf_k = 30'
    /// --compare 'file_boost = 0.5, prose_weights = [3, 1, 1]'`.
    #[arg(long, value_name = "SETTINGS")]
    compare: Vec<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(cwd: &Path, index_dir: Option<PathBuf>, args: EvalArgs) -> Result<()> {
    let mut options = crate::read::engine_options(&crate::read::index_dir_of(cwd, index_dir), cwd)?;
    options.shard_wait = Some(crate::search::reader_wait());
    let engine = Engine::open(options)?;
    let report = engine.eval(&EvalRequest { queries: Some(args.queries), compare: args.compare })?;
    crate::output::print_answer(args.json, &report, render, &report.notes)
}

/// A table per set: each system's MRR@10, Recall@10 and latency.
pub fn render(report: &EvalReport) -> String {
    let mut out = String::new();
    for set in &report.sets {
        let _ = writeln!(out, "{} ({} queries)", set.name, set.queries);
        let _ = writeln!(out, "  {:<44} {:>7} {:>10} {:>8} {:>8}", "system", "MRR@10", "Recall@10", "p50 ms", "p95 ms");
        for row in &set.rows {
            let _ = writeln!(
                out,
                "  {:<44} {:>7.3} {:>10.3} {:>8.1} {:>8.1}",
                row.system, row.mrr_at_10, row.recall_at_10, row.p50_ms, row.p95_ms
            );
        }
        out.push('\n');
    }
    let _ = writeln!(out, "{:.1} s in all", report.seconds);
    out
}
