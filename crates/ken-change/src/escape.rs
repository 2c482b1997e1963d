//! Which escaping objects a body change modifies (Table 1's MMB rule): the
//! lines the change adds or removes are read for a changed return value,
//! a write to a field of the receiver, a write to (or mutating call on) a
//! parameter, and an assignment to a module-level name. It reads lines,
//! not data flow: a write through an alias of a parameter is missed.

use ken_core::Language;
use regex::Regex;
use serde::Serialize;
use similar::{ChangeTag, TextDiff};
use std::sync::LazyLock;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Escape {
    pub kind: EscapeKind,
    /// The field, parameter or global; empty for the return value.
    pub name: String,
    /// The changed line: in the new version, or in the old one when the line was removed.
    pub line: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EscapeKind {
    Return,
    Parameter,
    Field,
    Global,
}

/// Assignment operators (not comparisons).
const ASSIGN: &str = r"(?:=[^=>]|\+=|-=|\*=|/=|%=|\|=|&=|\^=|<<=|>>=|\?\?=|\|\|=|&&=)";
/// Calls that change the object they are called on, across languages' standard libraries.
const MUTATORS: &str = "append|extend|insert|remove|pop|popleft|clear|update|add|discard|setdefault|sort|reverse|\
push|push_back|push_front|push_str|pop_back|pop_front|splice|shift|unshift|set|delete|fill|truncate|drain|retain|\
put|putAll|Add|AddRange|Remove|Clear|Insert|write|write_all";

static RECEIVER_WRITE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?:\b(?:self|this)\s*(?:\.|->)\s*|@)([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*(?:{ASSIGN}|\.\s*(?:{MUTATORS})\s*\()"))
        .expect("valid regex")
});
static RETURN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\s*(?:return|yield)\b").expect("valid regex"));
static GLOBAL_DECL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\s*(?:global|nonlocal)\s+([\w\s,]+)").expect("valid regex"));
/// Words before a name that declare a new local instead of assigning an outer one.
static DECLARES: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(?:let|const|var|auto|my|local)\s+(?:mut\s+)?$").expect("valid regex"));

/// The escaping objects modified by changing `old` into `new` (each a body
/// and the line it starts at). `globals`: module-level names of the file.
pub fn escapes(language: Language, signature: &str, old: (&str, u32), new: (&str, u32), globals: &[String]) -> Vec<Escape> {
    let params = parameters(language, signature);
    let declared_global: Vec<String> = new
        .0
        .lines()
        .chain(old.0.lines())
        .filter_map(|l| GLOBAL_DECL.captures(l))
        .flat_map(|c| c[1].split(',').map(|n| n.trim().to_string()).collect::<Vec<_>>())
        .filter(|n| !n.is_empty())
        .collect();
    // Python rebinds a module name only where the function says `global`.
    let assignable: Vec<&str> = if language == Language::Python {
        declared_global.iter().map(String::as_str).collect()
    } else {
        globals.iter().map(String::as_str).chain(declared_global.iter().map(String::as_str)).collect()
    };
    let tail = tail_expression(language, new.0).map(|i| new.1 + i as u32);
    let param_writes: Vec<(&String, Writes)> = params.iter().filter_map(|p| Some((p, Writes::new(p, true)?))).collect();
    // Only the module's names the bodies mention: a file may define hundreds.
    let global_writes: Vec<(&str, Writes)> = assignable
        .iter()
        .filter(|g| old.0.contains(**g) || new.0.contains(**g))
        .filter_map(|g| Some((*g, Writes::new(g, false)?)))
        .collect();
    let mut out: Vec<Escape> = Vec::new();
    let mut add = |kind, name: &str, line| {
        if !out.iter().any(|e| e.kind == kind && e.name == name) {
            out.push(Escape { kind, name: name.to_string(), line });
        }
    };
    // Whole lines on both sides, so a last line without its newline is no change.
    let (old_text, new_text) = (with_newline(old.0), with_newline(new.0));
    let diff = TextDiff::from_lines(&old_text, &new_text);
    // Added lines first: an object is reported at its line in the new version.
    let mut changes: Vec<_> = diff.iter_all_changes().filter(|c| c.tag() != ChangeTag::Equal).collect();
    changes.sort_by_key(|c| c.tag() != ChangeTag::Insert);
    for change in changes {
        let line = match change.tag() {
            ChangeTag::Insert => new.1 + change.new_index().unwrap_or(0) as u32,
            _ => old.1 + change.old_index().unwrap_or(0) as u32,
        };
        let text = change.value();
        if RETURN.is_match(text) || (change.tag() == ChangeTag::Insert && tail == Some(line)) {
            add(EscapeKind::Return, "", line);
        }
        for c in RECEIVER_WRITE.captures_iter(text) {
            add(EscapeKind::Field, &c[1], line);
        }
        for (p, test) in &param_writes {
            if text.contains(p.as_str()) && test.matches(text) {
                add(EscapeKind::Parameter, p, line);
            }
        }
        for (g, test) in &global_writes {
            if text.contains(g) && test.matches(text) {
                add(EscapeKind::Global, g, line);
            }
        }
    }
    out.sort_by(|a, b| (a.kind, a.line, &a.name).cmp(&(b.kind, b.line, &b.name)));
    out
}

fn with_newline(text: &str) -> String {
    if text.ends_with('\n') { text.to_string() } else { format!("{text}\n") }
}

/// A test of whether a line writes to `name`: through a member, an index,
/// a mutating call (`object`), or by assigning the name itself (a global;
/// not a parameter, whose rebinding the caller never sees). Compiled once
/// per name, not per line.
struct Writes {
    re: Regex,
    object: bool,
}

impl Writes {
    fn new(name: &str, object: bool) -> Option<Writes> {
        let name = regex::escape(name);
        let pattern = if object {
            format!(
                r"(?:^|[^\w.])\*?{name}\s*(?:(?:\.|->)\s*\w+\s*|\[[^\]]*\]\s*)+(?:{ASSIGN})|(?:^|[^\w.]){name}\s*\.\s*(?:{MUTATORS})\s*\(|^\s*\*{name}\s*{ASSIGN}"
            )
        } else {
            format!(r"(?:^|[^\w.])({name})\s*(?:{ASSIGN})")
        };
        Regex::new(&pattern).ok().map(|re| Writes { re, object })
    }

    fn matches(&self, line: &str) -> bool {
        if self.object {
            return self.re.is_match(line);
        }
        self.re.captures_iter(line).any(|c| c.get(1).is_some_and(|m| !DECLARES.is_match(&line[..m.start()])))
    }
}

/// Parameter names, without the receiver.
fn parameters(language: Language, signature: &str) -> Vec<String> {
    // A Go method's receiver comes first: `func (s *Server) f(w, r)`.
    let skip = match (language, signature.trim_start().strip_prefix("func")) {
        (Language::Go, Some(rest)) if rest.trim_start().starts_with('(') => signature.find(')').map_or(0, |i| i + 1),
        _ => 0,
    };
    let Some(open) = signature[skip..].find('(').map(|i| i + skip) else { return Vec::new() };
    let mut depth = 0;
    let mut end = signature.len();
    // `=>` and `->` close nothing.
    let arrow = |text: &str, i: usize| i > 0 && matches!(text.as_bytes()[i - 1], b'=' | b'-');
    for (i, ch) in signature[open..].char_indices() {
        match ch {
            '>' if arrow(&signature[open..], i) => {}
            '(' | '[' | '<' | '{' => depth += 1,
            ')' | ']' | '>' | '}' => {
                depth -= 1;
                if depth == 0 {
                    end = open + i;
                    break;
                }
            }
            _ => {}
        }
    }
    let inner = &signature[open + 1..end];
    let mut pieces = Vec::new();
    let (mut depth, mut from) = (0, 0);
    for (i, ch) in inner.char_indices() {
        match ch {
            '>' if arrow(inner, i) => {}
            '(' | '[' | '<' | '{' => depth += 1,
            ')' | ']' | '>' | '}' => depth -= 1,
            ',' if depth == 0 => {
                pieces.push(&inner[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    pieces.push(&inner[from..]);
    let ident = |s: &str| -> Vec<String> {
        s.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).map(str::to_string).collect()
    };
    const NOT_NAMES: &[&str] = &[
        "self",
        "this",
        "cls",
        "mut",
        "ref",
        "const",
        "final",
        "readonly",
        "public",
        "private",
        "protected",
        "out",
        "in",
        "params",
        "var",
        "let",
    ];
    pieces
        .iter()
        .filter_map(|piece| {
            let piece = piece.split('=').next().unwrap_or("");
            let words: Vec<String> = match piece.find(':') {
                // `name: Type` (Python, Rust, TypeScript, Swift, Kotlin).
                Some(colon) => ident(&piece[..colon]),
                None if matches!(language, Language::Go) => ident(piece).into_iter().take(1).collect(),
                // `Type name` (C, Java, C#), or a bare name.
                None => ident(piece).into_iter().last().into_iter().collect(),
            };
            words.into_iter().rev().find(|w| !NOT_NAMES.contains(&w.as_str()) && !w.chars().next().is_some_and(|c| c.is_ascii_digit()))
        })
        .collect()
}

/// In languages whose blocks end in a value (Rust, Ruby), the index of the
/// body's last line when it is an expression: the function's result.
fn tail_expression(language: Language, body: &str) -> Option<usize> {
    if !matches!(language, Language::Rust | Language::Ruby | Language::Scala | Language::Elixir) {
        return None;
    }
    let lines: Vec<&str> = body.lines().collect();
    let (i, last) = lines.iter().enumerate().rev().find(|(_, l)| {
        let t = l.trim();
        !t.is_empty() && t != "}" && t != "end"
    })?;
    let t = last.trim();
    (!t.ends_with(';') && !t.ends_with('{') && !t.starts_with("//")).then_some(i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    #[test]
    fn parameter_names_in_each_spelling() {
        let cases = [
            (Language::Python, "def f(self, a, b: int = 1, *args, **kw)"),
            (Language::Rust, "pub fn f(&mut self, items: &mut Vec<u8>, n: usize) -> usize"),
            (Language::TypeScript, "f(this: Foo, opts?: Options, cb: (e: Error) => void)"),
            (Language::Java, "public void f(final List<String> sink, int n)"),
            (Language::Go, "func (s *Server) f(w http.ResponseWriter, r *http.Request)"),
        ];
        let lines: Vec<String> = cases.iter().map(|(l, s)| format!("{l}: {:?}", parameters(*l, s))).collect();
        expect![[r#"
            python: ["a", "b", "args", "kw"]
            rust: ["items", "n"]
            typescript: ["opts", "cb"]
            java: ["sink", "n"]
            go: ["w", "r"]"#]]
        .assert_eq(&lines.join("\n"));
    }
}
