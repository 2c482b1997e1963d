//! `ken ask`: a question answered by the language model from the indexed
//! code, streamed to the terminal with its citations checked, then the
//! code it read. Runs in this process (the answer streams as it is made).

use crate::output::Context;
use anyhow::Result;
use clap::Args;
use ken_engine::Engine;
use ken_engine::api::{AskRequest, AskResponse, AskRetrieval};
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct AskArgs {
    /// The question, in any words.
    #[arg(required = true)]
    question: Vec<String>,
    /// Code units to retrieve before merging (1 to 100).
    #[arg(short = 'k', long, default_value_t = 16)]
    k: usize,
    /// Retrieve with the five-stage pipeline (seeds and their graph
    /// neighbourhood) instead of hybrid search.
    #[arg(long)]
    pipeline: bool,
    /// Tokens of code to put in the prompt (default: what the model holds).
    #[arg(long, value_name = "TOKENS")]
    budget: Option<usize>,
    /// Longest answer in tokens.
    #[arg(long, value_name = "TOKENS")]
    max_tokens: Option<usize>,
    /// Only these languages; repeatable.
    #[arg(long)]
    lang: Vec<String>,
    /// Only files matching this glob.
    #[arg(long)]
    path: Option<String>,
    /// `dsl`: retrieve with the query DSL (English, original wording, HyDE);
    /// `keywords`: with the model's keywords searched by BM25 beside it.
    #[arg(long, value_name = "HOW", value_parser = ["none", "dsl", "keywords"])]
    expand: Option<String>,
    /// Print the whole answer as JSON once it is complete.
    #[arg(long)]
    json: bool,
}

pub fn run(cwd: &Path, index_dir: Option<PathBuf>, color: bool, args: AskArgs) -> Result<()> {
    let mut options = crate::read::engine_options(&crate::read::index_dir_of(cwd, index_dir), cwd)?;
    options.shard_wait = Some(crate::search::reader_wait());
    let engine = Engine::open(options)?;
    let request = AskRequest {
        question: args.question.join(" "),
        k: Some(args.k),
        retrieval: Some(if args.pipeline { AskRetrieval::Pipeline } else { AskRetrieval::Hybrid }),
        budget_tokens: args.budget,
        max_tokens: args.max_tokens,
        languages: args.lang.clone(),
        path: args.path.clone(),
        query_expansion: args.expand.as_deref().and_then(ken_engine::api::QueryExpansion::parse),
    };
    let context = Context { cwd: cwd.to_path_buf(), color, links: false };
    if args.json {
        let response = engine.ask(&request, &mut |_| {})?;
        println!("{}", serde_json::to_string_pretty(&response)?);
        return Ok(());
    }
    let mut stdout = std::io::stdout().lock();
    let response = engine.ask(&request, &mut |text| {
        let _ = stdout.write_all(text.as_bytes());
        let _ = stdout.flush();
    })?;
    drop(stdout);
    print!("{}", sources(&response, &context));
    for note in &response.notes {
        eprintln!("note: {note}");
    }
    Ok(())
}

/// After the answer: the code it read, cited pieces marked; without a
/// model, the code itself.
fn sources(response: &AskResponse, context: &Context) -> String {
    let mut out = String::new();
    if !response.answer.is_empty() {
        out.push_str("\n\n");
    }
    if response.context.is_empty() {
        out.push_str("no indexed code matches the question\n");
        return out;
    }
    let cited =
        |path: &str, start: u32, end: u32| response.citations.iter().any(|c| c.path == path && c.start_line <= end && c.end_line >= start);
    let (bold, plain) = if context.color { ("\x1b[1m", "\x1b[0m") } else { ("", "") };
    let _ = writeln!(out, "{bold}sources{plain} (* cited)");
    for span in &response.context {
        let mark = if cited(&span.path, span.start_line, span.end_line) { "*" } else { " " };
        let _ = writeln!(out, "{mark} {}:{}-{}  {}", span.path, span.start_line, span.end_line, span.label);
    }
    if let Some(model) = &response.model {
        let u = &response.usage;
        let _ = writeln!(
            out,
            "model {model}: {} prompt + {} answer tokens{}",
            u.prompt_tokens,
            u.completion_tokens,
            if u.cached { " (cached)" } else { "" }
        );
    }
    out
}
