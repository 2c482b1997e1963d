//! The structural editor's moves, pure: the mechanical edits a changed
//! signature obliges in other blocks. A parameter added to (or removed
//! from) a callable is added to (or removed from) the argument lists of its
//! calls; a renamed callable is renamed at its calls; an override mirrors
//! its base method's new signature. Each move reads the file with the
//! language's tree-sitter grammar and edits only the bytes it must.

use ken_core::Language;
use serde::Serialize;
use tree_sitter::{Node, Parser, Tree};

/// One parameter of a callable's definition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Param {
    pub name: String,
    /// As written, type and default included (`timeout: float = 1.0`).
    pub text: String,
    pub has_default: bool,
    /// Python: after `*` or `*args`, so it can only be passed by keyword.
    pub keyword_only: bool,
    /// `*args`, `**kwargs`, `...rest`, Go's `...T`.
    pub variadic: bool,
}

/// How a callable's signature changed, as its calls see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SignatureDelta {
    /// The callable's name before the change (what its calls spell).
    pub name: String,
    /// Its name after (the same unless renamed).
    pub new_name: String,
    /// Parameters added, with their index among the parameters a call passes.
    pub added: Vec<(usize, Param)>,
    pub removed: Vec<(usize, Param)>,
    /// Parameters renamed in place (old, new): only calls passing them by keyword change.
    pub renamed: Vec<(String, String)>,
    /// How many arguments a call may pass after the change (`None`: any, a
    /// variadic parameter takes the rest). A call already at the new
    /// signature is left alone, so applying a delta twice changes nothing.
    pub accepts: Option<usize>,
    /// A method with a receiver (`&self`): a path call (`Pool::grow(&mut p, 3)`)
    /// passes it first.
    pub receiver: bool,
    /// Moved to another file: its imports follow.
    pub moved: Option<Move>,
}

/// A top-level function or class moved to another file, as its importers see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Move {
    pub from_path: String,
    pub to_path: String,
    /// The modules that hold it, as qualified names spell them (`pkg.a`).
    pub from_module: String,
    pub to_module: String,
}

impl SignatureDelta {
    /// Calls must change: a required parameter added, one removed, or a rename.
    pub fn obliges_calls(&self) -> bool {
        self.name != self.new_name
            || self.moved.is_some()
            || !self.renamed.is_empty()
            || self.removed.iter().any(|(_, p)| !p.variadic)
            || self.added.iter().any(|(_, p)| !p.has_default && !p.variadic)
    }
}

fn parser(language: Language) -> Option<Parser> {
    if matches!(language, Language::Vue | Language::Svelte) {
        return None; // mined from their script blocks, not editable as a whole file
    }
    let grammar = ken_lang::config(language).grammar.as_ref()?;
    let mut parser = Parser::new();
    parser.set_language(grammar).ok()?;
    Some(parser)
}

fn parse(language: Language, source: &str) -> Option<Tree> {
    parser(language)?.parse(source, None)
}

/// `source` parsed, for [`split_definition`] (`None`: no grammar).
pub(crate) fn parse_tree(language: Language, source: &str) -> Option<Tree> {
    parse(language, source)
}

/// The byte ranges of a callable's header (up to its body) and body, for
/// the definition of `name` on `name_line`.
pub(crate) fn split_definition(
    tree: &Tree,
    source: &str,
    name: &str,
    name_line: u32,
) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let list = definition(tree, source, name, name_line)?;
    let mut node = list.parent()?;
    let body = loop {
        if let Some(body) = node.child_by_field_name("body") {
            break body;
        }
        // C's declarator nests the parameters one level below the definition.
        node = node.parent().filter(|p| p.start_byte() <= list.start_byte())?;
    };
    (body.start_byte() >= list.end_byte()).then(|| (node.start_byte()..body.start_byte(), body.start_byte()..body.end_byte()))
}

/// The first line (1-based) of the trait implementation holding the item
/// that starts on `line`: Rust's `impl Trait for Type {`. `None` outside
/// one (an inherent `impl Type`, another language).
pub fn trait_impl_line(language: Language, source: &str, line: u32) -> Option<u32> {
    if language != Language::Rust {
        return None;
    }
    let tree = parse(language, source)?;
    let row = line.checked_sub(1)? as usize;
    let at = tree
        .root_node()
        .descendant_for_point_range(tree_sitter::Point { row, column: 0 }, tree_sitter::Point { row, column: usize::MAX })?;
    let mut node = Some(at);
    while let Some(n) = node {
        if n.kind() == "impl_item" {
            return n.child_by_field_name("trait").map(|_| n.start_position().row as u32 + 1);
        }
        node = n.parent();
    }
    None
}

/// Syntax errors in `source` (ERROR and MISSING nodes). A merge that adds
/// any is rejected.
pub fn syntax_errors(language: Language, source: &str) -> Option<usize> {
    let tree = parse(language, source)?;
    let mut count = 0;
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            count += 1;
        }
        if node.has_error() {
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
    }
    Some(count)
}

