//! Colours for code snippets on a terminal. The snippet's own grammar
//! parses it (a fragment parses well enough: tree-sitter recovers), and each
//! token is coloured by what it is: comments, strings, keywords, numbers and
//! constants, the names definitions give. One walk serves all the languages
//! ken mines, with no highlight queries to keep in step with the grammars.
//! The query's words stay marked on top, bold yellow, as before.

use ken_core::Language;
use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Comment,
    String,
    Keyword,
    Number,
    Definition,
}

impl Style {
    /// ANSI foreground of the 16 colours every terminal has.
    fn sgr(self) -> &'static str {
        match self {
            Style::Comment => "90",
            Style::String => "32",
            Style::Keyword => "35",
            Style::Number => "36",
            Style::Definition => "34",
        }
    }
}

/// The coloured byte ranges of `text`, in order, none overlapping; empty for
/// a language without a grammar (documents, configuration, text).
pub fn spans(language: Language, text: &str) -> Vec<(Range<usize>, Style)> {
    let Some(grammar) = ken_lang::config(language).grammar.clone() else { return Vec::new() };
    let mut parser = tree_sitter::Parser::new();
    if parser.set_language(&grammar).is_err() {
        return Vec::new();
    }
    let Some(tree) = parser.parse(text, None) else { return Vec::new() };
    let mut out = Vec::new();
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        let style = style_of(node, text);
        if let Some(style) = style
            && node.start_byte() < node.end_byte()
        {
            out.push((node.byte_range(), style));
        }
        // Comments and strings are coloured whole; other nodes by their parts.
        if style.is_none_or(|s| s == Style::Definition || s == Style::Keyword || s == Style::Number) && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    // A parent's range comes before its children's: keep the outermost.
    let mut kept: Vec<(Range<usize>, Style)> = Vec::new();
    for (range, style) in out {
        if kept.last().is_none_or(|(last, _)| range.start >= last.end) {
            kept.push((range, style));
        }
    }
    kept
}

fn style_of(node: tree_sitter::Node<'_>, text: &str) -> Option<Style> {
    let kind = node.kind();
    if kind.contains("comment") {
        return Some(Style::Comment);
    }
    if (kind.contains("string") || kind.contains("char_literal") || kind == "heredoc_body") && node.is_named() {
        return Some(Style::String);
    }
    if node.child_count() > 0 {
        return None;
    }
    if !node.is_named() {
        // Anonymous tokens spelled as words are the language's keywords.
        let word = kind.len() > 1 && kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
        return word.then_some(Style::Keyword);
    }
    if kind.contains("integer") || kind.contains("float") || kind.contains("number") || kind.ends_with("_literal") {
        return Some(Style::Number);
    }
    if matches!(kind, "true" | "false" | "none" | "null" | "nil" | "undefined" | "boolean") {
        return Some(Style::Number);
    }
    if matches!(kind, "this" | "self" | "super") {
        return Some(Style::Keyword);
    }
    let parent = node.parent()?;
    let of = parent.kind();
    // Functions, classes, types and modules; not parameters or variables.
    let names_definition = (of.contains("definition") || of.contains("declaration") || of.ends_with("_item"))
        && !["parameter", "variable", "field", "let", "const", "property"].iter().any(|part| of.contains(part));
    let is_name = parent.child_by_field_name("name").is_some_and(|n| n.id() == node.id());
    (names_definition && is_name && !text[node.byte_range()].is_empty()).then_some(Style::Definition)
}

/// `line` (one line of `text`, starting at byte `start`) with its colours
/// and the query's words (`terms`, lower case) marked bold yellow.
pub fn paint(line: &str, start: usize, spans: &[(Range<usize>, Style)], terms: &[String]) -> String {
    let mut fg: Vec<Option<&'static str>> = vec![None; line.len()];
    for (range, style) in spans {
        let (from, to) = (range.start.max(start), range.end.min(start + line.len()));
        for slot in fg.iter_mut().take(to.saturating_sub(start)).skip(from.saturating_sub(start)) {
            *slot = Some(style.sgr());
        }
    }
    let lower = line.to_lowercase();
    if lower.len() == line.len() {
        for term in terms.iter().filter(|t| t.len() > 2) {
            let mut from = 0;
            while let Some(pos) = lower[from..].find(term.as_str()) {
                let at = from + pos;
                fg[at..at + term.len()].iter_mut().for_each(|slot| *slot = Some("1;33"));
                from = at + term.len();
            }
        }
    }
    let mut out = String::new();
    let mut current = None;
    for (i, ch) in line.char_indices() {
        if fg[i] != current {
            if current.is_some() {
                out.push_str("\x1b[0m");
            }
            if let Some(code) = fg[i] {
                out.push_str(&format!("\x1b[{code}m"));
            }
            current = fg[i];
        }
        out.push(ch);
    }
    if current.is_some() {
        out.push_str("\x1b[0m");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{Expect, expect};

    /// The snippet with each coloured span tagged, `«style text»`.
    fn check(language: Language, text: &str, expect: Expect) {
        let mut out = String::new();
        let mut at = 0;
        for (range, style) in spans(language, text) {
            out.push_str(&text[at..range.start]);
            out.push_str(&format!("«{style:?} {}»", &text[range.clone()]));
            at = range.end;
        }
        out.push_str(&text[at..]);
        expect.assert_eq(&out);
    }

    #[test]
    fn tokens_are_coloured_by_what_they_are() {
        check(
            Language::Python,
            "def save(self, n=3):\n    # keep it\n    return \"ok\" if n else None",
            expect![[r#"«Keyword def» «Definition save»(self, n=«Number 3»):
    «Comment # keep it»
    «Keyword return» «String "ok"» «Keyword if» n «Keyword else» «Number None»"#]],
        );
        check(
            Language::Rust,
            "pub fn grow(by: usize) -> u32 { let x = 0x10; /* twice */ x * 2 }",
            expect![[
                r#"«Keyword pub» «Keyword fn» «Definition grow»(by: usize) -> u32 { «Keyword let» x = «Number 0x10»; «Comment /* twice */» x * «Number 2» }"#
            ]],
        );
        check(
            Language::TypeScript,
            "export class Cart { total(): number { return this.items.length; } } // done",
            expect![
                "«Keyword export» «Keyword class» «Definition Cart» { «Definition total»(): «Keyword number» { «Keyword return» «Keyword this».items.length; } } «Comment // done»"
            ],
        );
        check(
            Language::Go,
            "func Add(a int) int { return a + 1 } // sum",
            expect!["«Keyword func» «Definition Add»(a int) int { «Keyword return» a + «Number 1» } «Comment // sum»"],
        );
        // A fragment cut out of a larger definition still colours.
        check(
            Language::Python,
            "not items:\n            return cart.total(0)\n    finally:",
            expect![[r#"
                «Keyword not» items:
                            «Keyword return» cart.total(«Number 0»)
                    «Keyword finally»:"#]],
        );
        check(Language::Markdown, "# Title\nplain", expect!["# Title\nplain"]);
    }

    #[test]
    fn the_query_words_stay_marked_over_the_colours() {
        let text = "def save(self):";
        let painted = paint(text, 0, &spans(Language::Python, text), &["save".to_string()]);
        assert_eq!(painted, "\x1b[35mdef\x1b[0m \x1b[1;33msave\x1b[0m(self):");
    }
}
