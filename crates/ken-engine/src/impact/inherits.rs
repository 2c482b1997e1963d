//! What a class loses with a base class: the uses of the members and
//! attributes it inherited, its calls through `super`, and the places that
//! read it as the base it no longer is.

use super::direct_hit;
use crate::Error;
use crate::api::FileVersions;
use ken_change::edit::parameters;
use ken_change::flow::{Place, Slot, ValueQuery, function_type_parameters, lambda_arguments, value_reads};
use ken_change::{Change, Rel};
use ken_core::{Language, RefKind, Relation, Resolution, Scoping, SymbolKind};
use ken_graph::{Graph, Hit, Site};
use ken_store::{BindingRow, EdgeRow, Store, SymbolRow};
use rustc_hash::{FxHashMap, FxHashSet};
use std::path::Path;
use std::rc::Rc;

/// A class that lost a base class (its header in D′ no longer names it):
/// the uses of what it inherited from that base and the base's own bases,
/// less the names the class defines itself (`self.send(…)` inherited from
/// `BaseAdapter` once `class HTTPAdapter(BaseAdapter)` is `class HTTPAdapter`):
/// - the inherited members' calls and uses in the class's members and its
///   subclasses', and elsewhere through a receiver declared as one of them
///   (`scheduler.actions` where `scheduler: AsapScheduler`, or an imported
///   `current_app: Flask`);
/// - the instance attributes the lost bases assign (`self.config`), read
///   the same ways;
/// - the class and its subclasses read as values (passed, stored, caught,
///   raised), and so the module-level instances of them
///   (`asyncScheduler = new AsyncScheduler(…)` as a parameter's default);
/// - the family's instantiations that used an inherited constructor
///   (`RemoteProtocolError(msg, request=r)` once `ProtocolError` is no
///   `TransportError`): with arguments, they now call `object()`;
/// - the class's own calls through `super` (`super(…)`,
///   `super.unsubscribe()`), which name the lost base even where the class
///   has a member of that name;
/// - where the lost bases reach outside the repository (`click.Group`),
///   whose members the index does not know: what the family reads through
///   `self`, `super` or a receiver declared as one of it, and defines
///   nowhere itself.
pub(super) fn lost_inheritance(
    store: &Store,
    graph: &Graph,
    path: &str,
    change: &Change,
    versions: &[FileVersions],
) -> Result<Vec<Hit>, Error> {
    const USES: [Relation; 3] = [Relation::Calls, Relation::Uses, Relation::Instantiates];
    let (Some(after), Some(file)) = (change.after, versions.iter().find(|v| v.path == path)) else { return Ok(Vec::new()) };
    // The header: from the class's first line to the one that opens its body.
    let header: String = file
        .after
        .lines()
        .skip(after.start.saturating_sub(1) as usize)
        .take(8)
        .scan(false, |done, line| {
            let keep = !*done;
            *done |= line.contains(':') || line.contains('{');
            keep.then(|| line.to_string())
        })
        .collect::<Vec<_>>()
        .join(" ");
    let names_in_header: Vec<&str> = header.split(|c: char| !(c.is_alphanumeric() || c == '_')).collect();
    // A base is kept where the new header still names it (twice where it
    // shares the class's name: `class EnvironBuilder(werkzeug.test.EnvironBuilder)`).
    let kept = |base_name: &str, class: &str| {
        let last = base_name.rsplit(['.', ':']).next().unwrap_or(base_name);
        names_in_header.iter().filter(|n| **n == last).count() > usize::from(last == class)
    };
    let mut facts = Facts::new(store);
    let mut hits = Vec::new();
    let mut add = |symbol: SymbolRow, resolution: Resolution, path: String, line: u32, col: u32| {
        hits.push(direct_hit(symbol, Rel::Inherits, resolution, Site { path, line, col }))
    };
    for class in store.symbols_with_qualified_name(&change.symbol)?.into_iter().filter(|s| s.path == path) {
        // The class's names: its members' and the attributes its methods assign.
        let mut own: FxHashSet<String> = facts.members(class.id)?.iter().map(|m| m.name.clone()).collect();
        own.extend(facts.assigned_attributes(&class)?.iter().cloned());
        // The bases, lost or kept, each with its ancestors in the index.
        let mut lost: FxHashMap<i64, String> = FxHashMap::default();
        let mut lost_constructors: FxHashSet<String> = FxHashSet::default();
        let mut attributes: FxHashSet<String> = FxHashSet::default();
        let mut kept_names: FxHashSet<String> = FxHashSet::default();
        let (mut lost_a_base, mut lost_outside, mut kept_outside) = (false, false, false);
        for base in store.unresolved_bases(class.id)? {
            if kept(&base, &class.name) {
                kept_outside = true;
            } else {
                (lost_a_base, lost_outside) = (true, true);
            }
        }
        for base in store.edges_from(class.id, &[Relation::DerivedClassOf])? {
            let is_kept = kept(&base.name, &class.name);
            lost_a_base |= !is_kept;
            let Some(base_id) = base.dst else { continue };
            let Some(base_symbol) = facts.symbol(base_id)? else { continue };
            let ancestors = graph.follow(base_symbol.clone(), &[Relation::DerivedClassOf], false, 8)?.hits;
            for ancestor in std::iter::once(base_symbol).chain(ancestors.into_iter().map(|h| h.symbol)) {
                let outside = !store.unresolved_bases(ancestor.id)?.is_empty();
                let ancestor_attributes = facts.assigned_attributes(&ancestor)?.clone();
                let ancestor_members = facts.members(ancestor.id)?.clone();
                if is_kept {
                    kept_outside |= outside;
                    kept_names.extend(ancestor_attributes);
                    kept_names.extend(ancestor_members.into_iter().map(|m| m.name));
                } else {
                    lost_outside |= outside;
                    attributes.extend(ancestor_attributes);
                    for member in ancestor_members {
                        lost.insert(member.id, member.name.clone());
                        // By name too: a read through `this` the resolver left unbound.
                        if member.kind == SymbolKind::Constructor {
                            lost_constructors.insert(member.name);
                        } else {
                            attributes.insert(member.name);
                        }
                    }
                }
            }
        }
        if !lost_a_base {
            continue;
        }
        let inherited: FxHashSet<i64> =
            lost.iter().filter(|(_, name)| !own.contains(*name) && !kept_names.contains(*name)).map(|(id, _)| *id).collect();
        let subclasses = graph.follow(class.clone(), &[Relation::DerivedClassOf], true, 8)?.hits;
        let family: Vec<SymbolRow> = std::iter::once(class.clone()).chain(subclasses.into_iter().map(|h| h.symbol)).collect();
        let family_names: FxHashSet<&str> = family.iter().map(|c| c.name.as_str()).collect();
        let mut walked: FxHashSet<i64> = FxHashSet::default();
        let mut own_members: FxHashSet<i64> = FxHashSet::default();
        for user in &family {
            let user_members: Vec<i64> = facts.members(user.id)?.iter().map(|m| m.id).collect();
            for member in std::iter::once(user.id).chain(user_members) {
                walked.insert(member);
                if user.id == class.id {
                    own_members.insert(member);
                }
                for edge in store.edges_from(member, &USES)? {
                    let Some(dst) = edge.dst else { continue };
                    let through_super = user.id == class.id
                        && lost.contains_key(&dst)
                        && facts.calls_super(&edge.name, edge.qualifier.as_deref(), &edge.path, edge.line)?;
                    if !inherited.contains(&dst) && !through_super {
                        continue;
                    }
                    let Some(symbol) = facts.symbol(member)? else { continue };
                    add(symbol, edge.resolution, edge.path, edge.line, edge.col);
                }
            }
        }
        // Instance attributes the lost bases assign and the class does not:
        // read through `self` in the family, or through a receiver declared
        // as one of it (`self.config`, `app.url_map` once `Flask` is no `App`).
        attributes.retain(|a| !own.contains(a) && !kept_names.contains(a));
        let mut attributes: Vec<String> = attributes.into_iter().collect();
        attributes.sort();
        for attribute in &attributes {
            for kind in [RefKind::FieldUse, RefKind::Call] {
                for (r, file) in store.refs_named(attribute, kind)? {
                    let Some(qualifier) = r.qualifier.as_deref() else { continue };
                    let through_self = matches!(qualifier, "self" | "this") && facts.within(r.enclosing_id, &walked)?;
                    if !through_self && !facts.receives(r.enclosing_id, qualifier, &family_names)? {
                        continue;
                    }
                    let Some(symbol) = facts.symbol(r.enclosing_id)? else { continue };
                    add(symbol, Resolution::UniqueName, file, r.line, r.col);
                }
            }
        }
        // A base outside the repository: the reads of names the family
        // defines nowhere, through `self` or a receiver declared as one of
        // it, and the class's calls through `super`. Only where no kept base
        // is outside too (a name could be that one's).
        if lost_outside && !kept_outside {
            let mut defined = own.clone();
            defined.extend(kept_names.iter().cloned());
            for user in &family {
                defined.extend(facts.members(user.id)?.iter().map(|m| m.name.clone()));
                defined.extend(facts.assigned_attributes(user)?.iter().cloned());
            }
            // The family's files and those that build, import or read one of it.
            let mut paths: Vec<String> = family.iter().map(|c| c.path.clone()).collect();
            for user in &family {
                let users = store.edges_to(user.id, &[Relation::Instantiates, Relation::Imports, Relation::Uses, Relation::Calls])?;
                paths.extend(users.into_iter().map(|e| e.path));
            }
            paths.sort();
            paths.dedup();
            let mut files: FxHashMap<i64, String> = FxHashMap::default();
            for path in paths {
                if let Some(id) = store.file_id(&path)? {
                    files.insert(id, path);
                }
            }
            let ids: Vec<i64> = files.keys().copied().collect();
            for r in store.graph_refs(&[RefKind::FieldUse, RefKind::Call], Some(&ids))? {
                let Some(file) = files.get(&r.file_id).cloned() else { continue };
                let qualifier = r.qualifier.as_deref();
                // `__class__`, `__dict__`: every object has them.
                let dunder = r.name.len() > 4 && r.name.starts_with("__") && r.name.ends_with("__");
                let foreign = !defined.contains(&r.name) && !dunder;
                let through_self = foreign && matches!(qualifier, Some("self" | "this")) && facts.within(r.enclosing_id, &walked)?;
                let through_super = !through_self
                    && r.kind == RefKind::Call
                    && facts.within(r.enclosing_id, &own_members)?
                    && facts.calls_super(&r.name, qualifier, &file, r.line)?;
                let through_receiver = !through_self
                    && !through_super
                    && foreign
                    && qualifier.is_some_and(|q| !matches!(q, "self" | "this") && !q.starts_with("super"))
                    && facts.receives(r.enclosing_id, qualifier.unwrap_or_default(), &family_names)?;
                if !through_self && !through_super && !through_receiver {
                    continue;
                }
                let Some(symbol) = facts.symbol(r.enclosing_id)? else { continue };
                add(symbol, Resolution::UniqueName, file, r.line, r.col);
            }
        }
        // The classes read as values (`warnings.warn(msg, RequestsDependencyWarning)`,
        // `except Timeout:`, a class passed or stored) are often read as the
        // base they no longer are; so are the module-level instances of them.
        for user in &family {
            for edge in store.edges_to(user.id, &[Relation::Uses])? {
                let Some(symbol) = facts.symbol(edge.src)? else { continue };
                add(symbol, edge.resolution, edge.path, edge.line, edge.col);
            }
        }
        for name in facts.module_instances(&family, &family_names)? {
            for (r, file) in store.refs_named(&name, RefKind::FieldUse)? {
                if r.qualifier.is_some() || !facts.declared_as(r.enclosing_id, &name, &family_names)? {
                    continue;
                }
                let Some(symbol) = facts.symbol(r.enclosing_id)? else { continue };
                add(symbol, Resolution::UniqueName, file, r.line, r.col);
            }
        }
        for &member in &inherited {
            for edge in store.edges_to(member, &USES)? {
                if walked.contains(&edge.src) {
                    continue;
                }
                let Some(qualifier) = edge.qualifier.as_deref() else { continue };
                if !facts.receives(edge.src, qualifier, &family_names)? {
                    continue;
                }
                let Some(symbol) = facts.symbol(edge.src)? else { continue };
                add(symbol, edge.resolution, edge.path, edge.line, edge.col);
            }
        }
        // A constructor inherited from a lost base (or one outside, such as
        // `Exception`'s) is gone: building a family member that defines none
        // of its own, with arguments, now calls one that takes none.
        let constructor_lost = lost_constructors.iter().any(|c| !kept_names.contains(c)) || (lost_outside && !kept_outside);
        if constructor_lost {
            let mut inherits_constructor: FxHashSet<i64> = FxHashSet::default();
            for user in &family {
                let defines_one = facts.members(user.id)?.iter().any(|m| m.kind == SymbolKind::Constructor);
                let from_lost_base = user.id == class.id
                    || store
                        .edges_from(user.id, &[Relation::DerivedClassOf])?
                        .iter()
                        .any(|base| base.dst.is_some_and(|b| inherits_constructor.contains(&b)));
                if !defines_one && from_lost_base {
                    inherits_constructor.insert(user.id);
                }
            }
            for user in family.iter().filter(|u| inherits_constructor.contains(&u.id)) {
                for edge in store.edges_to(user.id, &[Relation::Instantiates])? {
                    if !facts.passes_arguments(&edge.path, edge.line, edge.col, &user.name)? {
                        continue;
                    }
                    let Some(symbol) = facts.symbol(edge.src)? else { continue };
                    add(symbol, edge.resolution, edge.path, edge.line, edge.col);
                }
            }
        }
        let lost_names: FxHashSet<&str> = attributes.iter().map(String::as_str).collect();
        for (symbol, path, line, col) in facts.misplaced_values(&family, &family_names, &lost_names)? {
            add(symbol, Resolution::UniqueName, path, line, col);
        }
    }
    Ok(hits)
}

