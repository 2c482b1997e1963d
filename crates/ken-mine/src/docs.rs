//! Docstrings and doc comments, cleaned of their comment syntax.

use crate::Source;
use ken_core::docstring::{clean_doc, strip_comment};
use ken_lang::{DocStyle, LanguageConfig};
use tree_sitter::Node;

/// The documentation of a definition. `def` is the definition node and
/// `outer` the node its span starts at (decorators and attributes included).
pub(crate) fn doc_for(config: &LanguageConfig, src: &Source, def: Node, outer: Node) -> Option<String> {
    match config.doc_style {
        DocStyle::FirstStringInBody => {
            let body = def.child_by_field_name("body").unwrap_or(def);
            python_docstring(src, body)
        }
        DocStyle::PrecedingComments => preceding_comments(config, src, outer),
        DocStyle::PrecedingString => preceding_string(src, outer).or_else(|| preceding_comments(config, src, outer)),
    }
}

/// A string literal right before the definition (a Julia docstring), with
/// no blank line between them.
fn preceding_string(src: &Source, outer: Node) -> Option<String> {
    let prev = outer.prev_named_sibling()?;
    if !prev.kind().contains("string") || prev.end_position().row + 1 < outer.start_position().row {
        return None;
    }
    let raw = src.node(prev);
    let inner = ["\"\"\"", "\""].iter().find_map(|q| raw.strip_prefix(q).and_then(|r| r.strip_suffix(q)))?;
    let doc = clean_doc(inner);
    (!doc.is_empty()).then_some(doc)
}

/// Docstring of a Python block or module: a string as its first statement.
pub(crate) fn python_docstring(src: &Source, block: Node) -> Option<String> {
    let mut cursor = block.walk();
    let first = block.named_children(&mut cursor).find(|n| n.kind() != "comment")?;
    if first.kind() != "expression_statement" {
        return None;
    }
    let string = first.named_child(0)?;
    if string.kind() != "string" && string.kind() != "concatenated_string" {
        return None;
    }
    Some(ken_core::docstring::python_docstring(src.node(string)))
}

/// Comments right above `outer`, with no blank line between them.
fn preceding_comments(config: &LanguageConfig, src: &Source, outer: Node) -> Option<String> {
    let mut lines: Vec<&str> = Vec::new();
    let mut next_start_row = outer.start_position().row;
    let mut sibling = outer.prev_sibling();
    while let Some(node) = sibling {
        let kind = node.kind();
        let is_comment = kind.contains("comment") || kind == "haddock";
        if !is_comment && !config.decorator_kinds.contains(&kind) {
            break;
        }
        // Line comments may own their newline, ending at column 0 of the next row.
        let end = node.end_position();
        let end_row = if end.column == 0 && end.row > node.start_position().row { end.row - 1 } else { end.row };
        if end_row + 1 < next_start_row {
            break; // a blank line ends the doc block
        }
        if is_comment {
            lines.push(src.node(node));
        }
        next_start_row = node.start_position().row;
        sibling = node.prev_sibling();
    }
    if lines.is_empty() {
        return None;
    }
    lines.reverse();
    let text: Vec<String> = lines.iter().flat_map(|c| strip_comment(c)).collect();
    let doc = clean_doc(&text.join("\n"));
    (!doc.is_empty()).then_some(doc)
}