fn text<'s>(node: Node<'_>, source: &'s str) -> &'s str {
    &source[node.byte_range()]
}

/// The definition named `name` whose name is on `name_line` (1-based),
/// and its parameter list node.
fn definition<'t>(tree: &'t Tree, source: &str, name: &str, name_line: u32) -> Option<Node<'t>> {
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.start_position().row + 1 > name_line as usize || (node.end_position().row + 1) < name_line as usize {
            continue;
        }
        if let Some(params) = parameter_list(node)
            && let Some(n) = node.child_by_field_name("name").or_else(|| declarator_name(node))
            && text(n, source) == name
            && n.start_position().row + 1 == name_line as usize
        {
            return Some(params);
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    None
}

/// `const f = (a) => …` and C's `int f(int a)`: the name sits on the declarator.
fn declarator_name(node: Node<'_>) -> Option<Node<'_>> {
    node.child_by_field_name("declarator").and_then(|d| d.child_by_field_name("declarator").or(Some(d)))
}

fn parameter_list(node: Node<'_>) -> Option<Node<'_>> {
    if let Some(p) = node.child_by_field_name("parameters") {
        return Some(p);
    }
    // A variable holding a function or arrow function.
    let value = node.child_by_field_name("value")?;
    if matches!(value.kind(), "arrow_function" | "function_expression" | "function") {
        return value.child_by_field_name("parameters").or_else(|| value.child_by_field_name("parameter"));
    }
    None
}

/// The definition of `name` on `name_line` takes a receiver (`self`, `&self`).
fn receiver_in(tree: &Tree, source: &str, name: &str, name_line: u32) -> bool {
    let Some(list) = definition(tree, source, name, name_line) else { return false };
    let mut cursor = list.walk();
    let first = list.named_children(&mut cursor).find(|n| !n.kind().contains("comment"));
    first.is_some_and(|n| n.kind() == "self_parameter" || matches!(text(n, source), "self" | "cls"))
}

/// The parameters of the definition of `name` on `name_line`, receivers
/// (`self`, `cls`, Rust's `&self`) left out: the ones a call passes.
pub fn parameters(language: Language, source: &str, name: &str, name_line: u32) -> Option<Vec<Param>> {
    let tree = parse(language, source)?;
    let list = definition(&tree, source, name, name_line)?;
    Some(params_of(language, list, source))
}

fn params_of(language: Language, list: Node<'_>, source: &str) -> Vec<Param> {
    let mut out = Vec::new();
    let mut keyword_only = false;
    let mut cursor = list.walk();
    // A lone parameter of an arrow function (`x => …`) is the list itself.
    let children: Vec<Node<'_>> = if list.kind() == "identifier" { vec![list] } else { list.named_children(&mut cursor).collect() };
    for (i, child) in children.into_iter().enumerate() {
        let kind = child.kind();
        if kind.contains("comment") || kind == "self_parameter" || kind == "positional_separator" {
            continue;
        }
        if kind == "keyword_separator" {
            keyword_only = true;
            continue;
        }
        let written = text(child, source);
        let variadic = kind.contains("splat") || kind.contains("rest") || kind.contains("spread") || kind.contains("variadic");
        let name = param_name(child, source).unwrap_or_else(|| written.to_string());
        if i == 0 && language == Language::Python && matches!(name.as_str(), "self" | "cls") {
            continue;
        }
        let has_default = kind.contains("default")
            || kind == "assignment_pattern"
            || kind == "optional_parameter"
            || child.child_by_field_name("value").is_some()
            || child.child_by_field_name("default_value").is_some();
        out.push(Param { name, text: written.to_string(), has_default, keyword_only, variadic });
        if variadic && language == Language::Python && kind == "list_splat_pattern" {
            keyword_only = true;
        }
    }
    out
}

fn param_name(node: Node<'_>, source: &str) -> Option<String> {
    if node.kind() == "identifier" {
        return Some(text(node, source).to_string());
    }
    for field in ["name", "pattern", "left"] {
        if let Some(n) = node.child_by_field_name(field) {
            return param_name(n, source).or_else(|| Some(text(n, source).to_string()));
        }
    }
    let mut cursor = node.walk();
    let first = node.named_children(&mut cursor).find(|c| c.kind().ends_with("identifier"));
    first.map(|n| text(n, source).to_string())
}

/// How the parameters went from `before` to `after`, paired by name; one
/// removed and one added at the same place is a parameter renamed.
pub fn delta(name: &str, new_name: &str, before: &[Param], after: &[Param]) -> SignatureDelta {
    let mut added: Vec<(usize, Param)> =
        after.iter().enumerate().filter(|(_, p)| !before.iter().any(|b| b.name == p.name)).map(|(i, p)| (i, p.clone())).collect();
    let mut removed: Vec<(usize, Param)> =
        before.iter().enumerate().filter(|(_, p)| !after.iter().any(|a| a.name == p.name)).map(|(i, p)| (i, p.clone())).collect();
    let mut renamed = Vec::new();
    if before.len() == after.len() {
        removed.retain(|(i, old)| match added.iter().position(|(j, new)| i == j && !old.variadic && !new.variadic) {
            Some(k) => {
                renamed.push((old.name.clone(), added.remove(k).1.name));
                false
            }
            None => true,
        });
    }
    let accepts = (!after.iter().any(|p| p.variadic)).then_some(after.iter().filter(|p| !p.keyword_only).count());
    SignatureDelta {
        name: name.to_string(),
        new_name: new_name.to_string(),
        added,
        removed,
        renamed,
        accepts,
        receiver: false,
        moved: None,
    }
}

/// The signature changes among `changes` of one file (from [`crate::classify`]
/// over the same two versions): each MMS and MCC with its parameters paired,
/// and each deleted callable whose twin was added beside it (same place,
/// same parameters) as a rename. Keyed by the changed symbol's old
/// qualified name. [`crate::FileDiff::signature_deltas`] does the same
/// without mining and parsing both versions again.
pub fn signature_deltas(
    path: &str,
    language: Language,
    before: &str,
    after: &str,
    changes: &[crate::Change],
) -> Vec<(String, SignatureDelta)> {
    crate::FileDiff::mine(&mut ken_mine::Miner::new(), language, path, before, after).signature_deltas(changes)
}

/// One version of a file, mined and parsed.
pub(crate) struct Side<'a> {
    pub text: &'a str,
    pub symbols: &'a [ken_core::Symbol],
    pub tree: Option<&'a Tree>,
}

impl Side<'_> {
    /// The parameters of the callable `qualified`; of overloads, the one
    /// starting on `line` if given, else the first.
    fn parameters(&self, language: Language, qualified: &str, line: Option<u32>) -> Option<Vec<Param>> {
        let callable = |s: &&ken_core::Symbol| s.qualified_name == qualified && s.kind.is_callable();
        let symbol = line
            .and_then(|line| self.symbols.iter().filter(callable).find(|s| s.span.start_line == line))
            .or_else(|| self.symbols.iter().find(callable))?;
        let list = definition(self.tree?, self.text, &symbol.name, symbol.name_line)?;
        Some(params_of(language, list, self.text))
    }

    fn has_receiver(&self, qualified: &str) -> bool {
        let Some(tree) = self.tree else { return false };
        self.symbols.iter().filter(|s| s.qualified_name == qualified).any(|s| receiver_in(tree, self.text, &s.name, s.name_line))
    }
}

