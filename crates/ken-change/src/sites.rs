//! How far a reference's expression reaches. A call's site is the callee's
//! name, but a checker flags the argument that no longer fits, often on a
//! later line of the call (`raise TooManyRedirects(\n    msg, response=resp)`,
//! a lambda passed to a renamed operator). So a callee's site spans its call.

use crate::edit::parse_tree;
use ken_core::Language;
use tree_sitter::{Node, Point, Tree};

/// For each `(line, col)` site (1-based) in `source`, the last line of the
/// call whose callee it names, where that is a later line; `None` for a
/// site that names no callee (an argument, a field read) or a one-line call.
pub fn call_end_lines(language: Language, source: &str, sites: &[(u32, u32)]) -> Vec<Option<u32>> {
    match parse_tree(language, source) {
        Some(tree) => sites.iter().map(|&(line, col)| call_end_line(&tree, line, col)).collect(),
        None => vec![None; sites.len()],
    }
}

fn call_end_line(tree: &Tree, line: u32, col: u32) -> Option<u32> {
    let point = Point { row: line.checked_sub(1)? as usize, column: col.saturating_sub(1) as usize };
    let mut node: Node = tree.root_node().descendant_for_point_range(point, point)?;
    // The nearest call around the name: its callee when the name comes
    // before the arguments (`a.b.f(…)`, `new C(…)`, `super(…)`).
    for _ in 0..8 {
        node = node.parent()?;
        let Some(arguments) = node.child_by_field_name("arguments") else { continue };
        if point >= arguments.start_position() {
            return None;
        }
        let end = node.end_position().row as u32 + 1;
        return (end > line).then_some(end);
    }
    None
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
        let ends = call_end_lines(language, &source, &sites);
        let shown: Vec<String> = sites.iter().zip(ends).map(|((l, c), e)| format!("{l}:{c} -> {e:?}")).collect();
        expect.assert_eq(&shown.join("\n"));
    }

    #[test]
    fn a_callee_spans_its_call_and_an_argument_does_not() {
        check(
            Language::Python,
            "raise $TooManyRedirects(\n    f\"{n} redirects\", response=resp\n)\nwarnings.$warn(msg, $Warning)\nx = $f(1)\n",
            expect![[r#"
                1:7 -> Some(3)
                4:10 -> None
                4:20 -> None
                5:5 -> None"#]],
        );
        check(
            Language::TypeScript,
            "source.$pipe(\n  $map((x) => x),\n);\nconst s = new $AsapScheduler(\n  AsapAction);\n$super(a,\n  b);\n",
            expect![[r#"
                1:8 -> Some(3)
                2:3 -> None
                4:15 -> Some(5)
                6:1 -> Some(7)"#]],
        );
    }
}
