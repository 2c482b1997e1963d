//! Graph queries over the stored edges: callers and callees, the class
//! hierarchy, overrides, references, paths, tests, untested code, export.
//! Every traversal keeps a visited set and a depth bound, so cycles
//! (recursion, cyclic imports, inheritance loops) terminate.

use crate::analytics::USE_RELATIONS;
use crate::tests::is_public;
use ken_core::{Language, Relation, Resolution, SymbolKind};
use ken_store::{EdgeRow, Store, StoreError, SymbolRow};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use std::collections::VecDeque;

/// Deepest a traversal goes, whatever the caller asks.
pub const MAX_DEPTH: u32 = 32;
/// Most results a traversal returns.
const MAX_HITS: usize = 5000;

#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    #[error("no symbol matches `{query}`{}", suggest(.suggestions))]
    NotFound { query: String, suggestions: Vec<String> },
    #[error("`{query}` names {} symbols; pass a qualified name or PATH:LINE:\n{}", .candidates.len(), list(.candidates))]
    Ambiguous { query: String, candidates: Vec<SymbolRow> },
    #[error("{0} is not in the index; check the path, or run `ken index` if the file is new")]
    NoFile(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn suggest(s: &[String]) -> String {
    if s.is_empty() {
        "; check the spelling, or run `ken symbols` to search".to_string()
    } else {
        format!("; did you mean: {}?", s.join(", "))
    }
}

fn list(c: &[SymbolRow]) -> String {
    c.iter().take(20).map(|s| format!("  {} {} ({}:{})", s.kind, s.qualified_name, s.path, s.start_line)).collect::<Vec<_>>().join("\n")
}

/// A symbol in a result, with where it was reached from.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Hit {
    pub symbol: SymbolRow,
    /// Steps from the queried symbol.
    pub depth: u32,
    /// CodePlan's label, read from the queried symbol's side (`CalledBy`,
    /// `BaseClassOf`…) or, for `refs`, the using site's relation (`Calls`).
    pub relation: String,
    #[schemars(with = "String")]
    pub resolution: Resolution,
    /// Where the edge was written: the call site, import or base-class list.
    pub site: Site,
    /// The symbol at the edge's other end: the queried one, or the hit one
    /// step nearer to it (how a deeper hit was reached).
    #[serde(skip)]
    #[schemars(skip)]
    pub via: i64,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Site {
    pub path: String,
    pub line: u32,
    pub col: u32,
}

/// A traversal's answer.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Traversal {
    pub symbol: SymbolRow,
    pub hits: Vec<Hit>,
    /// Set when the depth bound or result cap cut the walk short.
    pub truncated: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Follow edges backwards: who points at the symbol.
    Incoming,
    /// Follow edges forwards: what the symbol points at.
    Outgoing,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    Json,
    Dot,
}

/// How a user names a symbol on the command line.
#[derive(Clone, Debug)]
pub enum SymbolRef {
    /// A qualified name, a plain name, or a qualified-name suffix.
    Name(String),
    /// `path:line`: the innermost symbol at that line.
    At { path: String, line: u32 },
}

impl SymbolRef {
    pub fn parse(text: &str) -> SymbolRef {
        if let Some((path, line)) = text.rsplit_once(':')
            && let Ok(line) = line.parse::<u32>()
            && !path.is_empty()
            && !path.ends_with(':')
        {
            return SymbolRef::At { path: path.to_string(), line };
        }
        SymbolRef::Name(text.to_string())
    }
}

pub struct Graph<'s> {
    pub(crate) store: &'s Store,
}