pub(crate) fn signature_deltas_of(
    language: Language,
    old: Side<'_>,
    new: Side<'_>,
    changes: &[crate::Change],
) -> Vec<(String, SignatureDelta)> {
    use crate::ChangeLabel;
    let mut out = Vec::new();
    for c in changes.iter().filter(|c| matches!(c.label, ChangeLabel::MMS | ChangeLabel::MCC)) {
        let (old_at, new_at) = (c.before.map(|r| r.start), c.after.map(|r| r.start));
        if let (Some(a), Some(b)) = (old.parameters(language, &c.symbol, old_at), new.parameters(language, &c.symbol, new_at)) {
            let mut d = delta(&c.name, &c.name, &a, &b);
            d.receiver = new.has_receiver(&c.symbol);
            if d.obliges_calls() {
                out.push((c.symbol.clone(), d));
            }
        }
    }
    for gone in changes.iter().filter(|c| c.label == ChangeLabel::DM) {
        let same_place = |c: &crate::Change| match (gone.before, c.after) {
            (Some(a), Some(b)) => a.start.abs_diff(b.start) <= 2,
            _ => false,
        };
        let names = |p: Option<Vec<Param>>| p.map(|p| p.into_iter().map(|p| p.name).collect::<Vec<_>>());
        let old_params = names(old.parameters(language, &gone.symbol, None));
        let twin = changes.iter().find(|c| {
            c.label == ChangeLabel::AM
                && c.container == gone.container
                && same_place(c)
                && old_params.is_some()
                && names(new.parameters(language, &c.symbol, None)) == old_params
        });
        if let Some(twin) = twin {
            let rename = SignatureDelta {
                name: gone.name.clone(),
                new_name: twin.name.clone(),
                added: Vec::new(),
                removed: Vec::new(),
                renamed: Vec::new(),
                accepts: None,
                receiver: false,
                moved: None,
            };
            out.push((gone.symbol.clone(), rename));
        }
    }
    out
}

/// One replacement of bytes.
struct Splice {
    start: usize,
    end: usize,
    with: String,
}

fn apply(source: &str, mut splices: Vec<Splice>) -> String {
    splices.sort_by_key(|s| std::cmp::Reverse(s.start));
    let mut out = source.to_string();
    let mut floor = usize::MAX;
    for s in splices {
        if s.end > floor {
            continue; // overlaps one already made (a call inside a removed argument)
        }
        out.replace_range(s.start..s.end, &s.with);
        floor = s.start;
    }
    out
}