/// The calls of a field that holds a class or a function
/// (`app.app_ctx_globals_class()`, `self.callback(…)`), which the resolver
/// binds to no method: the call references of its name through `self` or
/// `this` in its class or a subclass, or through a receiver declared as
/// one of them.
pub(super) fn called_fields(store: &Store, graph: &Graph, path: &str, change: &Change) -> Result<Vec<Hit>, Error> {
    let Some(container) = change.container.as_deref() else { return Ok(Vec::new()) };
    let mut facts = Facts::new(store);
    let mut hits = Vec::new();
    for class in store.symbols_with_qualified_name(container)?.into_iter().filter(|c| c.path == path) {
        let subclasses = graph.follow(class.clone(), &[Relation::DerivedClassOf], true, 8)?.hits;
        let family: Vec<SymbolRow> = std::iter::once(class).chain(subclasses.into_iter().map(|h| h.symbol)).collect();
        let family_names: FxHashSet<&str> = family.iter().map(|c| c.name.as_str()).collect();
        let mut walked: FxHashSet<i64> = FxHashSet::default();
        for user in &family {
            walked.insert(user.id);
            walked.extend(facts.members(user.id)?.iter().map(|m| m.id));
        }
        for (r, file) in store.refs_named(&change.name, RefKind::Call)? {
            let Some(qualifier) = r.qualifier.as_deref() else { continue };
            let through_self = matches!(qualifier, "self" | "this") && facts.within(r.enclosing_id, &walked)?;
            if !through_self && !facts.receives(r.enclosing_id, qualifier, &family_names)? {
                continue;
            }
            let Some(symbol) = facts.symbol(r.enclosing_id)? else { continue };
            hits.push(direct_hit(symbol, Rel::UsedBy, Resolution::UniqueName, Site { path: file, line: r.line, col: r.col }));
        }
    }
    Ok(hits)
}

