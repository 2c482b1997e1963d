//! The pure half of an answer with cited code: retrieved spans merged by
//! line (RepoGPT), packed into a token budget, ordered against "lost in the
//! middle" (the strongest pieces first and last, the weakest in the middle),
//! the prompt, and the check of every `[path:start-end]` citation the model
//! writes against what it was shown. No IO: the caller reads the lines.

use crate::{ChatRequest, Message, Role};
use regex::Regex;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::sync::LazyLock;

/// Lines of one file, with how strongly retrieval wanted them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Span {
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub score: f32,
    /// What the lines are, e.g. `function parse_args`; merged spans join theirs.
    pub label: String,
}

/// Spans of one file that overlap or nearly touch become one span, with the
/// best score of its parts: the model reads one excerpt, not three that
/// repeat each other. The result is strongest first.
pub fn merge_spans(mut spans: Vec<Span>) -> Vec<Span> {
    /// Lines between two spans that still join them (a blank line, a decorator).
    const GAP: u32 = 2;
    /// A long definition (a class, a module) is read from its head: its
    /// signature, docstring and first members; its other parts come as hits
    /// of their own.
    const MAX_LINES: u32 = 60;
    for span in &mut spans {
        span.end_line = span.end_line.min(span.start_line.saturating_add(MAX_LINES - 1));
    }
    spans.sort_by(|a, b| a.path.cmp(&b.path).then(a.start_line.cmp(&b.start_line)));
    let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
    for span in spans {
        match merged.last_mut() {
            Some(last) if last.path == span.path && span.start_line <= last.end_line.saturating_add(GAP + 1) => {
                last.end_line = last.end_line.max(span.end_line);
                last.score = last.score.max(span.score);
                /// Names listed in a merged label; more are counted.
                const NAMES: usize = 3;
                let names = last.label.split(", ").count();
                if span.label.is_empty() || last.label.split(", ").any(|l| l == span.label) {
                } else if last.label.is_empty() {
                    last.label = span.label;
                } else if names < NAMES {
                    last.label.push_str(", ");
                    last.label.push_str(&span.label);
                } else {
                    let more = last
                        .label
                        .rsplit_once(" +")
                        .and_then(|(head, n)| Some((head.to_string(), n.strip_suffix(" more")?.parse::<usize>().ok()?)));
                    last.label = match more {
                        Some((head, n)) => format!("{head} +{} more", n + 1),
                        None => format!("{} +1 more", last.label),
                    };
                }
            }
            _ => merged.push(span),
        }
    }
    merged.sort_by(|a, b| b.score.total_cmp(&a.score));
    merged
}

/// A span with its text, ready for the prompt.
#[derive(Clone, Debug, PartialEq)]
pub struct Excerpt {
    pub span: Span,
    pub text: String,
}

impl Excerpt {
    /// How the excerpt reads in the prompt: the citation to use, then the code.
    fn render(&self) -> String {
        let Span { path, start_line, end_line, label, .. } = &self.span;
        let label = if label.is_empty() { String::new() } else { format!(" {label}") };
        format!("[{path}:{start_line}-{end_line}]{label}\n```\n{}\n```\n", self.text.trim_end_matches('\n'))
    }
}

/// Takes excerpts strongest first while they fit in `budget` tokens; the
/// first that does not fit is cut to its leading lines (its end line moves
/// with it, so every line range shown is exactly what the model read).
pub fn pack(excerpts: Vec<Excerpt>, budget: usize, count_tokens: &dyn Fn(&str) -> usize) -> Vec<Excerpt> {
    /// Fewer lines than this are not worth an excerpt.
    const MIN_LINES: usize = 3;
    let mut used = 0;
    let mut packed = Vec::new();
    for excerpt in excerpts {
        let cost = count_tokens(&excerpt.render());
        if used + cost <= budget {
            used += cost;
            packed.push(excerpt);
            continue;
        }
        let room = budget.saturating_sub(used);
        let lines: Vec<&str> = excerpt.text.lines().collect();
        // Tokens per line of this excerpt, to guess the cut before measuring it.
        let per_line = cost as f64 / lines.len().max(1) as f64;
        let mut keep = ((room as f64 / per_line.max(1.0)) as usize).min(lines.len());
        while keep >= MIN_LINES {
            let cut = Excerpt {
                span: Span { end_line: excerpt.span.start_line + keep as u32 - 1, ..excerpt.span.clone() },
                text: lines[..keep].join("\n"),
            };
            let cost = count_tokens(&cut.render());
            if used + cost <= budget {
                packed.push(cut);
                break;
            }
            keep = keep * 3 / 4;
        }
        break;
    }
    packed
}