/// What [`update_calls`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallUpdate {
    pub text: String,
    /// Calls edited.
    pub calls: usize,
}

/// The calls of `delta.name` between bytes `range` of `source`, edited for
/// the new signature: each added required parameter passed as `value(p)`,
/// each removed one's argument dropped, the name renamed. `callee` is the
/// name calls spell (a constructor's class). With `lines`, only the calls
/// on those lines (1-based): where the graph or the oracle saw them.
pub fn update_calls(
    language: Language,
    source: &str,
    range: std::ops::Range<usize>,
    callee: &str,
    delta: &SignatureDelta,
    lines: Option<&[u32]>,
    value: &dyn Fn(&Param) -> String,
) -> Option<CallUpdate> {
    let tree = parse(language, source)?;
    let mut splices = Vec::new();
    let mut calls = 0;
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.end_byte() <= range.start || node.start_byte() >= range.end {
            continue;
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
        if node.kind() == "token_tree" && node.start_byte() >= range.start {
            calls += macro_calls(node, source, callee, delta, lines, value, &mut splices);
            continue;
        }
        let Some(args) = node.child_by_field_name("arguments") else { continue };
        let Some(name) = callee_name(node, source) else { continue };
        if text(name, source) != callee || node.start_byte() < range.start {
            continue;
        }
        let (first, last) = (node.start_position().row as u32 + 1, name.end_position().row as u32 + 1);
        if lines.is_some_and(|lines| !lines.iter().any(|l| (first..=last).contains(l))) {
            continue;
        }
        let before = splices.len();
        if delta.new_name != delta.name && callee == delta.name {
            splices.push(Splice { start: name.start_byte(), end: name.end_byte(), with: delta.new_name.clone() });
        }
        // `Type::method(receiver, …)`: the receiver comes first.
        let path_call = node.child_by_field_name("function").is_some_and(|f| f.kind() == "scoped_identifier");
        let receiver = (delta.receiver && path_call && language == Language::Rust).then_some(()).and_then(|_| args.named_child(0));
        call_arguments(language, source, args, receiver, delta, value, &mut splices);
        calls += usize::from(splices.len() > before);
    }
    Some(CallUpdate { text: apply(source, splices), calls })
}

/// Calls inside a Rust macro's tokens (`assert!(req.matches(&v))`), which
/// the grammar leaves unparsed: `name` followed by a `( … )` token tree.
/// Only what needs no parse of the arguments is done: a rename, and
/// parameters added last.
fn macro_calls(
    tree: Node<'_>,
    source: &str,
    callee: &str,
    delta: &SignatureDelta,
    lines: Option<&[u32]>,
    value: &dyn Fn(&Param) -> String,
    splices: &mut Vec<Splice>,
) -> usize {
    let mut cursor = tree.walk();
    let tokens: Vec<Node<'_>> = tree.children(&mut cursor).collect();
    let mut calls = 0;
    for pair in tokens.windows(2) {
        let (name, args) = (pair[0], pair[1]);
        if name.kind() != "identifier"
            || text(name, source) != callee
            || args.kind() != "token_tree"
            || !text(args, source).starts_with('(')
        {
            continue;
        }
        let line = name.start_position().row as u32 + 1;
        if lines.is_some_and(|lines| !lines.contains(&line)) {
            continue;
        }
        let before = splices.len();
        if delta.new_name != delta.name && callee == delta.name {
            splices.push(Splice { start: name.start_byte(), end: name.end_byte(), with: delta.new_name.clone() });
        }
        let mut c = args.walk();
        let inner: Vec<Node<'_>> = args.children(&mut c).collect();
        let commas = inner.iter().filter(|t| t.kind() == ",").count();
        let empty = inner.len() <= 2;
        let passed = if empty { 0 } else { commas + 1 - usize::from(inner.iter().rev().nth(1).is_some_and(|t| t.kind() == ",")) };
        let appended = delta.removed.is_empty() && delta.added.iter().all(|(i, _)| *i >= passed);
        if appended && delta.accepts.is_some_and(|n| passed < n) {
            let values: Vec<String> = delta.added.iter().filter(|(_, p)| !p.has_default && !p.variadic).map(|(_, p)| value(p)).collect();
            let close = args.end_byte() - 1;
            let with = if empty { values.join(", ") } else { format!(", {}", values.join(", ")) };
            splices.push(Splice { start: close, end: close, with });
        }
        calls += usize::from(splices.len() > before);
    }
    calls
}

/// The identifier a call names last: `f` in `f(x)`, `a.b.f(x)`, `T::f(x)`, `new F(x)`.
fn callee_name<'t>(call: Node<'t>, source: &str) -> Option<Node<'t>> {
    let callee = ["function", "constructor", "name", "method"].iter().find_map(|f| call.child_by_field_name(f))?;
    let mut node = callee;
    loop {
        if node.named_child_count() == 0 {
            return (!text(node, source).is_empty()).then_some(node);
        }
        // Generic arguments (`f::<T>`, `f<T>`) come after the name.
        let last = ["name", "field", "property", "attribute", "function"]
            .iter()
            .find_map(|f| node.child_by_field_name(f))
            .or_else(|| node.named_child(node.named_child_count().checked_sub(1)?))?;
        if last.id() == node.id() {
            return None;
        }
        node = last;
    }
}