/// Whether `line` assigns attribute `name` of `self` or `this`
/// (`self.x = …`, `self.x: T = …`, `this.x += …`), not only reads or
/// compares it.
fn assigns(line: &str, name: &str) -> bool {
    const COMPOUND: [&str; 17] = ["", "+", "-", "*", "/", "//", "%", "**", "|", "&", "^", ">>", "<<", "@", "??", "||", "&&"];
    ["self.", "this."].iter().any(|receiver| {
        let target = format!("{receiver}{name}");
        line.match_indices(&target).any(|(at, _)| {
            let rest = &line[at + target.len()..];
            if rest.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
                return false;
            }
            let rest = rest.trim_start();
            // An annotated assignment: `self.x: T = …`.
            let rest = match rest.strip_prefix(':') {
                Some(typed) => typed.find('=').map_or("", |i| &typed[i..]),
                None => rest,
            };
            let op_len = rest.find(|c: char| !"+-*/%|&^<>@?".contains(c)).unwrap_or(rest.len());
            let after = &rest[op_len..];
            COMPOUND.contains(&&rest[..op_len]) && after.starts_with('=') && !after.starts_with("==")
        })
    })
}

/// What the rules read from the store, each read once per request: the
/// walk asks for the same symbols, members, texts and bindings many times.
struct Facts<'a> {
    store: &'a Store,
    symbols: FxHashMap<i64, Option<SymbolRow>>,
    members: FxHashMap<i64, Vec<SymbolRow>>,
    attributes: FxHashMap<i64, FxHashSet<String>>,
    texts: FxHashMap<String, Rc<str>>,
    bindings: FxHashMap<i64, Vec<BindingRow>>,
    imports: FxHashMap<i64, Vec<EdgeRow>>,
    paths: FxHashMap<i64, String>,
}