/// Strongest first and second strongest last, and so on inwards: models
/// read the ends of a long context best (Liu et al., "Lost in the Middle").
/// `excerpts` come strongest first.
pub fn order_against_middle<T>(excerpts: Vec<T>) -> Vec<T> {
    let mut front = Vec::with_capacity(excerpts.len());
    let mut back = Vec::new();
    for (rank, excerpt) in excerpts.into_iter().enumerate() {
        if rank % 2 == 0 { front.push(excerpt) } else { back.push(excerpt) }
    }
    back.reverse();
    front.extend(back);
    front
}

const SYSTEM: &str = "You answer questions about a code repository. Use only the code excerpts given. \
Each excerpt starts with its location in square brackets, like [src/app.py:10-24]. \
After every statement about the code, cite the lines it rests on in that form, narrowed to the lines that matter, \
for example [src/app.py:12-15]. If the excerpts do not answer the question, say so.";

/// One worked exchange before the question: a small model copies the form
/// of an example (citations after claims) far more readily than it follows
/// a rule.
const EXAMPLE_QUESTION: &str = "Code excerpts:\n\n[lib/units.py:4-9] function to_seconds\n```\ndef to_seconds(value, unit):\n    factors = {\"ms\": 0.001, \"s\": 1, \"min\": 60}\n    if unit not in factors:\n        raise ValueError(unit)\n    return value * factors[unit]\n```\n\nQuestion: what happens with an unknown unit?\nAnswer concisely, citing lines as [path:start-end].";
const EXAMPLE_ANSWER: &str = "`to_seconds` looks the unit up in a table of factors [lib/units.py:5-5]; a unit that is not in it raises `ValueError` [lib/units.py:6-7].";

/// The chat request that asks `question` over `excerpts` (in prompt order).
pub fn prompt(question: &str, excerpts: &[Excerpt], max_tokens: usize) -> ChatRequest {
    let mut user = String::from("Code excerpts:\n\n");
    for excerpt in excerpts {
        user.push_str(&excerpt.render());
        user.push('\n');
    }
    user.push_str("Question: ");
    user.push_str(question.trim());
    user.push_str("\nAnswer concisely, citing lines as [path:start-end].");
    let messages = vec![
        Message::system(SYSTEM),
        Message::user(EXAMPLE_QUESTION),
        Message { role: Role::Assistant, content: EXAMPLE_ANSWER.into() },
        Message::user(user),
    ];
    ChatRequest::new(messages).max_tokens(max_tokens)
}

/// Tokens the prompt takes besides the excerpts.
pub fn prompt_overhead(question: &str, count_tokens: &dyn Fn(&str) -> usize) -> usize {
    // The chat template's markers: a few tokens per message.
    const TEMPLATE: usize = 16;
    count_tokens(SYSTEM)
        + count_tokens(question)
        + count_tokens("Code excerpts:\n\nQuestion: \nAnswer concisely, citing lines as [path:start-end].")
        + TEMPLATE
}

/// A citation that stands: its lines exist and were shown to the model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Citation {
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
}

/// A citation removed from the answer, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DroppedCitation {
    /// As the model wrote it.
    pub text: String,
    /// `no such file`, `no such lines` or `not in the context`.
    pub reason: String,
}

/// `path:12` or `path:12-30`, where the path has a directory or an extension.
static CITATION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"([A-Za-z0-9_@+~./\-][A-Za-z0-9_@+~\-./]*):L?(\d{1,7})(?:[-–]L?(\d{1,7}))?").expect("citation regex"));

/// Checks the citations of an answer as it streams: text passes through a
/// word at a time (a citation has no spaces), each citation is kept (cut to
/// the excerpt it falls in) or removed, and counted.
pub struct CitationCheck<'a> {
    shown: FxHashMap<String, Vec<(u32, u32)>>,
    lines: &'a dyn Fn(&str) -> Option<u32>,
    pending: String,
    pub kept: Vec<Citation>,
    pub dropped: Vec<DroppedCitation>,
    /// The answer as it reached the reader.
    pub text: String,
}