impl<'s> Graph<'s> {
    pub fn new(store: &'s Store) -> Graph<'s> {
        Graph { store }
    }

    /// Finds the one symbol `reference` means, or says why it cannot.
    pub fn resolve(&self, reference: &SymbolRef) -> Result<SymbolRow, GraphError> {
        match reference {
            SymbolRef::At { path, line } => {
                let typed = path.trim_start_matches("./");
                let mut paths = self.store.paths_ending_with(typed)?;
                // The path as typed wins over longer paths ending with it.
                if paths.iter().any(|p| p == typed) {
                    paths = vec![typed.to_string()];
                }
                match paths.as_slice() {
                    [one] => self.store.symbol_at(one, *line)?.ok_or_else(|| GraphError::NotFound {
                        query: format!("{path}:{line}"),
                        suggestions: vec![format!("line {line} is past the end of {one}")],
                    }),
                    [] => Err(GraphError::NoFile(path.clone())),
                    many => Err(GraphError::NotFound {
                        query: format!("{path}:{line}"),
                        suggestions: many.iter().take(5).map(|p| format!("{p}:{line}")).collect(),
                    }),
                }
            }
            SymbolRef::Name(name) => {
                let name = name.trim();
                let mut found = self.store.symbols_named(name)?;
                if found.is_empty() {
                    // A qualified-name suffix: `Session.send`, `runtime::Handle`.
                    let rows =
                        self.store.find_symbols(&ken_store::SymbolQuery { text: name.to_string(), limit: 200, ..Default::default() })?;
                    found = rows
                        .into_iter()
                        .filter(|s| [".", "::", "/", "\\"].iter().any(|sep| s.qualified_name.ends_with(&format!("{sep}{name}"))))
                        .collect();
                }
                // A module and its package `__init__` share a name: prefer non-modules.
                if found.len() > 1 && found.iter().any(|s| s.kind != SymbolKind::Module) {
                    found.retain(|s| s.kind != SymbolKind::Module);
                }
                match found.len() {
                    1 => Ok(found.remove(0)),
                    0 => Err(GraphError::NotFound { query: name.to_string(), suggestions: self.closest(name)? }),
                    _ => Err(GraphError::Ambiguous { query: name.to_string(), candidates: found }),
                }
            }
        }
    }

    fn closest(&self, name: &str) -> Result<Vec<String>, GraphError> {
        let lower = name.to_lowercase();
        let last = lower.rsplit(['.', ':', '/']).next().unwrap_or(&lower).to_string();
        let mut scored: Vec<(f64, String)> = self
            .store
            .symbol_names()?
            .into_iter()
            .map(|(_, n, q)| (strsim::jaro_winkler(&last, &n.to_lowercase()), q))
            .filter(|(score, _)| *score > 0.8)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.len().cmp(&b.1.len())).then(a.1.cmp(&b.1)));
        scored.dedup_by(|a, b| a.1 == b.1);
        Ok(scored.into_iter().take(5).map(|(_, q)| q).collect())
    }

    pub(crate) fn symbol(&self, id: i64) -> Result<Option<SymbolRow>, GraphError> {
        Ok(self.store.symbol_by_id(id)?)
    }

    /// Breadth-first walk over `relations`, `depth` steps at most.
    fn walk(&self, root: SymbolRow, relations: &[Relation], direction: Direction, depth: u32) -> Result<Traversal, GraphError> {
        self.walk_with(root, relations, direction, depth, false)
    }

    /// [`Graph::walk`]; `as_callers`: also what [`Graph::calls_in_other_forms`]
    /// finds (`ken graph callers`; impact keeps it apart, since a property
    /// takes no arguments, so its reads break with none of its signature's
    /// changes, and each `#if` branch's definition changes on its own).
    fn walk_with(
        &self,
        root: SymbolRow,
        relations: &[Relation],
        direction: Direction,
        depth: u32,
        as_callers: bool,
    ) -> Result<Traversal, GraphError> {
        let depth = depth.clamp(1, MAX_DEPTH);
        let mut seen: FxHashSet<i64> = FxHashSet::default();
        seen.insert(root.id);
        let mut queue: VecDeque<(i64, u32)> = VecDeque::new();
        queue.push_back((root.id, 0));
        let mut hits = Vec::new();
        let mut truncated = false;
        'walk: while let Some((id, d)) = queue.pop_front() {
            if d >= depth {
                // Something lies beyond the depth bound: say the answer is partial.
                if !truncated {
                    truncated = self.neighbours(id, relations, direction, as_callers)?.iter().any(|(_, n)| !seen.contains(n));
                }
                continue;
            }
            for (edge, next) in self.neighbours(id, relations, direction, as_callers)? {
                if !seen.insert(next) {
                    continue;
                }
                if hits.len() >= MAX_HITS {
                    truncated = true;
                    break 'walk;
                }
                let Some(symbol) = self.symbol(next)? else { continue };
                hits.push(hit(symbol, d + 1, &edge, direction, id));
                queue.push_back((next, d + 1));
            }
        }
        Ok(Traversal { symbol: root, hits, truncated })
    }

    /// Edges of `relations` at `id` and the symbol at their other end. A
    /// class counts as called where it is instantiated, and its constructor
    /// with it.
    fn neighbours(
        &self,
        id: i64,
        relations: &[Relation],
        direction: Direction,
        as_callers: bool,
    ) -> Result<Vec<(EdgeRow, i64)>, GraphError> {
        let mut out = Vec::new();
        let edges = match direction {
            Direction::Incoming => self.store.edges_to(id, relations)?,
            Direction::Outgoing => self.store.edges_from(id, relations)?,
        };
        for e in edges {
            let other = match direction {
                Direction::Incoming => Some(e.src),
                Direction::Outgoing => e.dst,
            };
            if let Some(other) = other
                && other != id
            {
                out.push((e, other));
            }
        }
        if as_callers && direction == Direction::Incoming {
            out.extend(self.calls_in_other_forms(id)?.into_iter().filter(|e| e.src != id).map(|e| {
                let src = e.src;
                (e, src)
            }));
        }
        if direction == Direction::Incoming && relations.contains(&Relation::Calls) {
            // Callers of a constructor are the places its class is
            // instantiated; but a Rust or Go struct literal calls no `new`.
            let constructs = self.store.edges_from(id, &[Relation::Construct])?;
            let literal_calls_none = || -> Result<bool, GraphError> {
                Ok(self.symbol(id)?.is_some_and(|s| !s.language.scoping().instantiation_runs_constructor()))
            };
            if constructs.is_empty() || literal_calls_none()? {
                return Ok(out);
            }
            for e in constructs {
                if let Some(class) = e.dst {
                    for e in self.store.edges_to(class, &[Relation::Instantiates])? {
                        out.push((e.clone(), e.src));
                    }
                }
            }
        }
        Ok(out)
    }

    /// What `callers` counts beside the calls to `id`: a property
    /// accessor's reads (reading runs it); a Go, C or C++ function's uses
    /// as a value (`sort.Slice(xs, s.less)`, a function pointer), which
    /// gopls and clangd count as its calls; a TypeScript or JavaScript
    /// method's overridden and overriding methods' calls (`this._subscribe()`
    /// in the base class may run the override, a call of the override is
    /// one of the base's method: tsserver counts both); the calls that
    /// resolved to another definition of the function in its own file (one per `#if`
    /// branch, or per `try`/`except ImportError`: the index cannot tell
    /// which one a build runs, and a call resolves to the first); and for a
    /// Go method, the calls of the methods dynamic dispatch ties it to
    /// (`go_dispatch_partners`).
    fn calls_in_other_forms(&self, id: i64) -> Result<Vec<EdgeRow>, GraphError> {
        let Some(symbol) = self.symbol(id)? else { return Ok(Vec::new()) };
        let mut out = Vec::new();
        let reads = self.store.edges_to(id, &[Relation::Uses])?;
        if !reads.is_empty() && (taken_as_value_is_called(&symbol) || accessor_line(self.store, &symbol)?.is_some()) {
            out.extend(reads);
        }
        if symbol.kind.is_callable() {
            // The same scope (a file's module, or a class) and kind: the
            // twins resolution's `one_file_definition` sends calls past.
            let twins = self.store.symbol_keys_with_qualified_name(&symbol.qualified_name)?;
            for twin in twins.into_iter().filter(|s| s.id != id && s.parent_id == symbol.parent_id && s.kind == symbol.kind) {
                out.extend(self.store.edges_to(twin.id, &[Relation::Calls])?);
            }
        }
        if symbol.language.scoping() == ken_core::Scoping::Js && symbol.kind == SymbolKind::Method {
            let (up, down) = self.overrides(symbol.clone())?;
            for related in up.hits.into_iter().chain(down.hits) {
                out.extend(self.store.edges_to(related.symbol.id, &[Relation::Calls])?);
            }
        }
        if symbol.language == Language::Go && symbol.kind.is_callable() {
            for partner in self.go_dispatch_partners(&symbol)? {
                out.extend(self.store.edges_to(partner, &[Relation::Calls])?);
            }
        }
        Ok(out)
    }

    /// The symbols `relations` reach from `root`, backwards (`incoming`:
    /// who points at it) or forwards, up to `depth` steps.
    pub fn follow(&self, root: SymbolRow, relations: &[Relation], incoming: bool, depth: u32) -> Result<Traversal, GraphError> {
        let direction = if incoming { Direction::Incoming } else { Direction::Outgoing };
        self.walk(root, relations, direction, depth)
    }

    /// Who calls `root`: its calls and instantiations, and what
    /// [`Graph::calls_in_other_forms`] adds (property reads, `#if` twins,
    /// function values in Go and C, override families in JavaScript, Go's
    /// interface dispatch).
    pub fn callers(&self, root: SymbolRow, depth: u32) -> Result<Traversal, GraphError> {
        self.walk_with(root, &[Relation::Calls, Relation::Instantiates], Direction::Incoming, depth, true)
    }

    pub fn callees(&self, root: SymbolRow, depth: u32) -> Result<Traversal, GraphError> {
        self.walk(root, &[Relation::Calls, Relation::Instantiates], Direction::Outgoing, depth)
    }

    /// Every class derived from `root`, transitively; for a Go interface,
    /// also every type whose methods cover the interface's (Go declares no
    /// `implements`: see `go_interfaces`).
    pub fn subclasses(&self, root: SymbolRow) -> Result<Traversal, GraphError> {
        let go_interface = root.language == Language::Go && root.kind == SymbolKind::Interface;
        let mut traversal = self.walk(root, &[Relation::DerivedClassOf], Direction::Incoming, MAX_DEPTH)?;
        if go_interface {
            let mut seen: FxHashSet<i64> = traversal.hits.iter().map(|h| h.symbol.id).collect();
            seen.insert(traversal.symbol.id);
            for id in self.go_implementers(&traversal.symbol)? {
                if seen.insert(id)
                    && let Some(symbol) = self.symbol(id)?
                {
                    let site = Site { path: symbol.path.clone(), line: symbol.start_line, col: symbol.start_col };
                    let relation = Relation::DerivedClassOf.inverse_name().to_string();
                    let via = traversal.symbol.id;
                    traversal.hits.push(Hit { symbol, depth: 1, relation, resolution: Resolution::TypeInferred, site, via });
                }
            }
        }
        Ok(traversal)
    }

    /// Every base of `root`, transitively.
    pub fn superclasses(&self, root: SymbolRow) -> Result<Traversal, GraphError> {
        self.walk(root, &[Relation::DerivedClassOf], Direction::Outgoing, MAX_DEPTH)
    }

    /// The methods `root` overrides (up the hierarchy) and those overriding it (down).
    pub fn overrides(&self, root: SymbolRow) -> Result<(Traversal, Traversal), GraphError> {
        let up = self.walk(root.clone(), &[Relation::Overrides], Direction::Outgoing, MAX_DEPTH)?;
        let down = self.walk(root, &[Relation::Overrides], Direction::Incoming, MAX_DEPTH)?;
        Ok((up, down))
    }

    /// Every use of `root`, labelled with the using site's relation.
    pub fn refs(&self, root: SymbolRow) -> Result<Traversal, GraphError> {
        let mut hits = Vec::new();
        let mut edges = self.store.edges_to(root.id, USE_RELATIONS)?;
        if root.kind == SymbolKind::Constructor {
            for e in self.store.edges_from(root.id, &[Relation::Construct])? {
                if let Some(class) = e.dst {
                    edges.extend(self.store.edges_to(class, &[Relation::Instantiates])?);
                }
            }
        }
        for e in edges {
            let Some(symbol) = self.symbol(e.src)? else { continue };
            let relation = e.relation.label().to_string();
            hits.push(Hit {
                symbol,
                depth: 1,
                relation,
                resolution: e.resolution,
                site: Site { path: e.path.clone(), line: e.line, col: e.col },
                via: root.id,
            });
        }
        hits.sort_by(|a, b| (&a.site.path, a.site.line, a.site.col).cmp(&(&b.site.path, b.site.line, b.site.col)));
        Ok(Traversal { symbol: root, hits, truncated: false })
    }

    /// The shortest chain of calls, instantiations and uses from `from` to `to`.
    pub fn path(&self, from: SymbolRow, to: SymbolRow, max_depth: u32) -> Result<Option<Vec<Hit>>, GraphError> {
        let relations =
            [Relation::Calls, Relation::Instantiates, Relation::Uses, Relation::Construct, Relation::Overrides, Relation::DerivedClassOf];
        let mut prev: FxHashMap<i64, (i64, EdgeRow)> = FxHashMap::default();
        let mut seen: FxHashSet<i64> = FxHashSet::default();
        seen.insert(from.id);
        let mut frontier = vec![from.id];
        let mut found = from.id == to.id;
        for _ in 0..max_depth.clamp(1, MAX_DEPTH) {
            if found || frontier.is_empty() {
                break;
            }
            let mut next = Vec::new();
            for id in frontier {
                let mut steps = self.neighbours(id, &relations, Direction::Outgoing, false)?;
                // Instantiating a class runs its constructor.
                if self.store.symbol_by_id(id)?.is_some_and(|s| s.kind.is_type()) {
                    for e in self.store.edges_to(id, &[Relation::Construct])? {
                        steps.push((e.clone(), e.src));
                    }
                }
                for (edge, n) in steps {
                    if seen.insert(n) {
                        prev.insert(n, (id, edge));
                        if n == to.id {
                            found = true;
                        }
                        next.push(n);
                    }
                }
                if found {
                    break;
                }
            }
            frontier = next;
        }
        if !found {
            return Ok(None);
        }
        let mut chain = Vec::new();
        let mut at = to.id;
        let mut depth = 0;
        while at != from.id {
            let Some((p, edge)) = prev.get(&at).cloned() else { break };
            if let Some(symbol) = self.symbol(at)? {
                chain.push((symbol, edge, p));
            }
            at = p;
            depth += 1;
            if depth > MAX_DEPTH {
                break;
            }
        }
        chain.reverse();
        Ok(Some(
            chain
                .into_iter()
                .enumerate()
                .map(|(i, (symbol, edge, via))| {
                    let relation = edge.relation.label().to_string();
                    Hit { symbol, depth: i as u32 + 1, relation, resolution: edge.resolution, site: site(&edge), via }
                })
                .collect(),
        ))
    }

    /// Test functions that reach `root` through calls and instantiations.
    pub fn tests(&self, root: SymbolRow, depth: u32) -> Result<Traversal, GraphError> {
        let mut all = self.walk(root, &[Relation::Calls, Relation::Instantiates, Relation::Uses], Direction::Incoming, depth)?;
        let mut tests = Vec::new();
        for h in all.hits.drain(..) {
            if self.store.metrics(h.symbol.id)?.is_some_and(|m| m.is_test) {
                tests.push(h);
            }
        }
        all.hits = tests;
        Ok(all)
    }

    /// Public functions and methods outside test code that no test reaches
    /// (RepoGPT's "not covered by unit tests"), most important first.
    pub fn untested(&self) -> Result<Vec<SymbolRow>, GraphError> {
        let metrics: FxHashMap<i64, ken_store::MetricsRow> = self.store.all_metrics()?.into_iter().map(|m| (m.symbol_id, m)).collect();
        let mut out_edges: FxHashMap<i64, Vec<i64>> = FxHashMap::default();
        let mut constructors: FxHashMap<i64, Vec<i64>> = FxHashMap::default();
        for (src, dst, relation, _) in self.store.resolved_edges()? {
            match relation {
                // A test of a subclass exercises the methods it inherits and overrides.
                Relation::Calls | Relation::Instantiates | Relation::Uses | Relation::Overrides => {
                    out_edges.entry(src).or_default().push(dst)
                }
                Relation::Construct => constructors.entry(dst).or_default().push(src),
                _ => {}
            }
        }
        let mut reached: FxHashSet<i64> = FxHashSet::default();
        let mut stack: Vec<i64> = metrics.values().filter(|m| m.is_test).map(|m| m.symbol_id).collect();
        while let Some(id) = stack.pop() {
            if !reached.insert(id) {
                continue;
            }
            for &n in out_edges.get(&id).into_iter().flatten().chain(constructors.get(&id).into_iter().flatten()) {
                if !reached.contains(&n) {
                    stack.push(n);
                }
            }
        }
        let syms = self.store.graph_symbols()?;
        let files = self.store.graph_files()?;
        let file_info: FxHashMap<i64, (&str, Option<Language>)> =
            files.iter().map(|f| (f.id, (f.path.as_str(), Some(f.language)))).collect();
        let mut untested: Vec<(f64, &str, i64)> = Vec::new();
        for s in &syms {
            let kind = s.kind;
            if !kind.is_callable() || reached.contains(&s.id) {
                continue;
            }
            let Some(m) = metrics.get(&s.id) else { continue };
            let (path, language) = file_info.get(&s.file_id).copied().unwrap_or(("", None));
            if m.is_test || crate::tests::is_test_path(path) || !is_public(s, kind, language) {
                continue;
            }
            untested.push((m.importance, s.qualified_name.as_str(), s.id));
        }
        // Ties break by name, not id: ids depend on mining order.
        untested.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        let mut rows = Vec::with_capacity(untested.len());
        for (_, _, id) in untested {
            if let Some(s) = self.symbol(id)? {
                rows.push(s);
            }
        }
        Ok(rows)
    }

    /// The `limit` most important symbols (MutaGReP's ranking) of the kinds
    /// and languages `keep` accepts; modules are left out.
    pub fn ranked(
        &self,
        limit: usize,
        keep: impl Fn(SymbolKind, Language) -> bool,
    ) -> Result<Vec<(SymbolRow, ken_store::MetricsRow)>, GraphError> {
        let mut out = Vec::new();
        if limit == 0 {
            return Ok(out);
        }
        self.store.visit_metrics_by_importance(|m, kind, language| {
            if keep(kind, language)
                && let Some(s) = self.store.symbol_by_id(m.symbol_id)?
            {
                out.push((s, m));
            }
            Ok(out.len() < limit)
        })?;
        Ok(out)
    }

    /// The whole graph, or `root`'s neighbourhood within `depth` steps, as
    /// JSON (symbols and edges) or Graphviz DOT.
    pub fn export(&self, root: Option<SymbolRow>, depth: u32, format: ExportFormat) -> Result<String, GraphError> {
        let all_edges = self.store.all_edges()?;
        let (symbols, edges): (Vec<ken_store::GraphSymbol>, Vec<EdgeRow>) = match root {
            None => (self.store.graph_symbols()?, all_edges),
            Some(root) => {
                let mut adjacent: FxHashMap<i64, Vec<usize>> = FxHashMap::default();
                for (i, e) in all_edges.iter().enumerate() {
                    adjacent.entry(e.src).or_default().push(i);
                    if let Some(d) = e.dst {
                        adjacent.entry(d).or_default().push(i);
                    }
                }
                let mut keep: FxHashSet<i64> = FxHashSet::default();
                keep.insert(root.id);
                let mut frontier = vec![root.id];
                for _ in 0..depth.clamp(1, MAX_DEPTH) {
                    let mut next = Vec::new();
                    for id in frontier {
                        for &i in adjacent.get(&id).into_iter().flatten() {
                            let e = &all_edges[i];
                            for n in [Some(e.src), e.dst].into_iter().flatten() {
                                if keep.insert(n) {
                                    next.push(n);
                                }
                            }
                        }
                    }
                    frontier = next;
                }
                let edges: Vec<EdgeRow> =
                    all_edges.into_iter().filter(|e| keep.contains(&e.src) && e.dst.is_some_and(|d| keep.contains(&d))).collect();
                let symbols = self.store.graph_symbols()?.into_iter().filter(|s| keep.contains(&s.id)).collect();
                (symbols, edges)
            }
        };
        let paths: FxHashMap<i64, (String, &str)> =
            self.store.graph_files()?.into_iter().map(|f| (f.id, (f.path, f.language.name()))).collect();
        match format {
            ExportFormat::Json => {
                #[derive(Serialize)]
                struct ExportSymbol<'a> {
                    id: i64,
                    kind: SymbolKind,
                    name: &'a str,
                    qualified_name: &'a str,
                    path: &'a str,
                    language: &'a str,
                    start_line: u32,
                    end_line: u32,
                    name_line: u32,
                    name_col: u32,
                    #[serde(skip_serializing_if = "Option::is_none")]
                    parent: Option<i64>,
                }
                let empty = (String::new(), "");
                let symbols: Vec<ExportSymbol> = symbols
                    .iter()
                    .map(|s| {
                        let (path, language) = paths.get(&s.file_id).unwrap_or(&empty);
                        ExportSymbol {
                            id: s.id,
                            kind: s.kind,
                            name: &s.name,
                            qualified_name: &s.qualified_name,
                            path,
                            language,
                            start_line: s.start_line,
                            end_line: s.end_line,
                            name_line: s.name_line,
                            name_col: s.name_col,
                            parent: s.parent_id,
                        }
                    })
                    .collect();
                Ok(serde_json::to_string(&serde_json::json!({ "symbols": symbols, "edges": edges })).unwrap_or_default())
            }
            ExportFormat::Dot => {
                let mut out = String::from("digraph kenning {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n");
                let known: FxHashSet<i64> = symbols.iter().map(|s| s.id).collect();
                for s in &symbols {
                    out.push_str(&format!("  n{} [label=\"{}\\n{}\"];\n", s.id, escape(s.kind.as_str()), escape(&s.qualified_name)));
                }
                for e in edges.iter().filter(|e| e.relation != Relation::ParentOf) {
                    if let Some(d) = e.dst.filter(|d| known.contains(d) && known.contains(&e.src)) {
                        let label = e.relation.label();
                        out.push_str(&format!("  n{} -> n{} [label=\"{}\"];\n", e.src, d, label));
                    }
                }
                out.push_str("}\n");
                Ok(out)
            }
        }
    }
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