impl<'a> Facts<'a> {
    fn new(store: &'a Store) -> Self {
        Facts {
            store,
            symbols: FxHashMap::default(),
            members: FxHashMap::default(),
            attributes: FxHashMap::default(),
            texts: FxHashMap::default(),
            bindings: FxHashMap::default(),
            imports: FxHashMap::default(),
            paths: FxHashMap::default(),
        }
    }

    fn symbol(&mut self, id: i64) -> Result<Option<SymbolRow>, Error> {
        if !self.symbols.contains_key(&id) {
            self.symbols.insert(id, self.store.symbol_by_id(id)?);
        }
        Ok(self.symbols[&id].clone())
    }

    /// The symbols declared directly in `id` (a class's methods and fields).
    fn members(&mut self, id: i64) -> Result<&Vec<SymbolRow>, Error> {
        if !self.members.contains_key(&id) {
            let mut members = Vec::new();
            for edge in self.store.edges_from(id, &[Relation::ParentOf])? {
                if let Some(member) = edge.dst.map(|m| self.store.symbol_by_id(m)).transpose()?.flatten() {
                    members.push(member);
                }
            }
            self.members.insert(id, members);
        }
        Ok(&self.members[&id])
    }

    /// A file's text, shared: the rules hold it while they ask for more facts.
    fn text(&mut self, path: &str) -> Result<Rc<str>, Error> {
        if !self.texts.contains_key(path) {
            self.texts.insert(path.to_string(), Rc::from(self.store.file_text(path)?.unwrap_or_default()));
        }
        Ok(Rc::clone(&self.texts[path]))
    }

    fn line(&mut self, path: &str, line: u32) -> Result<&str, Error> {
        self.text(path)?;
        Ok(self.texts[path].lines().nth(line.saturating_sub(1) as usize).unwrap_or_default())
    }