fn call_arguments(
    language: Language,
    source: &str,
    args: Node<'_>,
    receiver: Option<Node<'_>>,
    delta: &SignatureDelta,
    value: &dyn Fn(&Param) -> String,
    splices: &mut Vec<Splice>,
) {
    let mut cursor = args.walk();
    let items: Vec<Node<'_>> =
        args.named_children(&mut cursor).filter(|n| !n.kind().contains("comment") && receiver.is_none_or(|r| r.id() != n.id())).collect();
    let keyword = |n: &Node<'_>| n.kind() == "keyword_argument";
    let spread = |n: &Node<'_>| matches!(n.kind(), "list_splat" | "dictionary_splat" | "spread_element");
    let positional = items.iter().take_while(|n| !keyword(n) && !spread(n)).count();
    let python = language == Language::Python;
    let too_many = delta.accepts.is_some_and(|n| positional > n);
    for (index, param) in &delta.removed {
        if param.variadic {
            continue;
        }
        let at = if python {
            items.iter().position(|n| keyword(n) && n.child_by_field_name("name").is_some_and(|k| text(k, source) == param.name))
        } else {
            None
        }
        .or((*index < positional && too_many).then_some(*index));
        if let Some(at) = at {
            splices.push(remove_item(&items, at));
        }
    }
    if python {
        for (old, new) in &delta.renamed {
            for n in items.iter().filter(|n| keyword(n)) {
                if let Some(k) = n.child_by_field_name("name").filter(|k| text(*k, source) == old) {
                    splices.push(Splice { start: k.start_byte(), end: k.end_byte(), with: new.clone() });
                }
            }
        }
    }
    let removed_before = |i: usize| delta.removed.iter().filter(|(r, _)| *r < i).count();
    let open = args.start_byte() + 1;
    let close = args.end_byte().saturating_sub(1);
    for (index, param) in &delta.added {
        if param.has_default || param.variadic {
            continue;
        }
        let v = value(param);
        let passed_by_keyword =
            items.iter().any(|n| keyword(n) && n.child_by_field_name("name").is_some_and(|k| text(k, source) == param.name));
        let at = index + removed_before(*index);
        let passed_here = items.get(at).is_some_and(|n| at < positional && text(*n, source) == v);
        let full = !param.keyword_only && delta.removed.is_empty() && delta.accepts.is_some_and(|n| positional >= n);
        if passed_by_keyword || passed_here || full {
            continue;
        }
        let by_keyword = python && (param.keyword_only || items.len() > positional || positional < *index);
        if by_keyword {
            let arg = format!("{}={v}", param.name);
            match items.last() {
                Some(last) => splices.push(append_after(source, *last, args.end_byte(), &arg)),
                None => splices.push(Splice { start: open, end: open, with: arg }),
            }
            continue;
        }
        // Positional: before the argument now at its index, else last.
        match items.get(at).filter(|_| at < positional) {
            Some(next) => splices.push(Splice { start: next.start_byte(), end: next.start_byte(), with: format!("{v}, ") }),
            None => match items.get(positional.wrapping_sub(1)).filter(|_| positional > 0).or(receiver.as_ref()) {
                Some(last) => splices.push(append_after(source, *last, args.end_byte(), &v)),
                None => splices.push(Splice { start: open.min(close), end: open.min(close), with: v }),
            },
        }
    }
}

/// The definition of `name` on `name_line` with `delta` mirrored: its
/// added parameters added (as the base writes them), its removed ones
/// removed, its name renamed. For an override, or a caller that takes on a
/// parameter it must now pass along.
pub fn mirror_signature(language: Language, source: &str, name: &str, name_line: u32, delta: &SignatureDelta) -> Option<String> {
    let tree = parse(language, source)?;
    let list = definition(&tree, source, name, name_line)?;
    let mut splices = Vec::new();
    // TypeScript's overload signatures just above the implementation follow it.
    let definition = list.parent()?;
    let anchor = definition.parent().filter(|p| p.kind() == "export_statement").unwrap_or(definition);
    let mut lists = vec![list];
    let mut previous = anchor.prev_named_sibling();
    while let Some(node) = previous {
        let declaration = if node.kind() == "export_statement" { node.child_by_field_name("declaration") } else { Some(node) };
        match declaration {
            Some(d) if matches!(d.kind(), "function_signature" | "method_signature") => {
                if d.child_by_field_name("name").is_some_and(|n| text(n, source) == name)
                    && let Some(overload) = d.child_by_field_name("parameters")
                {
                    lists.push(overload);
                }
            }
            _ if node.kind() == "comment" => {}
            _ => break,
        }
        previous = node.prev_named_sibling();
    }
    for list in lists {
        mirror_list(language, source, list, name, delta, &mut splices);
    }
    if splices.is_empty() {
        return None;
    }
    Some(apply(source, splices))
}

