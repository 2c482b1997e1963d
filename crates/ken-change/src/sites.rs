//! How far a reference's expression reaches. A call's site is the callee's
//! name, but a checker flags the argument that no longer fits, often on a
//! later line of the call (`raise TooManyRedirects(\n    msg, response=resp)`,
//! a lambda passed to a renamed operator). So a callee's site spans its call.

use crate::edit::parse_tree;
use ken_core::Language;
use tree_sitter::{Node, Point, Tree};

/// The lines a site reaches, 1-based and inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start_line: u32,
    pub end_line: u32,
}

/// For each `(line, col)` site (1-based) in `source`, the call it belongs
/// to where that call spans lines: a callee's site reaches the call's last
/// line (the argument that no longer fits); a value passed as an argument
/// starts at the call (`warnings.warn(\n    msg,\n    Warning)`: an
/// overloaded callee is flagged where the call starts). A Rust `match`'s
/// scrutinee reaches its arms. `None` for a site in no call, or in a call
/// on one line.
pub fn call_spans(language: Language, source: &str, sites: &[(u32, u32)]) -> Vec<Option<Span>> {
    match parse_tree(language, source) {
        Some(tree) => sites.iter().map(|&(line, col)| call_span(&tree, line, col)).collect(),
        None => vec![None; sites.len()],
    }
}

fn call_span(tree: &Tree, line: u32, col: u32) -> Option<Span> {
    let point = Point { row: line.checked_sub(1)? as usize, column: col.saturating_sub(1) as usize };
    let name: Node = tree.root_node().descendant_for_point_range(point, point)?;
    // The nearest call around the name: its callee when the name comes
    // before the arguments (`a.b.f(…)`, `new C(…)`, `super(…)`); an
    // argument when the name is one of them, whole (`f(x)`, `f(key=x)`).
    let mut node = name;
    for _ in 0..8 {
        node = node.parent()?;
        // Rust's `match &self.kind { … }`: the arms' patterns take their
        // types from the scrutinee, so they break with it.
        if node.kind() == "match_expression" {
            let last = node.end_position().row as u32 + 1;
            let scrutinee = node.child_by_field_name("value")?;
            let inside = scrutinee.start_position() <= point && point < scrutinee.end_position();
            return (inside && last > line).then_some(Span { start_line: line, end_line: last });
        }
        let Some(arguments) = node.child_by_field_name("arguments") else { continue };
        let (first, last) = (node.start_position().row as u32 + 1, node.end_position().row as u32 + 1);
        if point < arguments.start_position() {
            return (last > line).then_some(Span { start_line: line, end_line: last });
        }
        let holder = name.parent().filter(|p| p.kind() == "keyword_argument").unwrap_or(name);
        let whole = holder.parent().is_some_and(|p| p.id() == arguments.id());
        return (whole && first < line).then_some(Span { start_line: first, end_line: line });
    }
    None
}

/// A struct literal a site names: Rust's `Version { major, .. }`, Go's
/// `Version{Major: 1}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Literal {
    /// The line of its initializer of the field asked about (`major: 1`,
    /// shorthand `major`), if it names it.
    pub field_line: Option<u32>,
    /// It takes the fields it does not name from another value (`..base`).
    pub spreads: bool,
}

/// For each `(line, col)` site (1-based), the struct literal it names, with
/// what it says of `field`; `None` where the site is no literal.
pub fn struct_literals(language: Language, source: &str, sites: &[(u32, u32)], field: &str) -> Vec<Option<Literal>> {
    match parse_tree(language, source) {
        Some(tree) => sites.iter().map(|&(line, col)| struct_literal(&tree, source, line, col, field)).collect(),
        None => vec![None; sites.len()],
    }
}

fn struct_literal(tree: &Tree, source: &str, line: u32, col: u32, field: &str) -> Option<Literal> {
    let point = Point { row: line.checked_sub(1)? as usize, column: col.saturating_sub(1) as usize };
    let mut node: Node = tree.root_node().descendant_for_point_range(point, point)?;
    for _ in 0..6 {
        if matches!(node.kind(), "struct_expression" | "composite_literal") {
            break;
        }
        node = node.parent()?;
    }
    let body = node.child_by_field_name("body")?;
    let mut cursor = body.walk();
    let mut literal = Literal { field_line: None, spreads: false };
    for init in body.named_children(&mut cursor) {
        let name = match init.kind() {
            "field_initializer" => init.child_by_field_name("field"),
            "shorthand_field_initializer" | "keyed_element" => init.named_child(0),
            "base_field_initializer" => {
                literal.spreads = true;
                None
            }
            _ => None,
        };
        if literal.field_line.is_none() && name.is_some_and(|n| source[n.byte_range()].trim() == field) {
            literal.field_line = Some(init.start_position().row as u32 + 1);
        }
    }
    Some(literal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{Expect, expect};

    /// `source` with each site marked `$` before its name: the end line each gets.
    fn check(language: Language, marked: &str, expect: Expect) {
        let mut sites = Vec::new();
        let mut source = String::new();
        for (i, line) in marked.lines().enumerate() {
            let mut clean = String::new();
            for (j, part) in line.split('$').enumerate() {
                if j > 0 {
                    sites.push((i as u32 + 1, clean.len() as u32 + 1));
                }
                clean.push_str(part);
            }
            source.push_str(&clean);
            source.push('\n');
        }
        let spans = call_spans(language, &source, &sites);
        let shown: Vec<String> = sites.iter().zip(spans).map(|((l, c), s)| format!("{l}:{c} -> {s:?}")).collect();
        expect.assert_eq(&shown.join("\n"));
    }

    #[test]
    fn a_callee_spans_its_call_and_an_argument_starts_at_it() {
        check(
            Language::Python,
            "raise $TooManyRedirects(\n    f\"{n} redirects\", response=resp\n)\nwarnings.$warn(msg, $Warning)\nx = $f(1)\nwarnings.warn(\n    \"slow\",\n    $Warning,\n    key=$value,\n    x=[$inner],\n)\n",
            expect![[r#"
                1:7 -> Some(Span { start_line: 1, end_line: 3 })
                4:10 -> None
                4:20 -> None
                5:5 -> None
                8:5 -> Some(Span { start_line: 6, end_line: 8 })
                9:9 -> Some(Span { start_line: 6, end_line: 9 })
                10:8 -> None"#]],
        );
        check(
            Language::Rust,
            "fn f(&self) {\n    match &self.$kind {\n        Kind::A(ch) => g(*ch),\n    }\n    let k = h(&self.$kind);\n}\n",
            expect![[r#"
                2:17 -> Some(Span { start_line: 2, end_line: 4 })
                5:21 -> None"#]],
        );
        check(
            Language::TypeScript,
            "source.$pipe(\n  $map((x) => x),\n);\nconst s = new $AsapScheduler(\n  AsapAction);\n$super(a,\n  b);\n",
            expect![[r#"
                1:8 -> Some(Span { start_line: 1, end_line: 3 })
                2:3 -> None
                4:15 -> Some(Span { start_line: 4, end_line: 5 })
                6:1 -> Some(Span { start_line: 6, end_line: 7 })"#]],
        );
    }
}