    /// A file's type bindings: the stored ones, and its lambdas' parameters
    /// typed by the calls they are passed to.
    fn of_file(&mut self, file_id: i64) -> Result<&[BindingRow], Error> {
        if !self.bindings.contains_key(&file_id) {
            let mut bindings = self.store.file_bindings(file_id)?;
            bindings.extend(self.contextual_bindings(file_id)?);
            self.bindings.insert(file_id, bindings);
        }
        Ok(&self.bindings[&file_id])
    }

    /// The parameters of a TypeScript or JavaScript function passed as an
    /// argument and written without types (`operate((source, subscriber) =>
    /// …)`), typed by the callee's declaration of that slot (`init:
    /// (liftedSource: Observable<T>, subscriber: Subscriber<R>) => …`),
    /// bound in the function around the call.
    fn contextual_bindings(&mut self, file_id: i64) -> Result<Vec<BindingRow>, Error> {
        if self.paths.is_empty() {
            self.paths = self.store.file_paths()?.into_iter().collect();
        }
        let Some(path) = self.paths.get(&file_id).cloned() else { return Ok(Vec::new()) };
        let Some(language) = ken_lang::detect(Path::new(&path)).filter(|l| l.scoping() == Scoping::Js) else { return Ok(Vec::new()) };
        let text = self.text(&path)?;
        let mut out = Vec::new();
        for lambda in lambda_arguments(language, &text) {
            let Some(declared) = self.parameter_type(&path, lambda.line, &lambda.callee, &lambda.slot)? else { continue };
            let Some(scope) = self.store.symbol_at(&path, lambda.lines.0)? else { continue };
            for (name, type_text) in lambda.untyped.iter().zip(function_type_parameters(&declared)) {
                if let Some(name) = name.clone().filter(|_| !type_text.is_empty()) {
                    out.push(BindingRow {
                        file_id,
                        scope_id: scope.id,
                        name,
                        type_text,
                        source: "context".to_string(),
                        line: lambda.lines.0,
                    });
                }
            }
        }
        Ok(out)
    }

    /// Whether `symbol` is one of `scopes` or nested in one (a lambda or a
    /// local function in a method).
    fn within(&mut self, symbol: i64, scopes: &FxHashSet<i64>) -> Result<bool, Error> {
        let mut at = Some(symbol);
        for _ in 0..4 {
            let Some(id) = at else { break };
            if scopes.contains(&id) {
                return Ok(true);
            }
            at = self.symbol(id)?.and_then(|s| s.parent_id);
        }
        Ok(false)
    }

    /// A call through `super`: TypeScript's `super(…)` and `super.m()`,
    /// Python's `super().m()`. Python's `super().__init__()` without arguments
    /// is left out: with the base gone it calls `object.__init__`, which takes none.
    fn calls_super(&mut self, name: &str, qualifier: Option<&str>, path: &str, line: u32) -> Result<bool, Error> {
        let qualifier = qualifier.unwrap_or_default();
        if name == "super" || qualifier == "super" {
            return Ok(true);
        }
        if !qualifier.starts_with("super(") {
            return Ok(false);
        }
        Ok(name != "__init__" || !self.line(path, line)?.contains("__init__()"))
    }

    /// Whether the instantiation of `class` at `line`:`col` passes
    /// arguments (`C(x)`, `new C(x)`, not `C()` or `new C`).
    fn passes_arguments(&mut self, path: &str, line: u32, col: u32, class: &str) -> Result<bool, Error> {
        let text = self.line(path, line)?;
        let Some(rest) = text.get(col.saturating_sub(1) as usize..).and_then(|t| t.strip_prefix(class)) else { return Ok(true) };
        // Type arguments first: `new ColdObservable<T>(…)`.
        let rest = match rest.trim_start().strip_prefix('<') {
            Some(generic) => generic.split_once('>').map_or("", |(_, r)| r),
            None => rest,
        };
        Ok(rest.trim_start().strip_prefix('(').is_some_and(|args| !args.trim_start().starts_with(')')))
    }

    /// The attributes a Python class's methods assign through `self.x`
    /// (instance attributes, which the index holds no symbol for): those
    /// with a type binding, and the writes among their references
    /// (`self.config = {}` binds no type). In TypeScript an assignment
    /// declares nothing: a field is a member.
    fn assigned_attributes(&mut self, class: &SymbolRow) -> Result<&FxHashSet<String>, Error> {
        if !self.attributes.contains_key(&class.id) {
            let assigned = self.read_assigned_attributes(class)?;
            self.attributes.insert(class.id, assigned);
        }
        Ok(&self.attributes[&class.id])
    }