fn mirror_list(language: Language, source: &str, list: Node<'_>, name: &str, delta: &SignatureDelta, splices: &mut Vec<Splice>) {
    if delta.new_name != delta.name
        && let Some(n) = list.parent().and_then(|d| d.child_by_field_name("name"))
        && text(n, source) == name
    {
        splices.push(Splice { start: n.start_byte(), end: n.end_byte(), with: delta.new_name.clone() });
    }
    let mut cursor = list.walk();
    let items: Vec<Node<'_>> = list.named_children(&mut cursor).filter(|n| !n.kind().contains("comment")).collect();
    let params = params_of(language, list, source);
    for (_, removed) in &delta.removed {
        let Some(at) = items.iter().position(|n| param_name(*n, source).as_deref() == Some(removed.name.as_str())) else { continue };
        splices.push(remove_item(&items, at));
    }
    let added: Vec<&Param> = delta.added.iter().map(|(_, p)| p).filter(|p| !params.iter().any(|q| q.name == p.name)).collect();
    if !added.is_empty() {
        let texts: Vec<String> = added.iter().map(|p| p.text.clone()).collect();
        splices.push(add_at(language, source, list, &items, &params, &texts.join(", "), added.iter().all(|p| p.has_default)));
    }
}

/// Where new parameters go in a list: last, but in Python before `**kwargs`,
/// and keyword-only after a parameter with a default.
fn add_at(
    language: Language,
    source: &str,
    list: Node<'_>,
    items: &[Node<'_>],
    params: &[Param],
    written: &str,
    defaulted: bool,
) -> Splice {
    let python = language == Language::Python;
    let kwargs = if python { items.iter().position(|n| n.kind() == "dictionary_splat_pattern") } else { None };
    let before: &[Node<'_>] = &items[..kwargs.unwrap_or(items.len())];
    let star = items.iter().any(|n| matches!(n.kind(), "list_splat_pattern" | "keyword_separator"));
    let needs_star = python && !defaulted && !star && params.iter().any(|p| p.has_default && !p.keyword_only);
    let written = if needs_star { format!("*, {written}") } else { written.to_string() };
    // A required parameter goes before the first optional or rest one
    // (TypeScript, JavaScript, Go's variadic), as the language demands.
    if !python && !defaulted {
        let optional = |n: &Node<'_>| {
            let k = n.kind();
            k == "optional_parameter"
                || k.contains("rest")
                || k.contains("variadic")
                || k == "assignment_pattern"
                || n.child_by_field_name("value").is_some()
                || n.child_by_field_name("pattern").is_some_and(|p| p.kind().contains("rest"))
        };
        if let Some(first) = items.iter().find(|n| optional(n)) {
            return Splice { start: first.start_byte(), end: first.start_byte(), with: format!("{written}, ") };
        }
    }
    match (kwargs.map(|k| items[k]), before.last()) {
        (Some(k), _) => Splice { start: k.start_byte(), end: k.start_byte(), with: format!("{written}, ") },
        (None, Some(last)) => append_after(source, *last, list.end_byte(), &written),
        (None, None) => {
            // An empty list `()`: inside it (a Rust `(&self)` has its receiver as the last item).
            let open = if text(list, source).starts_with('(') { list.start_byte() + 1 } else { list.start_byte() };
            let receiver = {
                let mut c = list.walk();
                list.named_children(&mut c).filter(|n| n.kind() == "self_parameter" || matches!(text(*n, source), "self" | "cls")).last()
            };
            match receiver {
                Some(r) => Splice { start: r.end_byte(), end: r.end_byte(), with: format!(", {written}") },
                None => Splice { start: open, end: open, with: written },
            }
        }
    }
}

/// `written` as a new last item after `last`, in a list that closes before
/// `end`: on a line of its own when the list has one item per line (and
/// after the trailing comma, when there is one), else after `, `.
fn append_after(source: &str, last: Node<'_>, end: usize, written: &str) -> Splice {
    let tail = &source[last.end_byte()..end.saturating_sub(1).max(last.end_byte())];
    if !tail.contains('\n') {
        return Splice { start: last.end_byte(), end: last.end_byte(), with: format!(", {written}") };
    }
    let line_start = source[..last.start_byte()].rfind('\n').map_or(0, |i| i + 1);
    let indent: String = source[line_start..last.start_byte()].chars().take_while(|c| c.is_whitespace()).collect();
    match tail.find(',').filter(|i| !tail[..*i].contains('\n')) {
        Some(comma) => {
            let at = last.end_byte() + comma + 1;
            Splice { start: at, end: at, with: format!("\n{indent}{written},") }
        }
        None => Splice { start: last.end_byte(), end: last.end_byte(), with: format!(",\n{indent}{written}") },
    }
}

/// The byte range of the definition whose name is on `name_line`, from
/// its first line to its last, for [`update_calls`].
pub fn line_range(source: &str, start_line: u32, end_line: u32) -> std::ops::Range<usize> {
    let mut start = source.len();
    let mut end = source.len();
    let mut offset = 0;
    for (i, line) in source.split_inclusive('\n').enumerate() {
        let n = i as u32 + 1;
        if n == start_line {
            start = offset;
        }
        offset += line.len();
        if n == end_line {
            end = offset;
            break;
        }
    }
    start.min(end)..end
}

/// The file with `old` renamed to `new` where its import statements name it
/// (`from m import old`, `import { old } from "m"`, `use m::old;`): the
/// imports that bind a renamed symbol follow it.
pub fn rename_imports(language: Language, source: &str, old: &str, new: &str) -> Option<String> {
    let tree = parse(language, source)?;
    let mut splices = Vec::new();
    let mut stack = vec![(tree.root_node(), false)];
    while let Some((node, in_import)) = stack.pop() {
        let kind = node.kind();
        let import = in_import || kind.contains("import") || kind == "use_declaration";
        if import && kind.ends_with("identifier") && text(node, source) == old {
            splices.push(Splice { start: node.start_byte(), end: node.end_byte(), with: new.to_string() });
            continue;
        }
        // Statements only: a module's top level and what it nests (not bodies' expressions).
        if !import && node.parent().is_some() && !kind.contains("statement") && !kind.contains("declaration") && !kind.contains("module") {
            continue;
        }
        let module = node.child_by_field_name("module_name").map(|m| m.id());
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if Some(child.id()) != module {
                stack.push((child, import));
            }
        }
    }
    (!splices.is_empty()).then(|| apply(source, splices))
}

