//! Name resolution: turns one file's raw references into labelled edges.
//!
//! Lookups go scope chain → file → imports (following re-exports) →
//! wildcard imports → same package → a unique name in the repository.
//! Method calls resolve through the receiver's type when it can be inferred
//! (`self`/`this`, `super()`, annotations, constructor assignments, return
//! types) and the class hierarchy. Every recursion is depth-bounded and every
//! hierarchy walk keeps a visited set, so cycles in imports or inheritance
//! cannot hang or overflow.

use crate::program::{Program, Sym, is_common_method, is_python_builtin};
use ken_core::{RefKind, Relation, Resolution, Scoping, SymbolKind};
use ken_store::{NewEdge, RefRow};
use rustc_hash::FxHashSet;

const MAX_DEPTH: u32 = 10;

/// What an expression denotes, for member lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value {
    /// An instance of a class.
    Instance(Sym),
    /// The class itself (`Foo.create()`, `Foo::new()`).
    Class(Sym),
    /// Members are looked up in the bases only (`super()`).
    Super(Sym),
    Module(Sym),
}

/// Per-file resolution state: which other files were consulted.
pub(crate) struct Ctx<'p> {
    pub program: &'p Program,
    pub file: usize,
    pub deps: FxHashSet<i64>,
    /// Work done for the current reference; bounds pathological chains.
    pub steps: u32,
}

/// Most lookups one reference may cost.
const MAX_STEPS: u32 = 400;