    fn read_assigned_attributes(&mut self, class: &SymbolRow) -> Result<FxHashSet<String>, Error> {
        if class.language.scoping() != Scoping::Python {
            return Ok(FxHashSet::default());
        }
        let Some(file_id) = self.store.file_id(&class.path)? else { return Ok(FxHashSet::default()) };
        let methods: FxHashSet<i64> = self.members(class.id)?.iter().map(|m| m.id).collect();
        let mut assigned: FxHashSet<String> = self
            .of_file(file_id)?
            .iter()
            .filter(|b| methods.contains(&b.scope_id))
            .filter_map(|b| b.name.strip_prefix("self."))
            .filter(|name| !name.contains('.'))
            .map(str::to_string)
            .collect();
        for r in self.store.graph_refs(&[RefKind::FieldUse], Some(&[file_id]))? {
            let through_self = r.qualifier.as_deref() == Some("self");
            if !through_self || !methods.contains(&r.enclosing_id) || assigned.contains(&r.name) {
                continue;
            }
            if assigns(self.line(&class.path, r.line)?, &r.name) {
                assigned.insert(r.name);
            }
        }
        Ok(assigned)
    }

    /// The module-level variables declared or built as one of `family`
    /// (`asyncScheduler = new AsyncScheduler(…)`, `current_app: Flask`), in
    /// the family's files and those that build or import one of it.
    fn module_instances(&mut self, family: &[SymbolRow], classes: &FxHashSet<&str>) -> Result<Vec<String>, Error> {
        let mut names = Vec::new();
        for path in self.family_files(family)? {
            let Some(file_id) = self.store.file_id(&path)? else { continue };
            let bindings = self.of_file(file_id)?.to_vec();
            for b in bindings {
                if b.source == "alias" || b.name.contains('.') || !names_one_of(&b.type_text, classes) {
                    continue;
                }
                if self.symbol(b.scope_id)?.is_some_and(|s| s.kind == SymbolKind::Module) {
                    names.push(b.name);
                }
            }
        }
        names.sort();
        names.dedup();
        Ok(names)
    }

    /// The family's objects landing where another type is expected: `this`
    /// or `self` in one of its classes, and the parameters, variables and
    /// attributes declared as one of it, passed to a parameter declared as
    /// another type, returned from a function declared to return another,
    /// stored in a TypeScript member, or destructured for one of
    /// `lost_names` (`const { actions } = this`). A parameter or return
    /// type not declared, or declared loosely (`Any`, `unknown`, a type
    /// parameter), takes anything.
    fn misplaced_values(
        &mut self,
        family: &[SymbolRow],
        classes: &FxHashSet<&str>,
        lost_names: &FxHashSet<&str>,
    ) -> Result<Vec<(SymbolRow, String, u32, u32)>, Error> {
        let mut queries: FxHashMap<String, (Language, Vec<ValueQuery>)> = FxHashMap::default();
        let mut ask = |path: &str, language: Language, name: String, lines: (u32, u32)| {
            let (_, list) = queries.entry(path.to_string()).or_insert_with(|| (language, Vec::new()));
            let query = ValueQuery { name, lines };
            if !list.contains(&query) {
                list.push(query);
            }
        };
        for class in family {
            let receiver = match class.language.scoping() {
                Scoping::Python => "self",
                Scoping::Js => "this",
                _ => continue,
            };
            ask(&class.path, class.language, receiver.to_string(), (class.start_line, class.end_line));
        }
        for (file_id, _) in self.users_of(family)? {
            for b in self.of_file(file_id)?.to_vec() {
                if b.source == "alias" || !names_one_of(&b.type_text, classes) {
                    continue;
                }
                let Some(scope) = self.symbol(b.scope_id)? else { continue };
                let range = if b.name.starts_with("self.") || b.name.starts_with("this.") {
                    // An attribute: read in any method of its class.
                    match scope.parent_id.map(|p| self.symbol(p)).transpose()?.flatten() {
                        Some(class) if class.kind.is_type() => (class.start_line, class.end_line),
                        _ => continue,
                    }
                } else if b.name.contains('.') {
                    continue;
                } else if scope.kind == SymbolKind::Module {
                    (1, u32::MAX)
                } else {
                    (scope.start_line, scope.end_line)
                };
                ask(&scope.path, scope.language, b.name, range);
            }
        }
        // The calls of functions declared to return one of the family
        // (`make_null_session(…) -> NullSession`): their values land too.
        for class in family {
            for (function, returns) in self.store.symbols_returning(&class.name)? {
                if !names_one_of(&returns, classes) {
                    continue;
                }
                for call in self.store.edges_to(function.id, &[Relation::Calls])? {
                    let Some(caller) = self.symbol(call.src)? else { continue };
                    ask(&caller.path, caller.language, format!("{}()", function.name), (1, u32::MAX));
                }
            }
        }
        let mut out = Vec::new();
        let mut paths: Vec<String> = queries.keys().cloned().collect();
        paths.sort();
        for path in paths {
            let (language, list) = &queries[&path];
            let text = self.text(&path)?;
            for read in value_reads(*language, &text, list) {
                let misplaced = match &read.place {
                    Place::Argument { callee, line, slot, .. } => {
                        self.parameter_type(&path, *line, callee, slot)?.is_some_and(|t| !fits(&t, classes))
                    }
                    Place::Return { declared } => declared.as_deref().is_some_and(|t| !fits(t, classes)),
                    Place::Member(target) => match language.scoping() {
                        Scoping::Js => true,
                        _ => self.member_type(&path, read.line, target)?.is_some_and(|t| !fits(&t, classes)),
                    },
                    Place::Destructured(names) => names.iter().any(|n| lost_names.contains(n.as_str())),
                };
                if !misplaced {
                    continue;
                }
                if let Some(symbol) = self.store.symbol_at(&path, read.line)? {
                    out.push((symbol, path.clone(), read.line, read.col));
                }
            }
        }
        Ok(out)
    }