impl<'a> CitationCheck<'a> {
    /// `shown`: the excerpts' spans; `lines`: an indexed file's line count
    /// (`None`: no such file).
    pub fn new(shown: &[Span], lines: &'a dyn Fn(&str) -> Option<u32>) -> CitationCheck<'a> {
        let mut by_path: FxHashMap<String, Vec<(u32, u32)>> = FxHashMap::default();
        for span in shown {
            by_path.entry(span.path.clone()).or_default().push((span.start_line, span.end_line));
        }
        CitationCheck { shown: by_path, lines, pending: String::new(), kept: Vec::new(), dropped: Vec::new(), text: String::new() }
    }

    /// Feeds streamed text; whatever is settled goes to `out`.
    pub fn push(&mut self, text: &str, out: &mut dyn FnMut(&str)) {
        self.pending.push_str(text);
        // Everything up to the last whitespace is whole words.
        let Some(cut) = self.pending.rfind(char::is_whitespace) else { return };
        let cut = cut + self.pending[cut..].chars().next().map_or(1, char::len_utf8);
        let settled: String = self.pending.drain(..cut).collect();
        self.emit(&settled, out);
    }

    /// The end of the stream.
    pub fn finish(&mut self, out: &mut dyn FnMut(&str)) {
        let rest = std::mem::take(&mut self.pending);
        self.emit(&rest, out);
    }

    fn emit(&mut self, text: &str, out: &mut dyn FnMut(&str)) {
        let mut result = String::with_capacity(text.len());
        let mut last = 0;
        for found in CITATION.captures_iter(text) {
            let whole = found.get(0).expect("match");
            let path = &found[1];
            if !path.contains('/') && !path.contains('.') {
                continue; // "step:2", a time: not a location
            }
            let start: u32 = found[2].parse().unwrap_or(0);
            let end: u32 = found.get(3).and_then(|m| m.as_str().parse().ok()).unwrap_or(start);
            result.push_str(&text[last..whole.start()]);
            last = whole.end();
            match self.check(path, start, end) {
                Ok(citation) => {
                    result.push_str(&format!("{}:{}-{}", citation.path, citation.start_line, citation.end_line));
                    self.kept.push(citation);
                }
                Err(reason) => {
                    self.dropped.push(DroppedCitation { text: whole.as_str().to_string(), reason: reason.into() });
                    // The brackets it sat in go with it.
                    trim_open_bracket(&mut result);
                    if text[last..].starts_with([']', ')']) {
                        last += 1;
                    }
                }
            }
        }
        result.push_str(&text[last..]);
        self.text.push_str(&result);
        out(&result);
    }

    fn check(&self, path: &str, start: u32, end: u32) -> Result<Citation, &'static str> {
        let path = path.trim_start_matches("./").trim_end_matches(['.', ',']);
        let Some(count) = (self.lines)(path) else { return Err("no such file") };
        let (start, end) = (start.min(end), start.max(end));
        if start == 0 || end > count {
            return Err("no such lines");
        }
        // Cut to the excerpt the citation overlaps most.
        let shown = self.shown.get(path).into_iter().flatten();
        let best = shown
            .map(|&(s, e)| (s.max(start), e.min(end)))
            .filter(|(s, e)| s <= e)
            .max_by(|a, b| (a.1 - a.0).cmp(&(b.1 - b.0)).then(b.0.cmp(&a.0)));
        match best {
            Some((start_line, end_line)) => Ok(Citation { path: path.to_string(), start_line, end_line }),
            None => Err("not in the context"),
        }
    }
}

