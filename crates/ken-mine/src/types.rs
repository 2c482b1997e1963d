//! Type facts for receiver type inference: typed parameters and variables,
//! assignments from calls, and declared return types. They are raw text; the
//! graph layer resolves them against the repository.

use crate::references::{clean, clean_expression, enclosing_symbols};
use crate::symbols::Mined;
use crate::{Source, line_col};
use ken_core::{Binding, BindingSource, Symbol, SymbolKind};
use ken_lang::LanguageConfig;
use tree_sitter::{Node, QueryCursor, StreamingIterator};

/// Mines bindings and sets `return_type` on the symbols that declare one.
pub(crate) fn mine(config: &LanguageConfig, src: &Source, root: Node, mined: &Mined, symbols: &mut [Symbol]) -> Vec<Binding> {
    let Some(query) = &config.types else { return Vec::new() };
    let names = query.capture_names();
    let mut found: Vec<(u32, Binding)> = Vec::new();
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, root, src.text.as_bytes());
    while let Some(m) = matches.next() {
        let (mut binding, mut returns, mut name, mut ty, mut value, mut alias) = (None, None, None, None, None, None);
        for cap in m.captures {
            match names[cap.index as usize] {
                "binding" => binding = Some(cap.node),
                "returns" => returns = Some(cap.node),
                "name" => name = Some(cap.node),
                "type" => ty = Some(cap.node),
                "value" => value = Some(cap.node),
                "alias" => alias = Some(cap.node),
                _ => {}
            }
        }
        if let (Some(def), Some(ty)) = (returns, ty) {
            if let Some(&sym) = mined.def_starts.get(&(def.start_byte() as u32))
                && let Some(s) = symbols.get_mut(sym as usize)
            {
                s.return_type.get_or_insert_with(|| clean(src.node(ty)));
            }
            continue;
        }
        let (Some(at), Some(name)) = (binding, name) else { continue };
        let (type_node, source) = match (ty, value, alias) {
            (Some(t), _, _) => (t, BindingSource::Annotation),
            (None, Some(v), _) => (v, BindingSource::CallResult),
            (None, None, Some(a)) => (a, BindingSource::Alias),
            _ => continue,
        };
        let type_text = match source {
            BindingSource::Annotation => clean(src.node(type_node)),
            // An expression: its callees are what the resolver follows.
            BindingSource::CallResult | BindingSource::Alias => clean_expression(src.node(type_node)),
        };
        let name = clean(src.node(name));
        if type_text.is_empty() || name.is_empty() {
            continue;
        }
        let (line, _) = line_col(at.start_position());
        found.push((name_byte(at), Binding { scope: 0, name, type_text, source, line }));
    }
    found.sort_by_key(|(byte, _)| *byte);
    found.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
    let scopes = enclosing_symbols(found.iter().map(|(byte, _)| *byte), &mined.regions);
    found
        .into_iter()
        .zip(scopes)
        .map(|((_, mut b), mut scope)| {
            // A typed field or constant belongs to the scope that declares it.
            while let Some(s) = symbols.get(scope as usize) {
                match (s.kind, s.parent) {
                    (SymbolKind::Field | SymbolKind::Constant, Some(parent)) => scope = parent,
                    _ => break,
                }
            }
            b.scope = scope;
            b
        })
        .collect()
}

fn name_byte(node: Node) -> u32 {
    node.start_byte() as u32
}
