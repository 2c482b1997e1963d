//! Symbol mining: definitions from the `symbols.scm` query, nested by span
//! into qualified names, with kinds refined by context (a function in a class
//! is a method; `__init__` is a constructor).

use crate::naming::{Naming, naming, qualify};
use crate::{Source, docs, line_col};
use ken_core::{Span, Symbol, SymbolKind};
use ken_lang::{DocStyle, LanguageConfig};
use rustc_hash::{FxHashMap, FxHashSet};
use tree_sitter::{Node, QueryCursor, StreamingIterator};

/// What the symbol pass hands to the reference and chunk passes.
pub(crate) struct Mined {
    pub naming: Naming,
    pub declared_package: Option<String>,
    /// Index 0 is the file's module symbol.
    pub symbols: Vec<Symbol>,
    /// `(line, column)` of every definition's name, later clauses included:
    /// a name being defined is not a use of it.
    pub name_positions: FxHashSet<(u32, u32)>,
    /// Ids of nodes that start a definition (the definition itself and its
    /// decorated wrapper), for the chunker.
    pub definition_nodes: FxHashSet<usize>,
    /// Start byte of each definition node to its symbol, for attaching return types.
    pub def_starts: FxHashMap<u32, u32>,
    /// `(start_byte, end_byte, symbol)` for every region owned by a symbol,
    /// outermost first. Rust `impl` blocks count as their type's region.
    pub regions: Vec<(u32, u32, u32)>,
}

struct Entry<'t> {
    /// `None` for a scope that is not a symbol (a Rust `impl`).
    kind: Option<SymbolKind>,
    /// A namespace: it names what it holds, but its functions stay functions.
    namespace: bool,
    /// Where the definition ends: its last clause's end (Haskell equations).
    end: Node<'t>,
    /// The first clause of the same function, when this is a later one.
    clause_of: Option<usize>,
    name: String,
    receiver: Option<String>,
    def: Node<'t>,
    outer: Node<'t>,
    outer_start: tree_sitter::Point,
    outer_start_byte: usize,
    name_pos: tree_sitter::Point,
    local_path: String,
    parent: Option<usize>,
}

pub(crate) fn module_symbol(naming: &Naming, source: &str, lines: u32) -> Symbol {
    let name = naming.module.rsplit(['.', '/', ':', '\\']).next().unwrap_or(&naming.module).to_string();
    let last_len = source.rsplit('\n').next().map_or(0, str::len) as u32;
    Symbol {
        kind: SymbolKind::Module,
        name,
        local_path: String::new(),
        qualified_name: naming.module.clone(),
        signature: String::new(),
        docstring: None,
        span: Span {
            start_byte: 0,
            end_byte: source.len() as u32,
            start_line: 1,
            start_col: 1,
            end_line: lines.max(1),
            end_col: last_len + 1,
        },
        name_line: 1,
        name_col: 1,
        parent: None,
        return_type: None,
    }
}

