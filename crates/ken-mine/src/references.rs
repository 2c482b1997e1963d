//! Raw references: calls, imports, base classes, instantiations and field
//! uses, as written and unresolved. The graph layer resolves them.

use crate::symbols::Mined;
use crate::{Source, line_col};
use ken_core::{RawReference, RefKind};
use ken_lang::LanguageConfig;
use rustc_hash::FxHashSet;
use tree_sitter::{Node, QueryCursor, StreamingIterator};

const MAX_QUALIFIER: usize = 120;

struct Found {
    reference: RawReference,
    byte: u32,
    /// The node a field use is anchored at; other kinds anchor their name and callee.
    node: usize,
}

pub(crate) fn mine(config: &LanguageConfig, src: &Source, root: Node, mined: &Mined) -> Vec<RawReference> {
    let Some(query) = &config.references else { return Vec::new() };
    let names = query.capture_names();
    let mut found: Vec<Found> = Vec::new();
    // Nodes that are already a call's callee, an import or a base class, so
    // the same `a.b` is not counted again as a field use.
    let mut anchored: FxHashSet<usize> = FxHashSet::default();
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, root, src.text.as_bytes());
    while let Some(m) = matches.next() {
        let mut kind = None;
        let (mut ref_node, mut name, mut receiver, mut path, mut alias) = (None, None, None, None, None);
        let mut glob = false;
        // A repeated capture over siblings (`path: (identifier)+ @path`, a
        // Scala import's flat path) spans from the first node to the last.
        let (mut name_last, mut path_last) = (None, None);
        for cap in m.captures {
            match names[cap.index as usize] {
                "name" => extend(&mut name, &mut name_last, cap.node),
                "receiver" => receiver = Some(cap.node),
                "path" => extend(&mut path, &mut path_last, cap.node),
                "alias" => alias = Some(cap.node),
                "glob" => glob = true,
                "callee" => {
                    anchored.insert(cap.node.id());
                }
                other => {
                    if let Some(k) = other.strip_prefix("reference.").and_then(RefKind::parse) {
                        kind = Some(k);
                        ref_node = Some(cap.node);
                    }
                }
            }
        }
        let (Some(kind), Some(ref_node)) = (kind, ref_node) else { continue };
        if kind != RefKind::FieldUse
            && let Some(n) = name
        {
            anchored.insert(n.id());
        }
        let alias = alias.map(|a| clean(src.node(a)));
        if kind == RefKind::Import && name.is_none() {
            if let Some(path) = path {
                if config.language == ken_core::Language::Rust {
                    expand_use_tree(src, path, None, alias.as_deref(), &mut found, ref_node.id(), 0);
                } else if glob {
                    // Every public name of the module (Haskell `import A.B`, Elixir `import A.B`).
                    push(&mut found, kind, "*".to_string(), Some(clean(span(src, path, path_last))), alias, path, ref_node.id());
                } else {
                    let module = clean(span(src, path, path_last));
                    push(&mut found, kind, module, None, alias, path, ref_node.id());
                }
            }
            continue;
        }
        let Some(name_node) = name else { continue };
        let mut text = clean(span(src, name_node, name_last));
        let mut qualifier =
            receiver.map(|n| clean_expression(src.node(n))).or_else(|| path.map(|n| clean_expression(span(src, n, path_last))));
        // Imports split too where a package path is one flat node (Kotlin's
        // `import a.b.C` names member C of package a.b, as Java's does).
        let splits = kind != RefKind::Import || config.language.scoping() == ken_core::Scoping::Java;
        if splits
            && qualifier.is_none()
            && let Some((q, last)) = split_qualified(&text)
        {
            qualifier = Some(q.to_string());
            text = last.to_string();
        }
        if text.is_empty() {
            continue;
        }
        push(&mut found, kind, text, qualifier, alias, name_node, ref_node.id());
    }

    found.retain(|f| f.reference.kind != RefKind::FieldUse || !anchored.contains(&f.node));
    if matches!(config.language.scoping(), ken_core::Scoping::Python | ken_core::Scoping::Js) {
        // A bare name read (no receiver) counts where it names one of the
        // file's definitions or imports; other bare names are locals, and as
        // raw references they would only weigh on the index.
        let bound: FxHashSet<String> =
            mined
                .symbols
                .iter()
                .map(|s| s.name.clone())
                // `from m import x [as y]` binds x (or y); `import a.b` binds a;
                // `import {x as y}` binds y.
                .chain(found.iter().filter(|f| f.reference.kind == RefKind::Import).map(|f| {
                    f.reference.alias.clone().unwrap_or_else(|| f.reference.name.split('.').next().unwrap_or_default().to_string())
                }))
                .collect();
        found.retain(|f| f.reference.kind != RefKind::FieldUse || f.reference.qualifier.is_some() || bound.contains(&f.reference.name));
    }
    // A definition's own name is not a use of it: Elixir's `def add(x)` head
    // parses as a call of `add`.
    found.retain(|f| f.reference.kind != RefKind::Call || !mined.name_positions.contains(&(f.reference.line, f.reference.col)));
    found.sort_by_key(|f| (f.byte, f.reference.kind));
    found.dedup_by(|a, b| a.byte == b.byte && a.reference == b.reference);
    assign_enclosing(&mut found, &mined.regions);
    found.into_iter().map(|f| f.reference).collect()
}