impl<'p> Ctx<'p> {
    pub fn new(program: &'p Program, file: usize) -> Ctx<'p> {
        Ctx { program, file, deps: FxHashSet::default(), steps: 0 }
    }

    /// Counts one step of work; false once the depth or the budget is spent.
    fn step(&mut self, depth: u32) -> bool {
        self.steps += 1;
        depth <= MAX_DEPTH && self.steps <= MAX_STEPS
    }

    fn touch(&mut self, s: Sym) -> Sym {
        let f = self.program.sym_file[s];
        if f != self.file {
            self.deps.insert(self.program.files[f].row.id);
        }
        s
    }

    fn family(&self) -> Scoping {
        self.program.files[self.file].family
    }
}

/// Resolves the bases of every class: the class hierarchy analysis every
/// method lookup walks.
pub(crate) fn resolve_bases(program: &mut Program) {
    let mut bases = rustc_hash::FxHashMap::default();
    for (&class, refs) in &program.inherits {
        let file = program.sym_file[class];
        let mut ctx = Ctx::new(program, file);
        let mut out = Vec::new();
        for r in refs {
            ctx.steps = 0;
            if let Some((base, _)) = resolve_type_ref(&mut ctx, class, r.qualifier.as_deref(), &r.name, 0)
                && base != class
                && !out.contains(&base)
            {
                out.push(base);
            }
        }
        if !out.is_empty() {
            bases.insert(class, out);
        }
    }
    let mut derived: rustc_hash::FxHashMap<Sym, Vec<Sym>> = rustc_hash::FxHashMap::default();
    for (&class, list) in &bases {
        for &b in list {
            derived.entry(b).or_default().push(class);
        }
    }
    for list in derived.values_mut() {
        list.sort_unstable();
    }
    program.bases = bases;
    program.derived = derived;
}

/// Resolves the inherit reference `qualifier.name` seen from `scope` to a type.
fn resolve_type_ref(ctx: &mut Ctx, scope: Sym, qualifier: Option<&str>, name: &str, depth: u32) -> Option<(Sym, Resolution)> {
    let name = strip_generics(name);
    let found = match qualifier {
        Some(q) => match eval(ctx, scope, q, 0, depth + 1) {
            Some((Value::Module(m), how)) => member_of_module(ctx, m, name, depth + 1).map(|s| (s, how)),
            Some((Value::Class(c) | Value::Instance(c), how)) => find_member(ctx, c, name, false).map(|s| (s, how)),
            Some(_) => None,
            None => by_qualified_path(ctx, scope, q, name),
        },
        None => lookup_name(ctx, scope, name, depth + 1),
    }?;
    ctx.program.kinds[found.0].is_type().then_some(found)
}

/// Resolves all references of one file into edges.
pub(crate) fn link_file(ctx: &mut Ctx, refs: &[RefRow]) -> Vec<NewEdge> {
    let p = ctx.program;
    let file = &p.files[ctx.file];
    let mut edges = Vec::new();

    // Syntactic relations: ParentOf and Construct, from the symbol tree.
    for &s in &p.file_syms[ctx.file] {
        let sym = &p.syms[s];
        if let Some(parent) = p.parent[s] {
            // A method adopted by a type of another file depends on that file.
            ctx.touch(parent);
            edges.push(edge(
                p.syms[parent].id,
                Some(sym.id),
                Relation::ParentOf,
                Resolution::Exact,
                &sym.name,
                None,
                sym.name_line,
                sym.name_col,
            ));
            if p.kinds[s] == SymbolKind::Constructor && p.kinds[parent].is_type() {
                edges.push(edge(
                    sym.id,
                    Some(p.syms[parent].id),
                    Relation::Construct,
                    Resolution::Exact,
                    &p.syms[parent].name,
                    None,
                    sym.name_line,
                    sym.name_col,
                ));
            }
        }
        // Overrides: the nearest method of the same name up the hierarchy.
        if matches!(p.kinds[s], SymbolKind::Method)
            && let Some(class) = p.parent[s].filter(|c| p.kinds[*c].is_type())
            && let Some(over) = find_in_bases(ctx, class, &sym.name)
            && p.kinds[over].is_callable()
        {
            edges.push(edge(
                sym.id,
                Some(p.syms[over].id),
                Relation::Overrides,
                Resolution::Exact,
                &sym.name,
                None,
                sym.name_line,
                sym.name_col,
            ));
        }
    }
    // Inheritance, from the class hierarchy resolved for the whole program.
    for &s in &p.file_syms[ctx.file] {
        let Some(inherits) = p.inherits.get(&s) else { continue };
        for r in inherits {
            ctx.steps = 0;
            let resolved = resolve_type_ref(ctx, s, r.qualifier.as_deref(), &r.name, 0).filter(|(b, _)| *b != s);
            let (dst, how) = match resolved {
                Some((b, how)) => (Some(p.syms[ctx.touch(b)].id), how),
                None => (None, Resolution::Unresolved),
            };
            edges.push(edge(p.syms[s].id, dst, Relation::DerivedClassOf, how, &r.name, r.qualifier.clone(), r.line, r.col));
        }
    }
    // Imports.
    for import in &file.imports {
        let r = &p.import_refs[import.at];
        let Some(&src) = p.sym_of_id.get(&r.enclosing_id) else { continue };
        ctx.steps = 0;
        let target = match &import.member {
            _ if import.wildcard => module_of(ctx, &import.module).map(|m| (m, Resolution::Exact)),
            Some(member) => {
                let m = module_of(ctx, &import.module);
                m.and_then(|m| member_of_module(ctx, m, member, 1)).or(m).map(|t| (t, Resolution::Exact))
            }
            None => module_of(ctx, &import.module).map(|m| (m, Resolution::Exact)),
        };
        let name = import.member.clone().unwrap_or_else(|| import.module.clone());
        let (dst, how) = match target {
            Some((t, how)) => (Some(p.syms[ctx.touch(t)].id), how),
            None => (None, Resolution::Unresolved),
        };
        edges.push(edge(p.syms[p.code_owner(src)].id, dst, Relation::Imports, how, &name, Some(import.module.clone()), r.line, r.col));
    }
    // Calls, instantiations and field uses.
    for r in refs {
        let Some(&innermost) = p.sym_of_id.get(&r.enclosing_id) else { continue };
        let mut enclosing = innermost;
        // Decorators run in the scope around the definition, not inside it.
        while r.line < p.syms[enclosing].name_line {
            match p.parent[enclosing] {
                Some(parent) => enclosing = parent,
                None => break,
            }
        }
        let src = p.syms[p.code_owner(enclosing)].id;
        let resolved = match r.kind.as_str() {
            "call" => {
                ctx.steps = 0;
                resolve_call(ctx, enclosing, r.qualifier.as_deref(), &r.name, r.line, 0)
            }
            "instantiate" => {
                ctx.steps = 0;
                resolve_type_ref(ctx, enclosing, r.qualifier.as_deref(), &r.name, 0)
            }
            "field_use" => {
                ctx.steps = 0;
                resolve_member_use(ctx, enclosing, r.qualifier.as_deref(), &r.name, r.line)
            }
            _ => continue,
        };
        let (dst, how, relation) = match resolved {
            Some((t, how)) => {
                ctx.touch(t);
                let relation = match r.kind.as_str() {
                    "field_use" => Relation::Uses,
                    _ if p.kinds[t].is_type() => Relation::Instantiates,
                    "instantiate" => Relation::Instantiates,
                    _ => Relation::Calls,
                };
                (Some(p.syms[t].id), how, relation)
            }
            // An attribute that names nothing in the repository (a dict's
            // `items`, a library object's field) stays a raw reference only:
            // as edges these would be a third of the graph and say nothing.
            None if r.kind == RefKind::FieldUse => continue,
            None => {
                let relation = if r.kind == RefKind::Instantiate { Relation::Instantiates } else { Relation::Calls };
                (None, Resolution::Unresolved, relation)
            }
        };
        edges.push(edge(src, dst, relation, how, &r.name, r.qualifier.clone(), r.line, r.col));
    }
    // By the relation's name, as when relations were strings: edge ordinals stay put.
    edges.sort_by(|a, b| {
        (a.line, a.col, a.relation.as_str(), a.src_id, a.dst_id).cmp(&(b.line, b.col, b.relation.as_str(), b.src_id, b.dst_id))
    });
    edges.dedup();
    edges
}

#[allow(clippy::too_many_arguments)]
fn edge(
    src: i64,
    dst: Option<i64>,
    relation: Relation,
    how: Resolution,
    name: &str,
    qualifier: Option<String>,
    line: u32,
    col: u32,
) -> NewEdge {
    NewEdge { src_id: src, dst_id: dst, relation, resolution: how, name: name.to_string(), qualifier, line, col }
}

/// The callee of `qualifier.name(...)` called from `scope`.
fn resolve_call(ctx: &mut Ctx, scope: Sym, qualifier: Option<&str>, name: &str, line: u32, depth: u32) -> Option<(Sym, Resolution)> {
    if !ctx.step(depth) {
        return None;
    }
    let p = ctx.program;
    match qualifier {
        None => {
            if ctx.family() == Scoping::Python && matches!(name, "cls") {
                return p.enclosing_type(scope).map(|c| (c, Resolution::Exact));
            }
            if ctx.family() == Scoping::Js && name == "super" {
                // The base's constructor, else the base itself (its implicit
                // constructor): `super()` changes with either.
                let class = p.enclosing_type(scope)?;
                let base = || p.bases.get(&class).and_then(|b| b.first().copied());
                return member_of_value(ctx, Value::Super(class), "constructor").or_else(base).map(|c| (ctx.touch(c), Resolution::Exact));
            }
            if ctx.family() == Scoping::Python
                && let Some(class) = class_typed_local(ctx, scope, name, depth + 1)
            {
                return Some((class, Resolution::TypeInferred));
            }
            let found = lookup_name(ctx, scope, name, depth + 1);
            match found {
                Some(f) => Some(f),
                None if ctx.family().members_in_scope() => {
                    let class = p.enclosing_type(scope)?;
                    find_member(ctx, class, name, false).map(|s| (s, Resolution::Exact))
                }
                None => None,
            }
        }
        Some(q) => {
            let receiver = eval(ctx, scope, q, line, depth + 1);
            match receiver {
                Some((value, how)) => {
                    let member = member_of_value(ctx, value, name)?;
                    // `self.config_class(…)`: calling a field that holds a class makes one.
                    Some((class_held_by(ctx, member, depth + 1).unwrap_or(member), how))
                }
                None => {
                    if let Some(s) = assigned_into_namespace(ctx, scope, q, name) {
                        return Some((s, Resolution::Exact));
                    }
                    // A receiver imported from outside the repository (`os.path`,
                    // `logging`) is not one of our classes: no guessing.
                    if names_import(ctx, scope, q) {
                        return None;
                    }
                    by_qualified_path(ctx, scope, q, name)
                        .or_else(|| if names_outside_type(ctx, q) { None } else { unique_member(ctx, name) })
                }
            }
        }
    }
}

/// The class a class-level field holds, as its declaration writes it:
/// `session_class = SecureCookieSession`, or an annotation
/// `json_provider_class: type[JSONProvider] = …` (flask's pluggable
/// classes). Calling the field instantiates that class.
fn class_held_by(ctx: &mut Ctx, field: Sym, depth: u32) -> Option<Sym> {
    let p = ctx.program;
    if p.kinds[field] != SymbolKind::Field || ctx.family() != Scoping::Python {
        return None;
    }
    let class = p.parent[field]?;
    let name = &p.syms[field].name;
    let b = p.bindings.get(&class)?.iter().find(|b| &b.name == name)?.clone();
    match b.source.as_str() {
        "annotation" => class_annotated(ctx, class, &b.type_text, depth + 1),
        "alias" => match eval(ctx, class, &b.type_text, b.line, depth + 1)? {
            (Value::Class(t), _) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// The class a `type[X]` annotation names (X itself, not an instance of it).
fn class_annotated(ctx: &mut Ctx, scope: Sym, annotation: &str, depth: u32) -> Option<Sym> {
    let inner = ["type[", "Type[", "t.Type[", "typing.Type["]
        .iter()
        .find_map(|open| annotation.trim().strip_prefix(open).and_then(|rest| rest.strip_suffix(']')))?;
    resolve_type_text(ctx, scope, inner, depth + 1)
}

/// A parameter or local of `scope` annotated `type[X]` (`tag_class:
/// type[JSONTag]`): calling it makes an X.
fn class_typed_local(ctx: &mut Ctx, scope: Sym, name: &str, depth: u32) -> Option<Sym> {
    let p = ctx.program;
    let b = p.bindings.get(&scope)?.iter().find(|b| b.name == name && b.source == "annotation")?.clone();
    class_annotated(ctx, scope, &b.type_text, depth)
}

/// `qualifier.name` read or written (not called) from `scope`.
fn resolve_member_use(ctx: &mut Ctx, scope: Sym, qualifier: Option<&str>, name: &str, line: u32) -> Option<(Sym, Resolution)> {
    let Some(q) = qualifier else {
        // A definition read by its bare name (`callback=validate`,
        // `{ error: handler }`): a use of it; a name that is no function or
        // class is none.
        if !matches!(ctx.family(), Scoping::Python | Scoping::Js) {
            return None;
        }
        let (s, how) = lookup_name(ctx, scope, name, 0)?;
        return (ctx.program.kinds[s].is_callable() || ctx.program.kinds[s].is_type()).then_some((s, how));
    };
    let Some((value, how)) = eval(ctx, scope, q, line, 0) else { return by_qualified_path(ctx, scope, q, name) };
    member_of_value(ctx, value, name).map(|s| (s, how))
}

/// `q.name` as one qualified name (`app.users`, `var.region`), where the
/// language names definitions by a path whose head is no symbol
/// ([`Scoping::qualified_by_path`]): the definition in the referencing
/// file's directory, else the only one in the repository.
fn by_qualified_path(ctx: &mut Ctx, scope: Sym, q: &str, name: &str) -> Option<(Sym, Resolution)> {
    let p = ctx.program;
    let family = ctx.family();
    if !family.qualified_by_path() {
        return None;
    }
    let found = p.by_qualified.get(&format!("{q}{}{name}", family.separator()))?;
    let dir = |s: Sym| p.files[p.sym_file[s]].row.path.rsplit_once('/').map_or("", |(d, _)| d);
    let here = dir(scope);
    let near: Vec<Sym> = found.iter().copied().filter(|&s| dir(s) == here).collect();
    match (near.as_slice(), found.as_slice()) {
        ([only], _) => Some((ctx.touch(*only), Resolution::Exact)),
        ([], [only]) => Some((ctx.touch(*only), Resolution::UniqueName)),
        _ => None,
    }
}

fn member_of_value(ctx: &mut Ctx, value: Value, name: &str) -> Option<Sym> {
    match value {
        // A mixin or abstract base calling a method only its subclasses
        // define (`self.send()` in a mixin): class hierarchy analysis finds it.
        Value::Instance(c) => find_member(ctx, c, name, false).or_else(|| find_in_subclasses(ctx, c, name)),
        Value::Class(c) => find_member(ctx, c, name, false),
        Value::Super(c) => find_in_bases(ctx, c, name),
        Value::Module(m) => member_of_module(ctx, m, name, 0),
    }
}

/// A JavaScript function assigned into a plain object that serves as a
/// namespace (`webidl.errors.exception = function (…)`), called through
/// that object in its own file or in one that imports it
/// (`webidl.errors.exception(…)`). The object has no type to look the
/// member up in, so the call's path is matched against the assignment's,
/// in the file that defines the object: the path's first name may differ
/// where an import renames it.
fn assigned_into_namespace(ctx: &mut Ctx, scope: Sym, q: &str, name: &str) -> Option<Sym> {
    if ctx.family() != Scoping::Js || !is_dotted_path(q) {
        return None;
    }
    let p = ctx.program;
    let (head, rest) = q.split_once('.').unwrap_or((q, ""));
    let here = p.sym_file[scope];
    let (home, first) = match p.files[here].import_by_local.get(head) {
        Some(&i) => {
            let import = &p.files[here].imports[i];
            let module = module_of(ctx, &import.module)?;
            (p.sym_file[module], import.member.as_deref())
        }
        None => (here, Some(head)),
    };
    let mut found = p.file_syms[home].iter().copied().filter(|&s| {
        let sym = &p.syms[s];
        let Some(target) = sym.head.trim().strip_suffix('.').filter(|t| is_dotted_path(t)) else { return false };
        let (target_head, target_rest) = target.split_once('.').unwrap_or((target, ""));
        sym.name == name && p.kinds[s].is_callable() && target_rest == rest && first.is_none_or(|f| f == target_head)
    });
    match (found.next(), found.next()) {
        (Some(only), None) => Some(ctx.touch(only)),
        _ => None,
    }
}

/// `a.b.c`: names joined by dots, nothing else.
fn is_dotted_path(text: &str) -> bool {
    !text.is_empty() && text.split('.').all(|part| !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$'))
}

/// Whether the receiver expression starts with a name the file imports.
fn names_import(ctx: &Ctx, scope: Sym, receiver: &str) -> bool {
    let p = ctx.program;
    let head = receiver.split(['.', '(', '[', ':']).next().unwrap_or(receiver).trim();
    p.files[p.sym_file[scope]].import_by_local.contains_key(head)
}

/// Whether a receiver that evaluated to none of ours is spelled as another
/// library's type or path (`Vec::with_capacity`, `Math.max`,
/// `std::mem::take`): a capitalised head no symbol or qualified name of the
/// repository has. Its methods are no guess for ours, however unique their
/// name is here. A lowercase receiver (`session.send`) may hold one of our
/// objects, and an Elixir or Ruby module path (`Shop.Priced`) is ours: both
/// stay guesses. Only where a capitalised name is a type's: in OCaml,
/// Elixir or Ruby it may be a module, or a functor's parameter (`S.area`).
fn names_outside_type(ctx: &Ctx, receiver: &str) -> bool {
    use Scoping::{CSharp, Dart, Go, Java, Js, Php, Python, Rust};
    if !matches!(ctx.family(), Python | Rust | Js | Go | Java | CSharp | Php | Dart) {
        return false;
    }
    let head = receiver.split(['.', '(', '[', ':', '<']).next().unwrap_or(receiver).trim();
    let spelled_as_type = (head.starts_with(|c: char| c.is_uppercase()) && head != "Self") || matches!(head, "std" | "core" | "alloc");
    spelled_as_type && !ctx.program.known_heads.contains(head)
}

/// A method or field name nobody else in the repository has.
fn unique_member(ctx: &mut Ctx, name: &str) -> Option<(Sym, Resolution)> {
    if is_common_method(name) || name.starts_with("__") {
        return None;
    }
    let p = ctx.program;
    let candidates = p.members_by_name.get(&ctx.family(), name);
    let callables: Vec<Sym> = candidates.iter().copied().filter(|s| p.kinds[*s].is_callable()).collect();
    only_definition(ctx, &callables).map(|s| (s, Resolution::UniqueName))
}

/// The one candidate, or the one defined outside declaration files: C's
/// headers declare what a source file defines (`lz4.h`, `lz4.c`), a `.d.ts`
/// types a JavaScript file's functions, a `.pyi` stubs a module.
fn only_definition(ctx: &mut Ctx, candidates: &[Sym]) -> Option<Sym> {
    let p = ctx.program;
    let found = match candidates {
        [only] => *only,
        several => {
            let mut defined = several.iter().filter(|&&s| !is_declaration_file(&p.files[p.sym_file[s]].row.path));
            match (defined.next(), defined.next()) {
                (Some(&only), None) => only,
                _ => return None,
            }
        }
    };
    Some(ctx.touch(found))
}

/// What the expression `text` (a receiver) denotes, seen from `scope`.
fn eval(ctx: &mut Ctx, scope: Sym, text: &str, line: u32, depth: u32) -> Option<(Value, Resolution)> {
    if !ctx.step(depth) {
        return None;
    }
    let p = ctx.program;
    let text = text.trim();
    let text = text.strip_prefix('&').unwrap_or(text).trim_start_matches("mut ").trim();
    // `new Handler()` (JavaScript, Java, C#, PHP): the call of the class.
    let text = text.strip_prefix("new ").map(str::trim_start).filter(|t| t.ends_with(')')).unwrap_or(text);
    match text {
        "self" | "this" | "$this" | "Self" | "static" | "cls" => {
            let class = p.enclosing_type(scope).or_else(|| impl_type(ctx, scope, depth + 1))?;
            let value = if matches!(text, "Self" | "static" | "cls") { Value::Class(class) } else { Value::Instance(class) };
            return Some((value, Resolution::Exact));
        }
        "super()" | "super" | "base" | "parent" => {
            let class = p.enclosing_type(scope)?;
            return Some((Value::Super(class), Resolution::Exact));
        }
        _ => {}
    }
    // `super(Class, self)`, the Python 2 spelling.
    if text.starts_with("super(") {
        let class = p.enclosing_type(scope)?;
        return Some((Value::Super(class), Resolution::Exact));
    }
    // A call: the callee's result.
    if text.ends_with(')') {
        let callee = callee_of(text)?;
        let (head, last) = split_last(callee, ctx.family());
        let (target, how) = resolve_call(ctx, scope, head, last, line, depth + 1)?;
        ctx.touch(target);
        return result_of(ctx, target, how, depth + 1);
    }
    if let (Some(head), last) = split_last(text, ctx.family()) {
        let (value, how) = eval(ctx, scope, head, line, depth + 1)?;
        // `Scheduler.prototype` (JavaScript): what every instance shares.
        if last == "prototype"
            && ctx.family() == Scoping::Js
            && let Value::Class(c) = value
        {
            return Some((Value::Instance(c), how));
        }
        return match value {
            Value::Module(m) => match member_of_module(ctx, m, last, depth + 1) {
                Some(s) => value_of_symbol(ctx, s, how, depth + 1),
                // A typed module-level variable (`current_app: Flask = …`).
                None => binding_type(ctx, m, last, u32::MAX, depth + 1).map(|t| (Value::Instance(t), Resolution::TypeInferred)),
            },
            Value::Instance(c) | Value::Class(c) | Value::Super(c) => {
                if let Some(t) = field_type(ctx, c, last, depth + 1) {
                    return Some((Value::Instance(t), Resolution::TypeInferred));
                }
                let member = find_member(ctx, c, last, false)?;
                match p.kinds[member] {
                    k if k.is_type() => Some((Value::Class(member), how)),
                    // A property: its declared return type.
                    k if k.is_callable() => result_of(ctx, member, how, depth + 1),
                    _ => None,
                }
            }
        };
    }
    // A plain name: a typed local first, then whatever the name resolves to.
    if let Some(t) = binding_type(ctx, scope, text, line, depth + 1) {
        return Some((Value::Instance(t), Resolution::TypeInferred));
    }
    if let Some((s, how)) = lookup_name(ctx, scope, text, depth + 1) {
        return value_of_symbol(ctx, s, how, depth + 1);
    }
    imported_variable(ctx, scope, text, depth + 1).map(|t| (Value::Instance(t), Resolution::TypeInferred))
}

/// The type of a typed module-level variable imported by name
/// (`from .globals import current_app`).
/// The type of a Rust `impl` in another file than the type's
/// (`impl Display for Version` in `display.rs`): its methods sit in the
/// module (`crate::display::Version::fmt`), and the type is the name the
/// module sees (`use crate::Version`).
fn impl_type(ctx: &mut Ctx, scope: Sym, depth: u32) -> Option<Sym> {
    let p = ctx.program;
    if p.files[p.sym_file[scope]].family != Scoping::Rust {
        return None;
    }
    let mut method = scope;
    for _ in 0..8 {
        let parent = p.parent[method]?;
        if p.kinds[parent] == SymbolKind::Module {
            break;
        }
        method = parent;
    }
    let mut segments = p.syms[method].qualified_name.rsplit("::");
    let (_, type_name) = (segments.next()?, segments.next()?);
    let (found, _) = lookup_name(ctx, method, type_name, depth)?;
    ctx.program.kinds[found].is_type().then_some(found)
}

fn imported_variable(ctx: &mut Ctx, scope: Sym, name: &str, depth: u32) -> Option<Sym> {
    let p = ctx.program;
    let info = &p.files[p.sym_file[scope]];
    let import = &info.imports[*info.import_by_local.get(name)?];
    let member = import.member.as_deref()?;
    let m = module_of(ctx, &import.module)?;
    binding_type(ctx, m, member, u32::MAX, depth + 1)
}

fn value_of_symbol(ctx: &mut Ctx, s: Sym, how: Resolution, depth: u32) -> Option<(Value, Resolution)> {
    let p = ctx.program;
    ctx.touch(s);
    match p.kinds[s] {
        SymbolKind::Module => Some((Value::Module(s), how)),
        k if k.is_type() => Some((Value::Class(s), how)),
        SymbolKind::Constant | SymbolKind::Field => {
            // A module-level or class-level variable with a known type.
            let owner = p.parent[s]?;
            let t = binding_type(ctx, owner, &p.syms[s].name, u32::MAX, depth + 1)?;
            Some((Value::Instance(t), Resolution::TypeInferred))
        }
        _ => None,
    }
}

/// The value a call to `target` returns: an instance of the class it
/// constructs, or of its declared return type.
fn result_of(ctx: &mut Ctx, target: Sym, how: Resolution, depth: u32) -> Option<(Value, Resolution)> {
    let p = ctx.program;
    if p.kinds[target].is_type() {
        return Some((Value::Instance(target), how));
    }
    if p.kinds[target] == SymbolKind::Constructor {
        return p.parent[target].map(|c| (Value::Instance(c), how));
    }
    let ret = p.syms[target].return_type.as_deref()?;
    let t = resolve_type_text(ctx, target, ret, depth + 1)?;
    Some((Value::Instance(t), Resolution::TypeInferred))
}

/// The type of a name bound in `scope` or an enclosing scope, from the
/// latest binding at or before `line` (any binding if none precedes it).
fn binding_type(ctx: &mut Ctx, scope: Sym, name: &str, line: u32, depth: u32) -> Option<Sym> {
    if !ctx.step(depth) {
        return None;
    }
    let p = ctx.program;
    let mut s = Some(scope);
    for _ in 0..16 {
        let here = s?;
        if let Some(list) = p.bindings.get(&here) {
            // Latest first among those before the use, then the rest; an
            // annotation beats the value on its own line (`x: T = make()`).
            let mut matching: Vec<&ken_store::BindingRow> = list.iter().filter(|b| b.name == name).collect();
            matching.sort_by_key(|b| (b.line > line, std::cmp::Reverse(b.line), b.source != "annotation"));
            for b in matching.into_iter().take(4) {
                ctx.touch(here);
                if let Some(t) = type_of_binding(ctx, here, b, depth + 1) {
                    return Some(t);
                }
            }
        }
        // Class bodies do not enclose their methods' names in Python or JS.
        s = p.parent[here];
    }
    None
}

fn type_of_binding(ctx: &mut Ctx, scope: Sym, b: &ken_store::BindingRow, depth: u32) -> Option<Sym> {
    match b.source.as_str() {
        "annotation" => resolve_type_text(ctx, scope, &b.type_text, depth),
        "call" => {
            let (head, last) = split_last(&b.type_text, ctx.family());
            let (target, how) = resolve_call(ctx, scope, head, last, b.line, depth + 1)?;
            ctx.touch(target);
            match result_of(ctx, target, how, depth + 1)? {
                (Value::Instance(t), _) => Some(t),
                _ => None,
            }
        }
        "alias" => {
            if b.type_text == b.name {
                return None;
            }
            match eval(ctx, scope, &b.type_text.clone(), b.line, depth + 1)? {
                (Value::Instance(t), _) => Some(t),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The type of field `name` of class `class` (or its bases): a class-level
/// annotation, or an assignment `self.name = …` in one of its methods.
fn field_type(ctx: &mut Ctx, class: Sym, name: &str, depth: u32) -> Option<Sym> {
    if depth > MAX_DEPTH {
        return None;
    }
    let p = ctx.program;
    let receivers = ["self.", "this.", "$this->", "@"];
    for c in mro(ctx, class) {
        if let Some(list) = p.bindings.get(&c)
            && let Some(b) = list.iter().find(|b| b.name == name)
            && let Some(t) = type_of_binding(ctx, c, b, depth + 1)
        {
            return Some(t);
        }
        // Assignments in methods, `__init__` first.
        let mut methods: Vec<Sym> = p.children_of.get(&c).into_iter().flatten().copied().filter(|m| p.kinds[*m].is_callable()).collect();
        methods.sort_by_key(|m| (p.kinds[*m] != SymbolKind::Constructor, p.syms[*m].start_line));
        for m in methods {
            let Some(list) = p.bindings.get(&m) else { continue };
            // TypeScript's and PHP's parameter properties (`constructor(private s: Session)`)
            // are fields bound by their bare name in the constructor.
            let property = |b: &&ken_store::BindingRow| {
                p.kinds[m] == SymbolKind::Constructor
                    && matches!(ctx.family(), Scoping::Js | Scoping::Php)
                    && b.source == "annotation"
                    && b.name.trim_start_matches('$') == name
            };
            let hit = list.iter().find(|b| receivers.iter().any(|r| b.name.strip_prefix(r) == Some(name)) || property(b));
            if let Some(b) = hit
                && let Some(t) = type_of_binding(ctx, m, b, depth + 1)
            {
                return Some(t);
            }
        }
    }
    None
}

/// Resolves a type as written (`Optional[Session]`, `&mut Vec<T>`,
/// `"Client"`, `Session | None`) to a class of the repository.
fn resolve_type_text(ctx: &mut Ctx, scope: Sym, text: &str, depth: u32) -> Option<Sym> {
    if depth > MAX_DEPTH {
        return None;
    }
    for candidate in type_candidates(text) {
        if candidate == "Self" {
            if let Some(c) = ctx.program.enclosing_type(scope) {
                return Some(c);
            }
            continue;
        }
        let (head, last) = split_last(&candidate, ctx.family());
        if let Some((t, _)) = resolve_type_ref(ctx, scope, head, last, depth + 1) {
            return Some(t);
        }
    }
    None
}

/// The class names a written type may stand for, most likely first: the
/// type itself, then what optional and smart-pointer wrappers hold.
fn type_candidates(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    push_type_candidates(text, 0, &mut out);
    out
}

/// Type texts come from user files and may nest without end (or be cut
/// short by the miner with `…`): recursion stops at `MAX_TYPE_NESTING`, and
/// every slice is taken at a char boundary.
const MAX_TYPE_NESTING: u32 = 16;

fn push_type_candidates(text: &str, nesting: u32, out: &mut Vec<String>) {
    if nesting > MAX_TYPE_NESTING {
        return;
    }
    let mut t = text.trim().trim_matches(|c| c == '"' || c == '\'').trim();
    for prefix in ["&'static ", "&mut ", "&", "*", "mut ", "dyn ", "impl ", "const ", "?"] {
        while let Some(rest) = t.strip_prefix(prefix) {
            t = rest.trim_start();
        }
    }
    let t = t.trim_end_matches(['?', '*', '&']).trim();
    // `X | None`, `Union[X, None]`: the non-None parts.
    if t.contains('|') {
        for part in t.split('|').map(str::trim).filter(|p| !matches!(*p, "None" | "null" | "undefined")) {
            push_type_candidates(part, nesting + 1, out);
        }
        return;
    }
    let Some(open) = t.find(['[', '<']) else {
        if !t.is_empty() {
            out.push(t.to_string());
        }
        return;
    };
    let outer = t[..open].trim();
    // The arguments, without the closing bracket when there is one.
    let args = &t[open + 1..];
    let inner = args.strip_suffix([']', '>']).unwrap_or(args);
    let short = outer.rsplit(['.', ':']).next().unwrap_or(outer);
    let wrapper = matches!(
        short,
        "Optional"
            | "Union"
            | "Option"
            | "Box"
            | "Rc"
            | "Arc"
            | "RefCell"
            | "Cell"
            | "Mutex"
            | "RwLock"
            | "Ref"
            | "RefMut"
            | "Pin"
            | "Weak"
            | "Type"
            | "type"
            | "ClassVar"
            | "Final"
            | "Annotated"
            | "Promise"
            | "Readonly"
            | "Partial"
            | "NonNullable"
            | "Awaitable"
            | "Coroutine"
            | "Task"
            | "ValueTask"
    );
    if matches!(short, "Result" | "Poll") {
        // The success type (or the item) is what the caller works on.
        if let Some(first) = split_top_level(inner).first() {
            push_type_candidates(first, nesting + 1, out);
        }
    } else if wrapper {
        for part in split_top_level(inner) {
            if !matches!(part.trim(), "None" | "null" | "undefined") {
                push_type_candidates(part, nesting + 1, out);
            }
        }
    } else if !outer.is_empty() {
        out.push(outer.to_string());
    }
}

fn split_top_level(text: &str) -> Vec<&str> {
    let (mut depth, mut start, mut out) = (0i32, 0usize, Vec::new());
    for (i, c) in text.char_indices() {
        match c {
            '[' | '<' | '(' => depth += 1,
            ']' | '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out
}

fn strip_generics(name: &str) -> &str {
    let name = name.trim();
    match name.find(['<', '[', '(']) {
        Some(i) if i > 0 => name[..i].trim(),
        _ => name,
    }
}

/// `a.b.c` into (`a.b`, `c`), by the family's member separators.
fn split_last(text: &str, family: Scoping) -> (Option<&str>, &str) {
    let text = text.trim();
    let mut best: Option<(usize, usize)> = None;
    let (mut depth, bytes) = (0i32, text.as_bytes());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'(' | b'[' | b'<' => depth += 1,
            b')' | b']' | b'>' if !(bytes[i] == b'>' && i > 0 && bytes[i - 1] == b'-') => depth -= 1,
            b'.' if depth == 0 => best = Some((i, 1)),
            b':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => {
                best = Some((i, 2));
                i += 1;
            }
            b'-' if depth == 0 && bytes.get(i + 1) == Some(&b'>') && family != Scoping::Rust => {
                best = Some((i, 2));
                i += 1;
            }
            b'\\' if depth == 0 && family == Scoping::Php => best = Some((i, 1)),
            _ => {}
        }
        i += 1;
    }
    match best {
        Some((at, len)) if at > 0 && at + len < text.len() => (Some(&text[..at]), &text[at + len..]),
        _ => (None, text),
    }
}

/// `a.b(x, y)` → `a.b`; `f(x)(y)` → `f(x)`.
fn callee_of(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let mut depth = 0i32;
    for i in (0..bytes.len()).rev() {
        match bytes[i] {
            b')' | b']' => depth += 1,
            b'(' | b'[' => {
                depth -= 1;
                if depth == 0 {
                    let callee = text[..i].trim();
                    return (!callee.is_empty()).then_some(callee);
                }
            }
            _ => {}
        }
    }
    None
}

/// A plain name seen from `scope`.
fn lookup_name(ctx: &mut Ctx, scope: Sym, name: &str, depth: u32) -> Option<(Sym, Resolution)> {
    if !ctx.step(depth) || name.is_empty() {
        return None;
    }
    let p = ctx.program;
    let family = p.files[p.sym_file[scope]].family;
    let file = p.sym_file[scope];
    // Enclosing scopes: nested definitions, then (where the language allows)
    // class members, up to the module.
    let mut s = Some(scope);
    let mut left_body = false;
    for _ in 0..32 {
        let Some(here) = s else { break };
        let is_type = p.kinds[here].is_type();
        // Where class members are not in scope (Python, JS, Rust, Go), a
        // class body sees only its nested types, and methods see nothing of
        // it; but a Python class body runs as a scope of its own and sees
        // what it has defined (`clear = pop = _fail`, `del _fail`): the
        // first class reached from a field, before any function.
        let own_python_body = is_type && !left_body && family == Scoping::Python;
        left_body |= is_type || p.kinds[here].is_callable();
        let types_only = is_type && !family.members_in_scope() && !own_python_body;
        if (!types_only || here == scope)
            && let Some(&found) = p.children_named(here, name).iter().find(|&&c| !types_only || p.kinds[c].is_type())
        {
            return Some((ctx.touch(found), Resolution::Exact));
        }
        if is_type
            && family.members_in_scope()
            && let Some(found) = find_in_bases(ctx, here, name)
        {
            return Some((found, Resolution::Exact));
        }
        s = p.parent[here];
    }
    if let Some(found) = lookup_in_file(ctx, file, name, depth + 1) {
        return Some((found, Resolution::Exact));
    }
    // Same package (Go, Java) or namespace (C#).
    if let Some(pkg) = &p.files[file].row.package
        && matches!(family, Scoping::Go | Scoping::Java | Scoping::CSharp | Scoping::Php)
    {
        let mut pkg = pkg.clone();
        for _ in 0..8 {
            {
                for &f in p.packages.get(&family, &pkg) {
                    if let Some(m) = p.files[f].module_sym
                        && let Some(&found) = p.children_named(m, name).first()
                    {
                        return Some((ctx.touch(found), Resolution::Exact));
                    }
                }
            }
            // C# sees enclosing namespaces too.
            match (family, pkg.rfind('.')) {
                (Scoping::CSharp, Some(i)) => pkg.truncate(i),
                _ => break,
            }
        }
    }
    // A fully qualified name, of this language family (a C function's bare
    // name is its qualified name too).
    if matches!(family, Scoping::Java | Scoping::CSharp | Scoping::Rust | Scoping::Php | Scoping::Ocaml)
        && let Some(found) = p.by_qualified.get(name).and_then(|v| v.iter().find(|&&s| p.files[p.sym_file[s]].family == family))
    {
        return Some((ctx.touch(*found), Resolution::Exact));
    }
    if family == Scoping::Python && is_python_builtin(name) {
        return None;
    }
    // A unique type or function of that name anywhere in the repository.
    let candidates = p.global_by_name.get(&family, name);
    only_definition(ctx, candidates).or_else(|| one_file_definition(ctx, candidates)).map(|s| (s, Resolution::UniqueName))
}

/// The first of several definitions that one file holds: the branches of
/// an `#if`, or of a Python `try`/`except ImportError`, each defining the
/// same function for another configuration. Source files first; a header's
/// own (`static inline` helpers) when only headers define the name.
fn one_file_definition(ctx: &mut Ctx, candidates: &[Sym]) -> Option<Sym> {
    let p = ctx.program;
    let mut defined: Vec<Sym> = candidates.iter().copied().filter(|&s| !is_declaration_file(&p.files[p.sym_file[s]].row.path)).collect();
    if defined.is_empty() {
        defined = candidates.to_vec();
    }
    let (&first, rest) = defined.split_first()?;
    let same = |s: Sym| p.sym_file[s] == p.sym_file[first] && p.kinds[s] == p.kinds[first] && p.parent[s] == p.parent[first];
    (!rest.is_empty() && rest.iter().all(|&s| same(s))).then(|| ctx.touch(first))
}

/// A file that declares what others define: a C or C++ header, a
/// TypeScript declaration file, a Python stub.
fn is_declaration_file(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    let declares_types = [".d.ts", ".d.mts", ".d.cts"].iter().any(|ext| file.ends_with(ext));
    declares_types || file.rsplit_once('.').is_some_and(|(_, ext)| matches!(ext, "h" | "hh" | "hpp" | "hxx" | "inl" | "pyi"))
}

/// A name at the top level of `file`: its own definitions, its imports and
/// its wildcard imports.
fn lookup_in_file(ctx: &mut Ctx, file: usize, name: &str, depth: u32) -> Option<Sym> {
    if depth > MAX_DEPTH {
        return None;
    }
    let p = ctx.program;
    let info = &p.files[file];
    if let Some(m) = info.module_sym
        && let Some(&found) = p.children_named(m, name).first()
    {
        return Some(ctx.touch(found));
    }
    if let Some(&i) = info.import_by_local.get(name) {
        let import = &info.imports[i];
        let module = module_of(ctx, &import.module);
        let found = match &import.member {
            Some(member) => match module {
                Some(m) => member_of_module(ctx, m, member, depth + 1).or_else(|| {
                    // A default import names the module's default export: by
                    // convention the class or function of the local name
                    // (`export default class Pool`, `module.exports = Pool`),
                    // else the module.
                    (info.family == Scoping::Js).then(|| {
                        let export = p.children_named(m, name).iter().copied().find(|&c| p.kinds[c].is_type() || p.kinds[c].is_callable());
                        export.unwrap_or(m)
                    })
                }),
                None => None,
            },
            None => module,
        };
        if let Some(f) = found {
            return Some(ctx.touch(f));
        }
    }
    for import in info.imports.iter().filter(|i| i.wildcard) {
        if let Some(found) = wildcard_member(ctx, info.family, &import.module, name, depth + 1) {
            return Some(ctx.touch(found));
        }
    }
    None
}

/// `name` through a wildcard import of `module` (Python `*`, Rust glob,
/// Java `pkg.*`, C# `using`, Go dot import).
fn wildcard_member(ctx: &mut Ctx, family: Scoping, module: &str, name: &str, depth: u32) -> Option<Sym> {
    let p = ctx.program;
    if let Some(m) = module_of_family(ctx, family, module)
        && let Some(found) = member_of_module(ctx, m, name, depth)
    {
        return Some(found);
    }
    {
        for &f in p.packages.get(&family, module) {
            if let Some(m) = p.files[f].module_sym
                && let Some(&found) = p.children_named(m, name).first()
            {
                return Some(found);
            }
        }
    }
    let sep = family.separator();
    p.by_qualified.get(&format!("{module}{sep}{name}")).and_then(|v| v.first().copied())
}

fn module_of(ctx: &mut Ctx, module: &str) -> Option<Sym> {
    let family = ctx.family();
    module_of_family(ctx, family, module)
}

/// The module symbol of a module path. Go imports name a directory by a
/// path whose tail matches the module.
fn module_of_family(ctx: &mut Ctx, family: Scoping, module: &str) -> Option<Sym> {
    let p = ctx.program;
    if let Some(&m) = p.module_syms(family, module).first() {
        return Some(ctx.touch(m));
    }
    if family == Scoping::Go {
        let parts: Vec<&str> = module.split('/').collect();
        for start in 1..parts.len() {
            let tail = parts[start..].join("/");
            if let Some(&m) = p.module_syms(family, &tail).first() {
                return Some(ctx.touch(m));
            }
        }
        // The import path's tail, longest first, under a directory of the repository.
        for start in 1..parts.len() {
            if let Some(m) = p.module_ending_with(family, &parts[start..].join("/")) {
                return Some(ctx.touch(m));
            }
        }
    }
    if matches!(family, Scoping::C | Scoping::Dart) {
        // `util` or `../lib/util`, relative to the importer or a source root;
        // a Dart package's `lib/a` below the directory the package is in.
        if let Some(m) = p.module_ending_with(family, module.trim_start_matches("../")) {
            return Some(ctx.touch(m));
        }
        // `#include "util/list.h"`, `#import "Circle.h"`: the header's module.
        let header = module.trim_matches('"').trim_start_matches("./").trim_start_matches("../");
        if let Some(stem) = [".h", ".hpp", ".hh", ".hxx"].iter().find_map(|e| header.strip_suffix(e)) {
            if let Some(&m) = p.module_syms(family, stem).first() {
                return Some(ctx.touch(m));
            }
            if let Some(m) = p.module_ending_with(family, stem) {
                return Some(ctx.touch(m));
            }
        }
    }
    if family == Scoping::Js {
        // An import of `x` from the file `x/index.ts` or `x.d.ts`.
        for candidate in [format!("{module}/index"), format!("{module}.d")] {
            if let Some(&m) = p.module_syms(family, &candidate).first() {
                return Some(ctx.touch(m));
            }
        }
    }
    None
}

/// `name` as a member of module `m`: a definition, a re-export, a
/// wildcard-imported name, or a submodule.
fn member_of_module(ctx: &mut Ctx, m: Sym, name: &str, depth: u32) -> Option<Sym> {
    if depth > MAX_DEPTH {
        return None;
    }
    let p = ctx.program;
    let file = p.sym_file[m];
    let info = &p.files[file];
    // Packages span several files (a Go directory, a Java, Kotlin or C#
    // package): any file of the package, whichever one `m` is.
    let spans_files = matches!(info.family, Scoping::Go | Scoping::Java | Scoping::CSharp | Scoping::Php);
    let siblings: Vec<Sym> = if spans_files { p.module_syms(info.family, &info.row.module).to_vec() } else { vec![m] };
    for s in &siblings {
        if let Some(&found) = p.children_named(*s, name).first() {
            return Some(ctx.touch(found));
        }
    }
    if let Some(found) = lookup_in_file(ctx, file, name, depth + 1) {
        return Some(found);
    }
    let sep = info.family.separator();
    let sub = format!("{}{}{}", info.row.module, sep, name);
    if let Some(&found) = p.module_syms(info.family, &sub).first() {
        return Some(ctx.touch(found));
    }
    None
}

/// `name` in class `class` or, failing that, its bases (nearest first).
fn find_member(ctx: &mut Ctx, class: Sym, name: &str, skip_self: bool) -> Option<Sym> {
    let p = ctx.program;
    for c in mro(ctx, class).into_iter().skip(usize::from(skip_self)) {
        if let Some(&found) = p.children_named(c, name).first() {
            return Some(ctx.touch(found));
        }
    }
    None
}

/// `name` defined by exactly one class derived from `class`.
fn find_in_subclasses(ctx: &mut Ctx, class: Sym, name: &str) -> Option<Sym> {
    let p = ctx.program;
    let mut seen: FxHashSet<Sym> = FxHashSet::default();
    let mut queue = vec![class];
    let mut found: Option<Sym> = None;
    while let Some(c) = queue.pop() {
        for &d in p.derived.get(&c).into_iter().flatten() {
            if seen.len() > 64 || !seen.insert(d) {
                continue;
            }
            if let Some(&m) = p.children_named(d, name).first() {
                if found.is_some_and(|f| f != m) {
                    return None;
                }
                found = Some(m);
            } else {
                queue.push(d);
            }
        }
    }
    found.map(|m| ctx.touch(m))
}

fn find_in_bases(ctx: &mut Ctx, class: Sym, name: &str) -> Option<Sym> {
    find_member(ctx, class, name, true)
}

/// The class and its ancestors, breadth-first, each once: a linearisation
/// that is exact for single inheritance and close to C3 otherwise.
fn mro(ctx: &mut Ctx, class: Sym) -> Vec<Sym> {
    let p = ctx.program;
    let mut out = vec![class];
    let mut seen: FxHashSet<Sym> = FxHashSet::default();
    seen.insert(class);
    let mut i = 0;
    while i < out.len() && out.len() < 64 {
        if let Some(bases) = p.bases.get(&out[i]) {
            for &b in bases {
                if seen.insert(b) {
                    ctx.touch(b);
                    out.push(b);
                }
            }
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::type_candidates;
    use expect_test::{Expect, expect};

    fn check(text: &str, expect: Expect) {
        expect.assert_eq(&format!("{:?}", type_candidates(text)));
    }

    #[test]
    fn wrappers_give_what_they_hold() {
        check("Optional[Session]", expect![[r#"["Session"]"#]]);
        check("Union[Request, None]", expect![[r#"["Request"]"#]]);
        check("Session | None", expect![[r#"["Session"]"#]]);
        check("&mut Arc<Mutex<Pool>>", expect![[r#"["Pool"]"#]]);
        check("Result<Response, Error>", expect![[r#"["Response"]"#]]);
        check("Dict[str, Any]", expect![[r#"["Dict"]"#]]);
    }

    /// Regression: langchain-core 1.7.2 and fastapi 0.135.3 crashed `ken index`
    /// on signatures the miner had cut with `…` (a 3-byte char at the end).
    #[test]
    fn cut_and_unclosed_type_texts() {
        check("Callable[[AsyncIterator[Output]], AsyncIterato…", expect![[r#"["Callable"]"#]]);
        check("Optional[AsyncIterato…", expect![[r#"["AsyncIterato…"]"#]]);
        check("Annotated[str, Form(), Doc(…", expect![[r#"["str", "Form()", "Doc(…"]"#]]);
        check("Optional[", expect!["[]"]);
        check("[", expect!["[]"]);
        check("Box<é>", expect![[r#"["é"]"#]]);
    }

    /// Nesting without end stops at a bound instead of overflowing the stack.
    #[test]
    fn deep_nesting_is_bounded() {
        let deep = format!("{}Pool{}", "Optional[".repeat(100_000), "]".repeat(100_000));
        check(&deep, expect!["[]"]);
        let shallow = format!("{}Pool{}", "Optional[".repeat(5), "]".repeat(5));
        check(&shallow, expect![[r#"["Pool"]"#]]);
    }

    /// Random type texts from brackets, wrappers and multi-byte characters
    /// never panic, and every candidate is a piece of the text.
    #[test]
    fn random_type_texts() {
        const PALETTE: &[&str] = &[
            "Optional[",
            "Result<",
            "Box<",
            "[",
            "]",
            "<",
            ">",
            "(",
            ")",
            ",",
            " | ",
            "None",
            "&",
            "*",
            "mut ",
            "'",
            "\"",
            "…",
            "é",
            "A",
            "b",
            ".",
            "::",
        ];
        let mut rng = ken_test_support::Rng::new(0x9E37_79B9_7F4A_7C15);
        let mut next = || rng.next_u64();
        for _ in 0..20_000 {
            let len = (next() % 24) as usize;
            let text: String = (0..len).map(|_| PALETTE[(next() % PALETTE.len() as u64) as usize]).collect();
            for candidate in type_candidates(&text) {
                assert!(text.contains(candidate.as_str()), "{text:?} gave {candidate:?}");
            }
        }
    }
}