    /// The declared type of the attribute `target` (`self.session`) of the
    /// class around `path`:`line`: annotated in one of its methods
    /// (`self.session: SessionMixin | None = None`) or in its body.
    fn member_type(&mut self, path: &str, line: u32, target: &str) -> Result<Option<String>, Error> {
        let Some(attribute) = target.strip_prefix("self.").filter(|a| !a.contains('.')) else { return Ok(None) };
        let mut at = self.store.symbol_at(path, line)?;
        while let Some(s) = at.take() {
            if s.kind.is_type() {
                let Some(file_id) = self.store.file_id(path)? else { return Ok(None) };
                let methods: FxHashSet<i64> = self.members(s.id)?.iter().map(|m| m.id).collect();
                let declared = self.of_file(file_id)?.iter().find(|b| {
                    b.source == "annotation"
                        && ((methods.contains(&b.scope_id) && b.name == target) || (b.scope_id == s.id && b.name == attribute))
                });
                return Ok(declared.map(|b| b.type_text.clone()));
            }
            at = s.parent_id.map(|p| self.symbol(p)).transpose()?.flatten();
        }
        Ok(None)
    }

    /// The family's files and those that build or import one of it, sorted.
    fn family_files(&self, family: &[SymbolRow]) -> Result<Vec<String>, Error> {
        let mut paths: Vec<String> = family.iter().map(|c| c.path.clone()).collect();
        for user in family {
            paths.extend(self.store.edges_to(user.id, &[Relation::Instantiates, Relation::Imports])?.into_iter().map(|e| e.path));
        }
        paths.sort();
        paths.dedup();
        Ok(paths)
    }

    /// The family's files, those that build or import one of it, and those
    /// that pass one of it to a lambda, by id.
    fn users_of(&mut self, family: &[SymbolRow]) -> Result<Vec<(i64, String)>, Error> {
        let mut paths = self.family_files(family)?;
        let classes: FxHashSet<&str> = family.iter().map(|c| c.name.as_str()).collect();
        for user in family {
            // Calls that pass a lambda a parameter declared as one of it
            // (`init: (source: Observable<T>, subscriber: Subscriber<R>) => void`).
            for b in self.store.bindings_mentioning(&user.name)? {
                if b.type_text.contains("=>") && names_one_of(&b.type_text, &classes) {
                    paths.extend(self.store.edges_to(b.scope_id, &[Relation::Calls, Relation::Instantiates])?.into_iter().map(|e| e.path));
                }
            }
        }
        paths.sort();
        paths.dedup();
        let mut files = Vec::new();
        for path in paths {
            if let Some(id) = self.store.file_id(&path)? {
                files.push((id, path));
            }
        }
        Ok(files)
    }

    /// The declared type of the parameter that `slot` of the call of
    /// `callee` at `path`:`line` fills, where the call resolves to a
    /// definition in the index (a class's constructor for `new C(…)`/`C(…)`).
    fn parameter_type(&mut self, path: &str, line: u32, callee: &str, slot: &Slot) -> Result<Option<String>, Error> {
        let Some(caller) = self.store.symbol_at(path, line)? else { return Ok(None) };
        let calls = self.store.edges_from(caller.id, &[Relation::Calls, Relation::Instantiates])?;
        let Some(target) = calls.iter().find(|e| e.line == line && e.name == callee).and_then(|e| e.dst) else { return Ok(None) };
        let Some(mut definition) = self.symbol(target)? else { return Ok(None) };
        if definition.kind.is_type() {
            match self.members(definition.id)?.iter().find(|m| m.kind == SymbolKind::Constructor) {
                Some(constructor) => definition = constructor.clone(),
                None => return Ok(None),
            }
        }
        let text = self.text(&definition.path)?;
        let Some(params) = parameters(definition.language, &text, &definition.name, definition.name_line) else { return Ok(None) };
        let param = match slot {
            Slot::Keyword(k) => params.iter().find(|p| &p.name == k),
            Slot::Position(i) => {
                let positional: Vec<_> = params.iter().filter(|p| !p.keyword_only).collect();
                positional.get(*i).copied().or_else(|| positional.last().copied().filter(|p| p.variadic))
            }
        };
        Ok(param.and_then(|p| p.text.split_once(':')).map(|(_, t)| t.split(" = ").next().unwrap_or(t).trim().to_string()))
    }