fn site(e: &EdgeRow) -> Site {
    Site { path: e.path.clone(), line: e.line, col: e.col }
}

fn hit(symbol: SymbolRow, depth: u32, edge: &EdgeRow, direction: Direction, via: i64) -> Hit {
    let relation = match direction {
        Direction::Incoming => edge.relation.inverse_name(),
        Direction::Outgoing => edge.relation.label(),
    };
    Hit { symbol, depth, relation: relation.to_string(), resolution: edge.resolution, site: site(edge), via }
}

/// The line that makes `symbol` a property accessor, if it is one.
pub fn accessor_line(store: &Store, symbol: &SymbolRow) -> Result<Option<u32>, StoreError> {
    Ok(match symbol.language.scoping() {
        ken_core::Scoping::Python => {
            let text = store.file_text(&symbol.path)?.unwrap_or_default();
            let decorators = text.lines().skip(symbol.start_line.saturating_sub(1) as usize).map_while(|l| l.trim().strip_prefix('@'));
            decorators.zip(symbol.start_line..).find(|(d, _)| is_accessor_decorator(d)).map(|(_, line)| line)
        }
        ken_core::Scoping::Js => {
            let head = symbol.signature.split(['(', '<']).next().unwrap_or_default();
            head.split_whitespace().any(|w| w == "get" || w == "set").then_some(symbol.start_line)
        }
        _ => None,
    })
}

/// `property`, `functools.cached_property`, `name.setter` and the like
/// (a decorator's text after `@`).
fn is_accessor_decorator(decorator: &str) -> bool {
    let name = decorator.split(['(', '#']).next().unwrap_or_default().trim();
    let last = name.rsplit('.').next().unwrap_or(name);
    matches!(last, "property" | "cached_property" | "setter" | "getter" | "deleter")
}

/// A Go, C or C++ function or method whose uses as a value (a method value,
/// a function pointer) count as its calls, as gopls and clangd count them.
fn taken_as_value_is_called(symbol: &SymbolRow) -> bool {
    symbol.kind.is_callable() && matches!(symbol.language, Language::Go | Language::C | Language::Cpp)
}