/// Moves among the changes of several files: a top-level function or class
/// deleted from one file and added, by the same name and kind, to another.
/// Keyed by the old qualified name.
pub fn moves(changes: &[(String, crate::Change)]) -> Vec<(String, SignatureDelta)> {
    use crate::ChangeLabel::{AC, AM, DC, DM};
    let module = |c: &crate::Change| {
        c.symbol.strip_suffix(c.name.as_str()).map(|m| m.trim_end_matches(['.', ':']).to_string()).filter(|m| !m.is_empty())
    };
    let mut out = Vec::new();
    for (from_path, gone) in changes.iter().filter(|(_, c)| matches!(c.label, DM | DC) && c.container.is_none()) {
        let twin = changes.iter().find(|(path, c)| {
            path != from_path && c.name == gone.name && c.container.is_none() && matches!((gone.label, c.label), (DM, AM) | (DC, AC))
        });
        if let (Some((to_path, added)), Some(from_module)) = (twin, module(gone))
            && let Some(to_module) = module(added)
        {
            let moved = Move { from_path: from_path.clone(), to_path: to_path.clone(), from_module, to_module };
            out.push((
                gone.symbol.clone(),
                SignatureDelta {
                    name: gone.name.clone(),
                    new_name: gone.name.clone(),
                    added: Vec::new(),
                    removed: Vec::new(),
                    renamed: Vec::new(),
                    accepts: None,
                    receiver: false,
                    moved: Some(moved),
                },
            ));
        }
    }
    out
}

/// The importing file (`path`, whose module is `module`) with its imports
/// of `name` following `moved`: `from pkg.a import f, g` becomes
/// `from pkg.a import g` and `from pkg.b import f`; `import { f } from "./a"`
/// becomes `import { f } from "./b"`. Python, JavaScript and TypeScript.
pub fn move_imports(language: Language, source: &str, path: &str, module: &str, name: &str, moved: &Move) -> Option<String> {
    let tree = parse(language, source)?;
    let mut splices = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
        match (language, node.kind()) {
            (Language::Python, "import_from_statement") => python_move(node, source, path, module, name, moved, &mut splices),
            (Language::JavaScript | Language::TypeScript | Language::Tsx, "import_statement") => {
                script_move(node, source, path, name, moved, &mut splices)
            }
            _ => {}
        }
    }
    (!splices.is_empty()).then(|| apply(source, splices))
}

/// The names an import statement binds, with the node to remove for each.
fn import_names<'t>(statement: Node<'t>, source: &str, kinds: &[&str]) -> Vec<(String, Node<'t>)> {
    let mut out = Vec::new();
    let mut stack = vec![statement];
    while let Some(node) = stack.pop() {
        if kinds.contains(&node.kind()) {
            let named = node.child_by_field_name("name").unwrap_or(node);
            out.push((text(named, source).to_string(), node));
            continue;
        }
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if Some(child.id()) != statement.child_by_field_name("module_name").map(|m| m.id()) {
                stack.push(child);
            }
        }
    }
    out.sort_by_key(|(_, n)| n.start_byte());
    out
}