    /// Whether a member read through `qualifier` in `scope` is one of
    /// `classes`': the receiver is one of the classes itself
    /// (`EnvironBuilder.from_environ(…)`) or declared as one.
    fn receives(&mut self, scope: i64, qualifier: &str, classes: &FxHashSet<&str>) -> Result<bool, Error> {
        Ok(classes.contains(qualifier) || self.declared_as(scope, qualifier, classes)?)
    }

    /// Whether `qualifier` as written in symbol `scope` (`scheduler`,
    /// `this.scheduler`, `self._pool`) is declared with a type that names
    /// one of `classes`: a parameter's or variable's binding in `scope` or a
    /// scope around it, a module-level variable imported into its file, or
    /// for `this.x` and `self.x` a binding of `x` in the enclosing class or
    /// its methods (TypeScript's parameter properties, Python's
    /// `self.x: T = …`).
    fn declared_as(&mut self, scope: i64, qualifier: &str, classes: &FxHashSet<&str>) -> Result<bool, Error> {
        let field = ["this.", "self.", "@"].iter().find_map(|p| qualifier.strip_prefix(p));
        let name = field.unwrap_or(qualifier);
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return Ok(false);
        }
        let Some(symbol) = self.symbol(scope)? else { return Ok(false) };
        let Some(file_id) = self.store.file_id(&symbol.path)? else { return Ok(false) };
        // The scopes whose bindings count: the enclosing ones; for a field,
        // the class's and its constructors' by the bare name (parameter
        // properties), any of its methods' by `this.x` or `self.x`.
        let mut bare: FxHashSet<i64> = FxHashSet::default();
        let mut prefixed: FxHashSet<i64> = FxHashSet::default();
        let mut outermost = symbol.id;
        let mut at = Some(symbol);
        while let Some(s) = at {
            outermost = s.id;
            if field.is_some() && s.kind.is_type() {
                bare.insert(s.id);
                for member in self.members(s.id)?.clone() {
                    prefixed.insert(member.id);
                    if member.kind == SymbolKind::Constructor {
                        bare.insert(member.id);
                    }
                }
                break;
            }
            if field.is_none() {
                bare.insert(s.id);
            }
            at = match s.parent_id {
                Some(parent) => self.symbol(parent)?,
                None => None,
            };
        }
        let binds = |b: &BindingRow| {
            (bare.contains(&b.scope_id) && b.name == name)
                || (prefixed.contains(&b.scope_id) && ["this.", "self."].iter().any(|p| b.name.strip_prefix(p) == Some(name)))
        };
        let local: Vec<BindingRow> = self.of_file(file_id)?.iter().filter(|b| binds(b)).cloned().collect();
        if !local.is_empty() || field.is_some() {
            return Ok(local.iter().any(|b| b.source != "alias" && names_one_of(&b.type_text, classes)));
        }
        // Not bound here: a module-level variable imported from another
        // module (`from .globals import current_app`).
        if !self.imports.contains_key(&outermost) {
            self.imports.insert(outermost, self.store.edges_from(outermost, &[Relation::Imports])?);
        }
        let modules: Vec<i64> = self.imports[&outermost].iter().filter(|e| e.name == name).filter_map(|e| e.dst).collect();
        for module in modules {
            let Some(target) = self.symbol(module)? else { continue };
            let Some(target_file) = self.store.file_id(&target.path)? else { continue };
            if target.kind == SymbolKind::Module
                && self
                    .of_file(target_file)?
                    .iter()
                    .any(|b| b.scope_id == module && b.name == name && b.source != "alias" && names_one_of(&b.type_text, classes))
            {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// Whether an object of one of `classes` fits a slot declared `type_text`:
/// the type names one of them, or takes anything (`Any`, `object`,
/// `unknown`, a type parameter such as `T`).
fn fits(type_text: &str, classes: &FxHashSet<&str>) -> bool {
    const LOOSE: [&str; 6] = ["Any", "any", "object", "unknown", "Self", "this"];
    names_one_of(type_text, classes)
        || type_text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| LOOSE.contains(&w) || (w.len() == 1 && w.chars().all(|c| c.is_ascii_uppercase())))
}

/// Whether a type as written (`Optional[Flask]`, `AsapScheduler | null`)
/// names one of `classes`.
fn names_one_of(type_text: &str, classes: &FxHashSet<&str>) -> bool {
    type_text.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|w| classes.contains(w))
}

#[cfg(test)]
mod tests {
    use super::assigns;

    #[test]
    fn assignments_of_an_attribute_not_its_reads() {
        let cases = [
            ("self.config = {}", true),
            ("        self.config: dict[str, int] = {}", true),
            ("this.count += 1;", true),
            ("this.cache ??= new Map();", true),
            ("self.config == other", false),
            ("if self.config <= limit:", false),
            ("x = self.config", false),
            ("self.configured = True", false),
            ("self.config[\"X\"] = 1", false),
            ("def f(self, config: int = 0):", false),
        ];
        for (line, expected) in cases {
            assert_eq!(assigns(line, "config") || assigns(line, "count") || assigns(line, "cache"), expected, "{line}");
        }
    }
}
