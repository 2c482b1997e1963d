//! Fixture helpers: a fixture is one string holding several files, each
//! introduced by a `//- path` line. The miner's output for every file is
//! rendered as text and compared with an `expect!` snapshot
//! (`UPDATE_EXPECT=1 cargo test` rewrites them).

#![allow(dead_code)] // each test file uses some of the helpers

use ken_core::{ChunkBudget, FileAnalysis, Symbol};
use ken_mine::Miner;
use std::fmt::Write;

pub use ken_test_support::files;

fn mine(fixture: &str, budget: ChunkBudget) -> Vec<(String, String, FileAnalysis)> {
    let mut miner = Miner::new();
    files(fixture)
        .into_iter()
        .map(|(path, text)| {
            // As the indexer does: by name, else by content.
            let file = std::path::Path::new(&path);
            let by_name = ken_lang::detect(file).filter(|_| !ken_lang::content_decides(file));
            let lang =
                by_name.or_else(|| ken_lang::sniff(file, &text)).or_else(|| ken_lang::detect(file)).unwrap_or(ken_core::Language::Text);
            let analysis = miner.analyze(&path, lang, &text, &budget);
            (path, text, analysis)
        })
        .collect()
}

fn depth(symbols: &[Symbol], mut i: usize) -> usize {
    let mut d = 0;
    while let Some(p) = symbols[i].parent {
        d += 1;
        i = p as usize;
    }
    d
}

fn short(text: &str, max: usize) -> String {
    let one_line = text.replace('\n', "⏎");
    if one_line.chars().count() > max { format!("{}…", one_line.chars().take(max).collect::<String>()) } else { one_line }
}

/// Symbols as an indented tree: kind, qualified name, lines, signature, doc.
pub fn render_symbols(fixture: &str) -> String {
    let mut out = String::new();
    for (path, _, a) in mine(fixture, ChunkBudget::default()) {
        writeln!(out, "{path} (module {}, {} parse errors)", a.module, a.parse_errors).unwrap();
        for (i, s) in a.symbols.iter().enumerate().skip(1) {
            let indent = "  ".repeat(depth(&a.symbols, i));
            write!(
                out,
                "{indent}{} {} [{}-{}] `{}`",
                s.kind,
                s.qualified_name,
                s.span.start_line,
                s.span.end_line,
                short(&s.signature, 70)
            )
            .unwrap();
            if let Some(doc) = &s.docstring {
                write!(out, " doc: {}", short(doc, 50)).unwrap();
            }
            out.push('\n');
        }
    }
    out
}

/// Raw references: position, kind, qualifier and name, enclosing symbol.
pub fn render_references(fixture: &str) -> String {
    let mut out = String::new();
    for (path, _, a) in mine(fixture, ChunkBudget::default()) {
        writeln!(out, "{path}").unwrap();
        for r in &a.references {
            let qual = r.qualifier.as_deref().map(|q| format!("{q} :: ")).unwrap_or_default();
            let alias = r.alias.as_deref().map(|a| format!(" as {a}")).unwrap_or_default();
            let within = &a.symbols[r.enclosing as usize].local_path;
            let within = if within.is_empty() { "<module>" } else { within };
            writeln!(out, "  {}:{} {} {qual}{}{alias} in {within}", r.line, r.col, r.kind, r.name).unwrap();
        }
    }
    out
}

/// Chunks with their canonical name and context, under a given budget.
pub fn render_chunks(fixture: &str, budget: ChunkBudget) -> String {
    let mut out = String::new();
    for (path, _, a) in mine(fixture, budget) {
        writeln!(out, "{path}").unwrap();
        for c in &a.chunks {
            let name = c.symbol.map_or(a.module.as_str(), |s| a.symbols[s as usize].qualified_name.as_str());
            let ctx = |c: &Option<ken_core::ChunkContext>| match c {
                Some(c) => format!("{}{}[{}-{}]", if c.encloses { "in " } else { "after " }, c.name, c.start_line, c.end_line),
                None => "-".to_string(),
            };
            writeln!(out, "  {}-{} {name} | class {} | fn {}", c.start_line, c.end_line, ctx(&c.class), ctx(&c.method)).unwrap();
        }
    }
    out
}

/// Type facts: bindings with their scope, and declared return types.
pub fn render_types(fixture: &str) -> String {
    let mut out = String::new();
    for (path, _, a) in mine(fixture, ChunkBudget::default()) {
        writeln!(out, "{path}").unwrap();
        for s in &a.symbols {
            if let Some(ret) = &s.return_type {
                writeln!(out, "  {} -> {ret}", s.local_path).unwrap();
            }
        }
        for b in &a.bindings {
            let scope = &a.symbols[b.scope as usize].local_path;
            let how = match b.source {
                ken_core::BindingSource::Annotation => ":",
                ken_core::BindingSource::CallResult => "= call",
                ken_core::BindingSource::Alias => "= name",
            };
            writeln!(out, "  {}: {} {how} {} (in {scope})", b.line, b.name, b.type_text).unwrap();
        }
    }
    out
}