fn push(found: &mut Vec<Found>, kind: RefKind, name: String, qualifier: Option<String>, alias: Option<String>, at: Node, node: usize) {
    let (line, col) = line_col(at.start_position());
    found.push(Found {
        reference: RawReference { kind, name, qualifier, alias, line, col, enclosing: 0 },
        byte: at.start_byte() as u32,
        node,
    });
}

/// One import per leaf of a Rust `use` tree.
fn expand_use_tree(src: &Source, node: Node, prefix: Option<&str>, alias: Option<&str>, found: &mut Vec<Found>, id: usize, nesting: u32) {
    // Real use trees nest a few levels; a generated one must not overflow the stack.
    if nesting > 64 {
        return;
    }
    let join = |p: Option<&str>, rest: &str| match p {
        Some(p) if !p.is_empty() => format!("{p}::{rest}"),
        _ => rest.to_string(),
    };
    match node.kind() {
        "scoped_identifier" => {
            let qualifier = node.child_by_field_name("path").map(|p| join(prefix, &clean(src.node(p))));
            let at = node.child_by_field_name("name").unwrap_or(node);
            let qualifier = qualifier.or_else(|| prefix.map(str::to_string));
            push(found, RefKind::Import, clean(src.node(at)), qualifier, alias.map(str::to_string), at, id);
        }
        "use_as_clause" => {
            let alias = node.child_by_field_name("alias").map(|a| clean(src.node(a)));
            if let Some(path) = node.child_by_field_name("path") {
                expand_use_tree(src, path, prefix, alias.as_deref(), found, id, nesting + 1);
            }
        }
        "scoped_use_list" => {
            let inner = match node.child_by_field_name("path") {
                Some(p) => join(prefix, &clean(src.node(p))),
                None => prefix.unwrap_or("").to_string(),
            };
            if let Some(list) = node.child_by_field_name("list") {
                expand_use_tree(src, list, Some(&inner), None, found, id, nesting + 1);
            }
        }
        "use_list" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                expand_use_tree(src, child, prefix, None, found, id, nesting + 1);
            }
        }
        "use_wildcard" => {
            let qualifier = node.named_child(0).map(|p| join(prefix, &clean(src.node(p))));
            push(found, RefKind::Import, "*".to_string(), qualifier.or(prefix.map(str::to_string)), None, node, id);
        }
        _ => {
            let text = clean(src.node(node));
            if !text.is_empty() && !node.kind().contains("comment") {
                push(found, RefKind::Import, text, prefix.map(str::to_string), alias.map(str::to_string), node, id);
            }
        }
    }
}

/// `a.b.c` or `a::b::c` into (`a.b`, `c`).
/// The text from `first` to `last` (the same node when it is alone).
fn span<'a>(src: &Source<'a>, first: Node, last: Option<Node>) -> &'a str {
    src.slice(first.start_byte(), last.map_or(first.end_byte(), |l| l.end_byte().max(first.end_byte())))
}

/// Records a capture: a repeat over following siblings extends the span,
/// anything else replaces it.
fn extend<'t>(first: &mut Option<Node<'t>>, last: &mut Option<Node<'t>>, node: Node<'t>) {
    let siblings = first.zip(*last).is_some_and(|(f, l)| f.parent() == node.parent() && l.end_byte() <= node.start_byte());
    if !siblings {
        *first = Some(node);
    }
    *last = Some(node);
}

fn split_qualified(text: &str) -> Option<(&str, &str)> {
    let dot = text.rfind('.').map(|i| (i, 1));
    let colons = text.rfind("::").map(|i| (i, 2));
    let backslash = text.rfind('\\').map(|i| (i, 1));
    let (i, len) = [dot, colons, backslash].into_iter().flatten().max_by_key(|(i, _)| *i)?;
    let (q, last) = (&text[..i], &text[i + len..]);
    (!q.is_empty() && !last.is_empty()).then_some((q, last))
}

pub(crate) fn clean(text: &str) -> String {
    // Quotes around a name (`"./util"`, `` `type` ``), not a prime in one
    // (Haskell's `decode'`).
    let text = text.trim();
    let text = if text.starts_with(['"', '\'', '`']) { text.trim_matches(|c| c == '"' || c == '\'' || c == '`') } else { text };
    // A qualifier written with its dot (Haskell's `Map.` in `Map.insert`),
    // but not a relative import's dots (`..`).
    let text = match text.strip_suffix('.') {
        Some(head) if !head.is_empty() && !head.ends_with('.') => head,
        _ => text,
    };
    let mut out: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if out.len() > MAX_QUALIFIER {
        let mut cut = MAX_QUALIFIER;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push('…');
    }
    out
}