pub(crate) fn mine(config: &LanguageConfig, path: &str, src: &Source, root: Node) -> Mined {
    let mut entries: Vec<Entry> = Vec::new();
    let mut declared_package = None;
    let mut seen = FxHashSet::default();

    if let Some(query) = &config.symbols {
        let names = query.capture_names();
        let mut cursor = QueryCursor::new();
        let mut matches = cursor.matches(query, root, src.text.as_bytes());
        while let Some(m) = matches.next() {
            let mut def: Option<(Node, Option<SymbolKind>)> = None;
            let mut name_node = None;
            // A word the pattern sets (`#set! receiver "var"`: Terraform's
            // `variable "x"` is `var.x`) comes before a captured receiver.
            let mut receiver: Option<String> = query
                .property_settings(m.pattern_index)
                .iter()
                .find(|p| &*p.key == "receiver")
                .and_then(|p| p.value.as_deref().map(str::to_string));
            let mut namespace = false;
            for cap in m.captures {
                match names[cap.index as usize] {
                    "name" => name_node = Some(cap.node),
                    "receiver" => {
                        let text = src.node(cap.node);
                        receiver = Some(match receiver {
                            Some(set) => format!("{set}{}{text}", config.language.path_separator()),
                            None => text.to_string(),
                        });
                    }
                    "package" => declared_package = Some(clean_name(src.node(cap.node))),
                    "scope" => def = Some((cap.node, None)),
                    "namespace" => {
                        def = Some((cap.node, None));
                        namespace = true;
                    }
                    other => {
                        if let Some(kind) = other.strip_prefix("definition.").and_then(SymbolKind::parse) {
                            def = Some((cap.node, Some(kind)));
                        }
                    }
                }
            }
            let (Some((def, kind)), Some(name_node)) = (def, name_node) else { continue };
            if !seen.insert(def.id()) {
                continue;
            }
            let outer = outer_node(config, def);
            let mut name = clean_name(src.node(name_node));
            let mut receiver = receiver.map(|r| clean_name(&r));
            // `defmodule Shop.Cart` names Cart inside Shop, as Ruby's `Shop::Cart` does.
            if receiver.is_none()
                && config.language.scoping() == ken_core::Scoping::Ruby
                && let Some((outer_name, last)) = name.rsplit_once('.')
            {
                receiver = Some(outer_name.to_string());
                name = last.to_string();
            }
            entries.push(Entry {
                kind,
                namespace,
                end: def,
                clause_of: None,
                name,
                receiver,
                def,
                outer,
                outer_start: outer.start_position(),
                outer_start_byte: outer.start_byte(),
                name_pos: name_node.start_position(),
                local_path: String::new(),
                parent: None,
            });
        }
    }

    // Outermost first, so a parent always precedes its children.
    entries.sort_by_key(|e| (e.outer_start_byte, std::cmp::Reverse(e.def.end_byte())));

    let naming = naming(config.language, path, declared_package.as_deref());
    let sep = naming.separator;
    let mut stack: Vec<usize> = Vec::new();
    for i in 0..entries.len() {
        let start = entries[i].outer_start_byte;
        while let Some(&top) = stack.last() {
            if entries[top].def.end_byte() <= start {
                stack.pop();
            } else {
                break;
            }
        }
        let parent = stack.last().copied();
        let mut local = match (&entries[i].receiver, parent) {
            (Some(recv), _) => format!("{recv}{sep}"),
            (None, Some(p)) => format!("{}{sep}", entries[p].local_path),
            (None, None) => String::new(),
        };
        local.push_str(&entries[i].name);
        entries[i].local_path = local;
        entries[i].parent = parent;
        stack.push(i);
    }
    if config.clauses {
        merge_clauses(&mut entries);
    }

    // Types by local path, so an `impl Foo` or a Go receiver finds its `Foo`.
    let types: FxHashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind.is_some_and(SymbolKind::is_type))
        .map(|(i, e)| (e.local_path.as_str(), i))
        .collect();
    let owner_type = |e: &Entry| -> Option<usize> {
        if let Some(recv) = &e.receiver {
            return types.get(recv.as_str()).copied();
        }
        let p = e.parent?;
        match entries[p].kind {
            Some(k) if k.is_type() => Some(p),
            Some(_) => None,
            None => types.get(entries[p].local_path.as_str()).copied(),
        }
    };

    let lines = crate::line_count(src.text);
    let mut symbols = vec![module_symbol(&naming, src.text, lines)];
    if config.doc_style == DocStyle::FirstStringInBody {
        symbols[0].docstring = docs::python_docstring(src, root);
    }
    // Symbol indices up front: a type may be defined after its `impl` or methods.
    let mut next = 1u32;
    let mut symbol_of_entry: Vec<Option<u32>> = entries
        .iter()
        .map(|e| {
            e.kind.filter(|_| e.clause_of.is_none()).map(|_| {
                next += 1;
                next - 1
            })
        })
        .collect();
    for i in 0..entries.len() {
        if let Some(first) = entries[i].clause_of {
            symbol_of_entry[i] = symbol_of_entry[first];
        }
    }
    let modules: FxHashSet<&str> = entries.iter().filter(|e| e.kind == Some(SymbolKind::Module)).map(|e| e.local_path.as_str()).collect();
    let mut definition_nodes = FxHashSet::default();
    let mut def_starts = FxHashMap::default();
    let mut regions = Vec::new();

    for e in &entries {
        let Some(mut kind) = e.kind else { continue };
        if e.clause_of.is_some() {
            continue;
        }
        let owner = owner_type(e);
        // `function M.f` on a module table (Lua) is the module's function, not a method.
        let on_module = e.receiver.as_deref().is_some_and(|r| modules.contains(r));
        // A receiver that is a path, not a type (a SQL schema, Terraform's
        // `var`), qualifies the name without making it a member.
        let by_path = config.language.scoping().qualified_by_path();
        let in_scope = (e.receiver.is_some() && !on_module && !by_path)
            || e.parent.is_some_and(|p| entries[p].kind.is_none() && !entries[p].namespace);
        if kind == SymbolKind::Function && (owner.is_some() || in_scope || parent_kind(&entries, e) == Some(SymbolKind::Trait)) {
            kind = SymbolKind::Method;
        }
        if kind == SymbolKind::Method {
            let type_name = owner.map(|o| entries[o].name.as_str()).or(e.receiver.as_deref());
            // Go has no constructors: a method named like its type is a
            // method (a marker interface's `InterfaceA()`).
            let named_like_type = type_name == Some(e.name.as_str()) && config.language != ken_core::Language::Go;
            if config.constructor_names.contains(&e.name.as_str()) || named_like_type {
                kind = SymbolKind::Constructor;
            }
        }
        // The nearest enclosing symbol; a scope stands for its type when the file has it.
        let mut parent = Some(0u32);
        let mut up = if e.receiver.is_some() { owner } else { e.parent };
        while let Some(p) = up {
            if let Some(s) = symbol_of_entry[p] {
                parent = Some(s);
                break;
            }
            match types.get(entries[p].local_path.as_str()).and_then(|&t| symbol_of_entry[t]) {
                Some(s) if entries[p].kind.is_none() => {
                    parent = Some(s);
                    break;
                }
                _ => up = entries[p].parent,
            }
        }
        let (start_line, start_col) = line_col(e.outer_start);
        let (end_line, end_col) = line_col(e.end.end_position());
        let (name_line, name_col) = line_col(e.name_pos);
        definition_nodes.insert(e.def.id());
        definition_nodes.insert(e.outer.id());
        symbols.push(Symbol {
            kind,
            name: e.name.clone(),
            qualified_name: qualify(&naming, &e.local_path),
            local_path: e.local_path.clone(),
            signature: signature(config, src, e.def, kind),
            docstring: docs::doc_for(config, src, e.def, e.outer),
            span: Span {
                start_byte: e.outer_start_byte as u32,
                end_byte: e.end.end_byte() as u32,
                start_line,
                start_col,
                end_line,
                end_col,
            },
            name_line,
            name_col,
            parent,
            return_type: None,
        });
        def_starts.insert(e.def.start_byte() as u32, symbols.len() as u32 - 1);
    }

    for (i, e) in entries.iter().enumerate() {
        let owner = match e.kind {
            Some(_) => symbol_of_entry[i],
            None => types.get(e.local_path.as_str()).and_then(|&t| symbol_of_entry[t]),
        };
        if let Some(sym) = owner {
            regions.push((e.outer_start_byte as u32, e.def.end_byte() as u32, sym));
        }
    }

    let name_positions = entries.iter().map(|e| line_col(e.name_pos)).collect();
    Mined { naming, declared_package, symbols, name_positions, definition_nodes, def_starts, regions }
}

