//! Rust items written inside item-position macros: `cfg_rt! { pub fn
//! spawn… }`, `pin_project! { pub struct … }`. tree-sitter reads a macro's
//! body as a flat run of tokens, so without this tokio's runtime API, which
//! is almost all behind `cfg_*!` wrappers, has no symbols, no calls and no
//! docs.
//!
//! A brace-delimited invocation in item position (a file, a module, an
//! `impl` or a trait) whose body parses as items is unwrapped in place: its
//! name and braces become spaces, and the file is parsed again; `cfg_if!`
//! keeps the items of each of its branches. Positions
//! stay the file's, and the items join the scope around the macro, so an
//! impl's methods stay its methods. A body that is not items
//! (`bitflags!`'s `struct F: u32`, `quote!`'s `#name`, `select!`'s arms)
//! stays tokens; `lazy_static!`'s `static ref` parses, so it is a static.

use tree_sitter::{Node, Parser, Tree};

/// Wrappers nest (`cfg_rt! { cfg_net! { … } }`): each round unwraps one level.
const ROUNDS: usize = 4;

/// Where a macro's body may hold items.
const ITEM_SCOPES: &[&str] = &["source_file", "declaration_list"];

/// What a body may not hold to count as items: code that runs.
const NOT_ITEMS: &[&str] = &["expression_statement", "let_declaration"];

/// The tree of the source with every item-position macro around items
/// blanked out; `None` when the file has no such macro.
pub(crate) fn unwrap_item_macros(parser: &mut Parser, source: &str, tree: &Tree) -> Option<Tree> {
    let mut code: Option<(Vec<u8>, Tree)> = None;
    for _ in 0..ROUNDS {
        let current = code.as_ref().map_or(tree, |(_, t)| t);
        let text = code.as_ref().map_or(source.as_bytes(), |(c, _)| c.as_slice());
        let wrappers = item_wrappers(parser, text, current.root_node());
        if wrappers.is_empty() {
            break;
        }
        let mut blanked = text.to_vec();
        for (start, end) in wrappers {
            blank(&mut blanked[start..end]);
        }
        let reparsed = parser.parse(&blanked, None)?;
        code = Some((blanked, reparsed));
    }
    code.map(|(_, tree)| tree)
}

/// The spans to blank of each unwrappable invocation: its head (`name! {`)
/// and closing brace, or for `cfg_if!` all but its branches' bodies.
fn item_wrappers(parser: &mut Parser, text: &[u8], root: Node) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let mut stack = vec![root];
    let mut cursor = root.walk();
    while let Some(node) = stack.pop() {
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "macro_invocation" if ITEM_SCOPES.contains(&node.kind()) => found.extend(wrapper(parser, text, child)),
                // Items nest in modules, impls and traits (their `declaration_list`).
                "mod_item" | "impl_item" | "trait_item" | "declaration_list" => stack.push(child),
                _ => {}
            }
        }
    }
    found
}

fn wrapper(parser: &mut Parser, text: &[u8], invocation: Node) -> Vec<(usize, usize)> {
    let mut cursor = invocation.walk();
    let Some(body) = invocation.named_children(&mut cursor).find(|c| c.kind() == "token_tree") else { return Vec::new() };
    let name = invocation.child_by_field_name("macro").map(|m| m.child_by_field_name("name").unwrap_or(m));
    let kept: Vec<(usize, usize)> = if name.is_some_and(|n| &text[n.byte_range()] == b"cfg_if") {
        // `if #[cfg(unix)] { … } else { … }`: every branch's items, as a
        // grep would find them; the conditions and `else`s become spaces.
        let mut cursor = body.walk();
        body.named_children(&mut cursor).filter_map(|branch| items_inside(parser, text, branch)).collect()
    } else {
        items_inside(parser, text, body).into_iter().collect()
    };
    if kept.is_empty() {
        return Vec::new();
    }
    let mut spans = Vec::with_capacity(kept.len() + 1);
    let mut at = invocation.start_byte();
    for (start, end) in kept {
        spans.push((at, start));
        at = end;
    }
    spans.push((at, invocation.end_byte()));
    spans
}

/// The interior of a brace-delimited token tree whose text parses as items.
fn items_inside(parser: &mut Parser, text: &[u8], tree: Node) -> Option<(usize, usize)> {
    let (open, close) = (tree.start_byte(), tree.end_byte().checked_sub(1)?);
    if tree.kind() != "token_tree" || text.get(open) != Some(&b'{') || text.get(close) != Some(&b'}') || close <= open {
        return None;
    }
    let inner = parser.parse(&text[open + 1..close], None)?;
    let root = inner.root_node();
    let mut cursor = root.walk();
    let items =
        root.named_child_count() > 0 && !root.has_error() && root.named_children(&mut cursor).all(|c| !NOT_ITEMS.contains(&c.kind()));
    items.then_some((open + 1, close))
}

/// Spaces for every byte but newlines, so lines and columns stay put.
fn blank(span: &mut [u8]) {
    for b in span.iter_mut().filter(|b| **b != b'\n') {
        *b = b' ';
    }
}