/// An expression as [`clean`] keeps it, without its calls' arguments:
/// `SearcherBuilder::new()\n    .line_number(false)\n    .build()` reads
/// `SearcherBuilder::new().line_number().build()`. The resolver follows a
/// receiver by its callees, never their arguments; kept, they made most of
/// a builder-heavy crate's references, and cut at [`MAX_QUALIFIER`] a long
/// chain could not be followed at all. Text whose parentheses do not pair
/// up is kept as written.
pub(crate) fn clean_expression(text: &str) -> String {
    clean(&without_arguments(text).unwrap_or_else(|| text.to_string()))
}

fn without_arguments(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut copied, mut i) = (0, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'(' if i > 0 && is_callee_end(bytes[i - 1]) => {
                let close = closing_paren(bytes, i)?;
                out.push_str(&text[copied..=i]);
                out.push(')');
                let next = chained_dot(bytes, close + 1).unwrap_or(close + 1);
                (copied, i) = (next, next);
            }
            // A string outside any call: skipped whole, its parentheses are no call's.
            quote @ (b'"' | b'\'' | b'`') => i = string_end(bytes, i, quote)? + 1,
            b')' if let Some(dot) = chained_dot(bytes, i + 1) => {
                out.push_str(&text[copied..=i]);
                (copied, i) = (dot, dot);
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    Some(out)
}

/// Whether a `(` after this byte calls something: a name, a call's result,
/// an index, generic arguments (`::<T>()`), a macro (`vec!()`) or a `?`.
fn is_callee_end(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b')' | b']' | b'>' | b'!' | b'?') || b >= 0x80
}

/// A chain written one call a line (`)\n    .build`): the dot after the
/// whitespace that follows a `)`, so it reads `).build`.
fn chained_dot(bytes: &[u8], from: usize) -> Option<usize> {
    let dot = from + bytes.get(from..)?.iter().position(|b| !b.is_ascii_whitespace())?;
    (dot > from && bytes[dot] == b'.').then_some(dot)
}

/// The `)` that closes the `(` at `open`, past nested pairs and strings.
fn closing_paren(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            quote @ (b'"' | b'\'' | b'`') => i = string_end(bytes, i, quote)?,
            _ => {}
        }
        i += 1;
    }
    None
}

/// The quote that ends the string opened at `open`, past escapes.
fn string_end(bytes: &[u8], open: usize, quote: u8) -> Option<usize> {
    let mut i = open + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b if b == quote => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// Sets each reference's innermost enclosing symbol.
fn assign_enclosing(found: &mut [Found], regions: &[(u32, u32, u32)]) {
    let enclosing = enclosing_symbols(found.iter().map(|f| f.byte), regions);
    for (f, e) in found.iter_mut().zip(enclosing) {
        f.reference.enclosing = e;
    }
}

/// The innermost symbol holding each of `bytes` (ascending), found by
/// sweeping the sorted, properly nested symbol regions; 0 is the module.
pub(crate) fn enclosing_symbols(bytes: impl Iterator<Item = u32>, regions: &[(u32, u32, u32)]) -> Vec<u32> {
    let mut stack: Vec<(u32, u32)> = Vec::new(); // (end, symbol)
    let mut next = 0;
    let mut out = Vec::new();
    for byte in bytes {
        while next < regions.len() && regions[next].0 <= byte {
            let (start, end, sym) = regions[next];
            while stack.last().is_some_and(|&(e, _)| e <= start) {
                stack.pop();
            }
            stack.push((end, sym));
            next += 1;
        }
        while stack.last().is_some_and(|&(e, _)| e <= byte) {
            stack.pop();
        }
        out.push(stack.last().map_or(0, |&(_, s)| s));
    }
    out
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    fn check(receiver: &str, expect: Expect) {
        expect.assert_eq(&super::clean_expression(receiver));
    }

    #[test]
    fn receivers_keep_their_callees_not_their_arguments() {
        check("self", expect!["self"]);
        check("self.config.path", expect!["self.config.path"]);
        check("Builder::new(cfg, 2)", expect!["Builder::new()"]);
        check("SearcherBuilder::new()\n    .line_number(false)\n    .build()", expect!["SearcherBuilder::new().line_number().build()"]);
        check("a.b(|x| x.c(1)).d[0].e(\")\")", expect!["a.b().d[0].e()"]);
        check("Vec::<(u8, u8)>::with_capacity(n)", expect!["Vec::<(u8, u8)>::with_capacity()"]);
        check("super(Base, self)", expect!["super()"]);
        check("(await fetch(url)).body", expect!["(await fetch()).body"]);
        check("format!(\"{}\", x)", expect!["format!()"]);
        check("s.split('(').next()", expect!["s.split().next()"]);
        check("a ? b : c", expect!["a ? b : c"]);
        // Unpaired (a cut, or a lifetime read as a quote): kept as written.
        check("f(a, b", expect!["f(a, b"]);
        check("f(&'a x)", expect!["f(&'a x)"]);
    }
}
