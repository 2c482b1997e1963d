//! `ken context`: the code a task needs, packed into a token budget, as
//! markdown (default), XML or JSON, ready to paste into a model's prompt.

use crate::output::Output;
use anyhow::{Result, bail};
use clap::Args;
use ken_engine::Engine;
use ken_engine::api::{ContextRequest, TokenizerName};
use std::fmt::Write;

#[derive(Args)]
pub struct ContextArgs {
    /// The task, in words: a request, a bug report, a question.
    #[arg(required = true)]
    task: Vec<String>,
    /// Tokens the pack may take, labels included (256 to 262144).
    #[arg(long, default_value_t = 8192, value_name = "TOKENS")]
    budget: usize,
    /// The tokenizer that counts: o200k (GPT-4o) or cl100k (GPT-4).
    #[arg(long, default_value = "o200k", value_parser = ["o200k", "cl100k"])]
    tokenizer: String,
    /// Definitions to retrieve before packing (1 to 200; default one per 200 tokens of budget, at least 40).
    #[arg(short = 'k', long)]
    k: Option<usize>,
    /// Only files under this path.
    #[arg(long)]
    path: Option<String>,
    #[arg(long, value_parser = ["markdown", "xml", "json"], default_value = "markdown")]
    format: String,
}

pub fn context(engine: &Engine, args: &ContextArgs, out: &mut Output) -> Result<()> {
    let Some(tokenizer) = TokenizerName::parse(&args.tokenizer) else { bail!("unknown tokenizer {}", args.tokenizer) };
    let request = ContextRequest {
        task: args.task.join(" "),
        budget: Some(args.budget),
        tokenizer: Some(tokenizer),
        k: args.k,
        languages: Vec::new(),
        path: args.path.clone(),
    };
    let pack = engine.context(&request)?;
    match args.format.as_str() {
        "json" => writeln!(out.stdout, "{}", serde_json::to_string_pretty(&pack)?)?,
        "xml" => out.stdout.push_str(&pack.to_xml()),
        _ => out.stdout.push_str(&pack.to_markdown()),
    }
    writeln!(
        out.stderr,
        "{} pieces, {} of {} {} tokens; {} candidates left out",
        pack.pieces.len(),
        pack.tokens,
        pack.budget,
        pack.tokenizer.as_str(),
        pack.omitted
    )?;
    for note in &pack.notes {
        writeln!(out.stderr, "note: {note}")?;
    }
    Ok(())
}