/// Removes one of an import's names.
fn remove_listed(names: &[(String, Node<'_>)], at: usize) -> Splice {
    remove_item(&names.iter().map(|(_, n)| *n).collect::<Vec<_>>(), at)
}

/// Removes item `at` of a comma-separated list with one of its commas.
fn remove_item(items: &[Node<'_>], at: usize) -> Splice {
    let item = items[at];
    match (at.checked_sub(1).map(|p| items[p]), items.get(at + 1)) {
        (_, Some(next)) => Splice { start: item.start_byte(), end: next.start_byte(), with: String::new() },
        (Some(prev), None) => Splice { start: prev.end_byte(), end: item.end_byte(), with: String::new() },
        (None, None) => Splice { start: item.start_byte(), end: item.end_byte(), with: String::new() },
    }
}

fn python_move(statement: Node<'_>, source: &str, path: &str, module: &str, name: &str, moved: &Move, splices: &mut Vec<Splice>) {
    let Some(from) = statement.child_by_field_name("module_name") else { return };
    let written = text(from, source);
    // The package relative imports start from: the module itself for an `__init__.py`.
    let package: Vec<&str> = {
        let mut parts: Vec<&str> = module.split('.').collect();
        if !path.ends_with("__init__.py") {
            parts.pop();
        }
        parts
    };
    let dots = written.chars().take_while(|c| *c == '.').count();
    let resolved = if dots == 0 {
        written.to_string()
    } else {
        let keep = package.len().saturating_sub(dots - 1);
        let mut parts: Vec<&str> = package[..keep].to_vec();
        let rest = &written[dots..];
        if !rest.is_empty() {
            parts.push(rest);
        }
        parts.join(".")
    };
    if resolved != moved.from_module {
        return;
    }
    let names = import_names(statement, source, &["dotted_name", "aliased_import"]);
    let Some(at) = names.iter().position(|(n, _)| n == name) else { return };
    let prefix = format!("{}.", package.join("."));
    let target = match (dots, moved.to_module.strip_prefix(&prefix)) {
        (1.., Some(rest)) => format!(".{rest}"),
        _ => moved.to_module.clone(),
    };
    if names.len() == 1 {
        splices.push(Splice { start: from.start_byte(), end: from.end_byte(), with: target });
    } else {
        splices.push(remove_listed(&names, at));
        let line_start = source[..statement.start_byte()].rfind('\n').map_or(0, |i| i + 1);
        let indent = &source[line_start..statement.start_byte()];
        let item = text(names[at].1, source);
        splices.push(Splice {
            start: statement.end_byte(),
            end: statement.end_byte(),
            with: format!("\n{indent}from {target} import {item}"),
        });
    }
}

/// `dir/../x` and `./x` folded: the path an import specifier names.
fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts.join("/")
}

fn strip_script_extension(path: &str) -> &str {
    let path = [".tsx", ".ts", ".jsx", ".mjs", ".cjs", ".js"].iter().find_map(|e| path.strip_suffix(e)).unwrap_or(path);
    path.strip_suffix("/index").unwrap_or(path)
}

/// The specifier that names `to` from a file in `dir`: `./b`, `../lib/b`.
fn specifier(dir: &str, to: &str) -> String {
    let from: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    let to: Vec<&str> = to.split('/').filter(|p| !p.is_empty()).collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; from.len() - common];
    parts.extend(&to[common..]);
    let joined = parts.join("/");
    if joined.starts_with("..") { joined } else { format!("./{joined}") }
}

fn script_move(statement: Node<'_>, source: &str, path: &str, name: &str, moved: &Move, splices: &mut Vec<Splice>) {
    let Some(spec) = statement.child_by_field_name("source") else { return };
    let quoted = text(spec, source);
    let quote = quoted.chars().next().unwrap_or('"');
    let written = quoted.trim_matches(['"', '\'', '`']);
    if !written.starts_with('.') {
        return;
    }
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let resolved = normalize(&format!("{dir}/{written}"));
    if strip_script_extension(&resolved) != strip_script_extension(&moved.from_path) {
        return;
    }
    // ESM spells the extension (`./a.js`): the new specifier does too.
    let extension = written.rsplit_once('.').map(|(_, e)| e).filter(|e| ["js", "mjs", "cjs", "jsx", "ts", "tsx"].contains(e));
    let names = import_names(statement, source, &["import_specifier"]);
    let Some(at) = names.iter().position(|(n, _)| n == name) else { return };
    let mut target = specifier(dir, strip_script_extension(&moved.to_path));
    if let Some(extension) = extension {
        target = format!("{target}.{extension}");
    }
    if names.len() == 1 {
        splices.push(Splice { start: spec.start_byte(), end: spec.end_byte(), with: format!("{quote}{target}{quote}") });
    } else {
        splices.push(remove_listed(&names, at));
        let item = text(names[at].1, source);
        let semi = if text(statement, source).trim_end().ends_with(';') { ";" } else { "" };
        splices.push(Splice {
            start: statement.end_byte(),
            end: statement.end_byte(),
            with: format!("\nimport {{ {item} }} from {quote}{target}{quote}{semi}"),
        });
    }
}
