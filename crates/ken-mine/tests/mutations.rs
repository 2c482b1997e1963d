//! Mutation fuzzing of the miner, bounded and deterministic so it runs in
//! every `cargo test`: every fixture file of the per-language tests is a
//! seed, cut, spliced and nested in thousands of ways by a seeded generator.
//! Each mutant is mined under `catch_unwind`; a panic, a span outside the
//! file, or a chunk outside its lines or over the budget is a failure that
//! names the seed, the mutation and the input, so it can be kept as a
//! regression fixture. The budget is small, so that the fixtures' few-line
//! definitions and doc comments must be split.
//! (`cargo fuzz` needs a nightly toolchain, which this project cannot fetch.)
//!
//! `KEN_MUTATIONS=N` runs N mutants per seed (default 8; CI's figure is in the
//! closing note of the robustness issue).

mod common;

use ken_core::{ChunkBudget, Language};
use ken_mine::Miner;

/// Every `//- path` file of every per-language test, with its language.
fn seeds() -> Vec<(String, Language, String)> {
    let sources = [
        include_str!("python.rs"),
        include_str!("rust.rs"),
        include_str!("javascript.rs"),
        include_str!("typescript.rs"),
        include_str!("go.rs"),
        include_str!("java.rs"),
        include_str!("csharp.rs"),
        include_str!("c.rs"),
        include_str!("cpp.rs"),
        include_str!("ruby.rs"),
        include_str!("php.rs"),
    ];
    let mut out = Vec::new();
    for source in sources {
        for block in source.split("r#\"").skip(1) {
            let block = block.split("\"#").next().unwrap_or("");
            for (path, text) in common::files(block) {
                if let Some(language) = ken_lang::detect(std::path::Path::new(&path)) {
                    out.push((path, language, text));
                }
            }
        }
    }
    out
}

use ken_test_support::Rng;

/// A char boundary at or before `at`.
fn floor(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

const NOISE: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "<",
    ">",
    "\"",
    "'",
    "`",
    "\"\"\"",
    "/*",
    "*/",
    "//",
    "#",
    "\\",
    ":",
    ";",
    ",",
    "\n",
    "\t",
    "    ",
    "…",
    "é",
    "🦀",
    "\u{0}",
    "\r\n",
    "def ",
    "class ",
    "fn ",
    "impl ",
    "function ",
    "=>",
    "->",
    "::",
    "@",
    "$",
    "<?php",
    "?>",
    "#include",
    "template<",
    "end",
    "import ",
    "from ",
    "use ",
    "package ",
    "namespace ",
];

/// One mutation of `text`, and what it was.
fn mutate(text: &str, rng: &mut Rng) -> (String, String) {
    let len = text.len();
    let a = floor(text, rng.below(len + 1));
    let b = floor(text, rng.below(len + 1));
    let (lo, hi) = (a.min(b), a.max(b));
    match rng.below(7) {
        0 => (format!("{}{}", &text[..lo], &text[hi..]), format!("delete {lo}..{hi}")),
        1 => (format!("{}{}{}", &text[..hi], &text[lo..hi], &text[hi..]), format!("duplicate {lo}..{hi}")),
        2 => {
            let noise = NOISE[rng.below(NOISE.len())];
            (format!("{}{noise}{}", &text[..a], &text[a..]), format!("insert {noise:?} at {a}"))
        }
        3 => (text[..a].to_string(), format!("truncate at {a}")),
        4 => {
            let (open, close) = [("(", ")"), ("[", "]"), ("{", "}"), ("<", ">"), ("\"", "\"")][rng.below(5)];
            let depth = 1 + rng.below(400);
            (
                format!("{}{}{}{}", &text[..a], open.repeat(depth), close.repeat(rng.below(depth + 1)), &text[a..]),
                format!("nest {open} x{depth} at {a}"),
            )
        }
        5 => {
            // Swap two regions.
            let mut cuts = [lo, hi, floor(text, rng.below(len + 1))];
            cuts.sort_unstable();
            let [p, q, r] = cuts;
            (format!("{}{}{}{}", &text[..p], &text[q..r], &text[p..q], &text[r..]), format!("swap {p}..{q} with {q}..{r}"))
        }
        _ => {
            let line = &text[lo..hi];
            (format!("{text}{}", line.repeat(1 + rng.below(20))), format!("repeat {lo}..{hi}"))
        }
    }
}

/// What must hold for any input: no panic, spans inside the file. A span
/// may end on the line after a final newline (where tree-sitter ends the
/// root node), hence `lines + 1`.
fn check(miner: &mut Miner, path: &str, language: Language, text: &str) -> Result<(), String> {
    let budget = ChunkBudget { max_chars: 400, max_lines: 8, overlap_lines: 2 };
    let analysis = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| miner.analyze(path, language, text, &budget)))
        .map_err(|panic| format!("panic: {}", ken_core::panic_message(&*panic)))?;
    let lines = analysis.lines.max(1) + 1;
    for s in &analysis.symbols {
        let span = &s.span;
        if span.end_byte as usize > text.len() || span.start_byte > span.end_byte || span.end_line > lines {
            return Err(format!(
                "symbol {} spans {}..{} (lines {}-{}) in {} bytes, {lines} lines",
                s.name,
                span.start_byte,
                span.end_byte,
                span.start_line,
                span.end_line,
                text.len()
            ));
        }
    }
    for c in &analysis.chunks {
        if c.end_byte as usize > text.len() || c.start_line > c.end_line || c.end_line > lines {
            return Err(format!(
                "chunk {}..{} (lines {}-{}) in {} bytes, {lines} lines",
                c.start_byte,
                c.end_byte,
                c.start_line,
                c.end_line,
                text.len()
            ));
        }
        // Within the budget, but for a single line longer than it (a line is never cut).
        let rows = (c.end_line - c.start_line) as usize;
        let bytes = (c.end_byte - c.start_byte) as usize;
        if rows >= budget.max_lines as usize || (rows > 0 && bytes > budget.max_chars as usize) {
            return Err(format!("chunk lines {}-{} ({bytes} bytes) is over the budget", c.start_line, c.end_line));
        }
    }
    Ok(())
}

#[test]
fn mutated_fixtures_never_crash_the_miner() {
    let per_seed: usize = std::env::var("KEN_MUTATIONS").ok().and_then(|n| n.parse().ok()).unwrap_or(8);
    let seeds = seeds();
    assert!(seeds.len() > 50, "fixtures were found: {}", seeds.len());
    let mut miner = Miner::new();
    let mut failures = Vec::new();
    let mut runs = 0;
    for (i, (path, language, text)) in seeds.iter().enumerate() {
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15 ^ (i as u64 + 1));
        if let Err(e) = check(&mut miner, path, *language, text) {
            failures.push(format!("{path} (seed as is): {e}"));
        }
        for m in 0..per_seed {
            // Mutations stack: a mutant is mutated again a few times.
            let (mut mutant, mut how) = mutate(text, &mut rng);
            for _ in 0..rng.below(3) {
                let (next, more) = mutate(&mutant, &mut rng);
                mutant = next;
                how = format!("{how}, {more}");
            }
            runs += 1;
            if let Err(e) = check(&mut miner, path, *language, &mutant) {
                failures.push(format!("{path} mutant {m} ({how}): {e}\n--- input ---\n{}", &mutant[..floor(&mutant, 2000)]));
                miner = Miner::new();
            }
        }
    }
    eprintln!("{runs} mutants of {} seeds mined", seeds.len());
    assert!(failures.is_empty(), "{} of {runs} mutants failed:\n{}", failures.len(), failures.join("\n\n"));
}