fn trim_open_bracket(text: &mut String) {
    if text.ends_with(['[', '(']) {
        text.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{Expect, expect};

    fn span(path: &str, start: u32, end: u32, score: f32) -> Span {
        Span { path: path.into(), start_line: start, end_line: end, score, label: format!("s{start}") }
    }

    fn check_merge(spans: Vec<Span>, expect: Expect) {
        let merged = merge_spans(spans);
        let text: Vec<String> =
            merged.iter().map(|s| format!("{}:{}-{} {} [{}]", s.path, s.start_line, s.end_line, s.score, s.label)).collect();
        expect.assert_eq(&text.join("\n"));
    }

    #[test]
    fn merge_joins_overlapping_and_adjacent_lines_of_one_file() {
        check_merge(
            vec![
                span("a.py", 1, 10, 0.2),
                span("a.py", 8, 20, 0.9),
                span("a.py", 23, 30, 0.1),
                span("a.py", 40, 50, 0.5),
                span("b.py", 11, 12, 0.3),
                span("c.py", 1, 500, 0.4),
                span("c.py", 5, 9, 0.3),
                span("c.py", 20, 29, 0.3),
                span("c.py", 30, 39, 0.3),
                span("c.py", 40, 49, 0.3),
            ],
            expect![[r#"
                a.py:1-30 0.9 [s1, s8, s23]
                a.py:40-50 0.5 [s40]
                c.py:1-60 0.4 [s1, s5, s20 +2 more]
                b.py:11-12 0.3 [s11]"#]],
        );
    }

    #[test]
    fn order_puts_the_strongest_at_both_ends() {
        expect![[r#"[1, 3, 5, 6, 4, 2]"#]].assert_eq(&format!("{:?}", order_against_middle(vec![1, 2, 3, 4, 5, 6])));
    }

    #[test]
    fn pack_cuts_the_first_excerpt_that_does_not_fit() {
        let excerpt = |start: u32, lines: u32| Excerpt {
            span: span("a.py", start, start + lines - 1, 1.0),
            text: (0..lines).map(|i| format!("line {i}")).collect::<Vec<_>>().join("\n"),
        };
        let words = |t: &str| t.split_whitespace().count();
        let packed = pack(vec![excerpt(1, 10), excerpt(100, 40), excerpt(200, 5)], 70, &words);
        let text: Vec<String> =
            packed.iter().map(|e| format!("{}-{} ({} lines)", e.span.start_line, e.span.end_line, e.text.lines().count())).collect();
        expect![[r#"["1-10 (10 lines)", "100-120 (21 lines)"]"#]].assert_eq(&format!("{text:?}"));
    }

    fn check_citations(answer: &str, expect: Expect) {
        let shown = [span("src/app.py", 10, 40, 1.0), span("src/app.py", 60, 70, 1.0), span("lib/util.rs", 1, 5, 1.0)];
        let lines = |path: &str| {
            [("src/app.py", 100), ("lib/util.rs", 5), ("src/other.py", 50)].into_iter().find(|(p, _)| *p == path).map(|(_, n)| n)
        };
        let mut check = CitationCheck::new(&shown, &lines);
        let mut streamed = String::new();
        // Three characters at a time, as tokens arrive.
        let chars: Vec<char> = answer.chars().collect();
        for piece in chars.chunks(3) {
            check.push(&piece.iter().collect::<String>(), &mut |t| streamed.push_str(t));
        }
        check.finish(&mut |t| streamed.push_str(t));
        assert_eq!(streamed, check.text);
        let dropped: Vec<String> = check.dropped.iter().map(|d| format!("{} ({})", d.text, d.reason)).collect();
        let kept: Vec<String> = check.kept.iter().map(|c| format!("{}:{}-{}", c.path, c.start_line, c.end_line)).collect();
        expect.assert_eq(&format!("{streamed}\nkept: {}\ndropped: {}", kept.join(" "), dropped.join("; ")));
    }

    #[test]
    fn citations_are_kept_cut_or_dropped() {
        check_citations(
            "It parses [src/app.py:12-15]. Then [src/app.py:35-65] and (lib/util.rs:3). Not [src/app.py:45-50], nor [src/other.py:1-2], nor [src/app.py:99-120] or [nope.py:1].",
            expect![[r#"
                It parses [src/app.py:12-15]. Then [src/app.py:35-40] and (lib/util.rs:3-3). Not , nor , nor  or .
                kept: src/app.py:12-15 src/app.py:35-40 lib/util.rs:3-3
                dropped: src/app.py:45-50 (not in the context); src/other.py:1-2 (not in the context); src/app.py:99-120 (no such lines); nope.py:1 (no such file)"#]],
        );
    }

    #[test]
    fn brackets_of_the_answer_itself_stay() {
        check_citations(
            "Call `load()` or `items[]`, then [src/app.py:12].",
            expect![[r#"
                Call `load()` or `items[]`, then [src/app.py:12-12].
                kept: src/app.py:12-12
                dropped: "#]],
        );
    }

    #[test]
    fn text_that_only_looks_like_a_citation_passes() {
        check_citations(
            "At step:2, at 10:30, see ./src/app.py:20.",
            expect![[r#"
                At step:2, at 10:30, see src/app.py:20-20.
                kept: src/app.py:20-20
                dropped: "#]],
        );
    }
}
