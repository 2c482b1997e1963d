//! `ken context`: the code a task needs, packed into a token budget, as
//! markdown (default), XML or JSON, ready to paste into a model's prompt;
//! `ken map`: the repository's most important signatures within a budget.

use crate::output::Context;
use crate::output::Output;
use anyhow::{Result, bail};
use clap::Args;
use ken_engine::Engine;
use ken_engine::api::{ContextRequest, MapRequest, TokenizerName};
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

#[derive(Args)]
pub struct MapArgs {
    /// Files, directories or symbol names to centre the map on (PageRank
    /// personalised to them); none: the whole repository by importance.
    focus: Vec<String>,
    /// Tokens the map may take (64 to 262144).
    #[arg(long, default_value_t = 2048, value_name = "TOKENS")]
    budget: usize,
    /// The tokenizer that counts: o200k (GPT-4o) or cl100k (GPT-4).
    #[arg(long, default_value = "o200k", value_parser = ["o200k", "cl100k"])]
    tokenizer: String,
    /// Keep test code (left out by default).
    #[arg(long)]
    tests: bool,
    #[arg(long)]
    json: bool,
}

pub fn map(engine: &Engine, context: &Context, args: &MapArgs, out: &mut Output) -> Result<()> {
    let Some(tokenizer) = TokenizerName::parse(&args.tokenizer) else { bail!("unknown tokenizer {}", args.tokenizer) };
    let focus = args.focus.iter().map(|f| repo_relative(engine, context, f)).collect();
    let request = MapRequest { focus, budget: Some(args.budget), tokenizer: Some(tokenizer), tests: args.tests };
    let map = engine.map(&request)?;
    if args.json {
        writeln!(out.stdout, "{}", serde_json::to_string_pretty(&map)?)?;
    } else {
        out.stdout.push_str(&map.to_text());
    }
    writeln!(
        out.stderr,
        "{} of {} definitions in {} files, {} of {} {} tokens",
        map.shown,
        map.ranked,
        map.files.len(),
        map.tokens,
        map.budget,
        map.tokenizer.as_str()
    )?;
    for note in &map.notes {
        writeln!(out.stderr, "note: {note}")?;
    }
    Ok(())
}

/// A path typed relative to the current directory, as the index spells it;
/// anything else (a symbol's name) as given.
fn repo_relative(engine: &Engine, context: &Context, item: &str) -> String {
    match context.cwd.join(item).canonicalize() {
        Ok(abs) => match abs.strip_prefix(engine.root()) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
            Err(_) => item.to_string(),
        },
        Err(_) => item.to_string(),
    }
}