/// Folds each later clause of a function into its first: in Haskell and
/// Elixir one function is written as several equations in a row
/// (`f 0 = 1`, `f n = n * f (n - 1)`), which make one symbol spanning them.
fn merge_clauses(entries: &mut [Entry]) {
    for i in 1..entries.len() {
        let Some(previous) = (0..i).rev().find(|&j| entries[j].parent == entries[i].parent) else { continue };
        let first = entries[previous].clause_of.unwrap_or(previous);
        let same = entries[first].kind.is_some_and(SymbolKind::is_callable)
            && entries[first].kind == entries[i].kind
            && entries[first].local_path == entries[i].local_path;
        if same {
            entries[i].clause_of = Some(first);
            if entries[i].def.end_byte() > entries[first].end.end_byte() {
                entries[first].end = entries[i].def;
            }
        }
    }
}

fn parent_kind(entries: &[Entry], e: &Entry) -> Option<SymbolKind> {
    e.parent.and_then(|p| entries[p].kind)
}

/// The node a definition's span starts at: its decorated wrapper, or the
/// first of the attribute or decorator siblings right before it.
fn outer_node<'t>(config: &LanguageConfig, def: Node<'t>) -> Node<'t> {
    if let Some(parent) = def.parent()
        && parent.kind() == "decorated_definition"
    {
        return parent;
    }
    let mut outer = def;
    while let Some(prev) = outer.prev_sibling() {
        // A node of the definition's own kind is a sibling definition (a
        // Haskell class's method signatures), not its decorator.
        if config.decorator_kinds.contains(&prev.kind()) && prev.kind() != def.kind() {
            outer = prev;
        } else {
            break;
        }
    }
    outer
}

/// Names as written, minus whitespace, quotes and generic arguments.
fn clean_name(text: &str) -> String {
    // Quotes around a name (`"./util"`, `` `type` ``), not a prime in one
    // (Haskell's `decode'`).
    let text = text.trim();
    let text = if text.starts_with(['"', '\'', '`']) { text.trim_matches(|c| c == '"' || c == '\'' || c == '`') } else { text };
    let text = text.split('<').next().unwrap_or(text);
    text.split_whitespace().collect::<Vec<_>>().join("")
}

const MAX_SIGNATURE: usize = 400;

/// The text of a definition up to its body, on one line.
fn signature(config: &LanguageConfig, src: &Source, def: Node, kind: SymbolKind) -> String {
    let body = config.body_fields.iter().find_map(|f| def.child_by_field_name(f));
    let end = match body {
        Some(body) if body.start_byte() > def.start_byte() => body.start_byte(),
        _ => {
            let text = src.node(def);
            let cut = if kind.is_callable() || kind.is_type() {
                text.find(['{', '\n']).unwrap_or(text.len())
            } else {
                text.find('\n').unwrap_or(text.len())
            };
            def.start_byte() + cut
        }
    };
    let raw = src.slice(def.start_byte(), end);
    let mut sig = raw.split_whitespace().collect::<Vec<_>>().join(" ").replace("( ", "(").replace(" )", ")").replace(", )", ")");
    for suffix in [";", ":", "{", "=>", "=", "where"] {
        if let Some(s) = sig.strip_suffix(suffix) {
            sig = s.trim_end().to_string();
        }
    }
    if sig.len() > MAX_SIGNATURE {
        let mut cut = MAX_SIGNATURE;
        while !sig.is_char_boundary(cut) {
            cut -= 1;
        }
        sig.truncate(cut);
        sig.push('…');
    }
    sig
}
