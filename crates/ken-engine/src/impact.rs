//! May-impact analysis (CodePlan, Table 1): each changed file's two
//! versions are classified into atomic changes (ken-change), and each
//! change's rules are followed over the stored dependency graph to the
//! blocks that may have to change with it.
//!
//! The stored graph stands for both D (before) and D′ (after): it is
//! whichever version was indexed last. A symbol it does not hold (added
//! since, or deleted before the last index run) is found through the
//! unresolved uses of its name.

use crate::api::{
    FileChange, FileVersions, ImpactReason, ImpactRequest, ImpactResponse, ImpactSite, ImpactedBlock, MAX_IMPACT_FILE_BYTES, PlanEdge,
    PlanGraph, PlanNode, PlanRequest, PlanStatus,
};
use crate::{Engine, Error};
use ken_change::{Change, ChangeLabel, EscapeKind, FileDiff, Rel, Target, rules};
use ken_core::{Language, RefKind, Relation, Resolution, SymbolKind};
use ken_graph::{Graph, Hit, Site, SymbolRef};
use ken_store::{Store, SymbolRow};
use rustc_hash::{FxHashMap, FxHashSet};
use std::path::Path;
use std::process::Command;

mod inherits;

impl Engine {
    pub fn impact(&self, request: &ImpactRequest) -> Result<ImpactResponse, Error> {
        request.validate()?;
        let store = self.store()?;
        let mut notes = Vec::new();
        let (base, versions) = self.versions(request, &store, &mut notes)?;
        let mut response = self.classified_versions(&base, &versions, notes);
        response.impacted = impacted_blocks(&store, &response.changes, &versions, request.depth.unwrap_or(1))?;
        Ok(response)
    }

    pub(crate) fn classified_versions(&self, base: &str, versions: &[FileVersions], mut notes: Vec<String>) -> ImpactResponse {
        let changes = classify_files(versions);
        if changes.is_empty() {
            notes.push(format!("no change to a function, class, field or import in {} files compared", versions.len()));
        }
        ImpactResponse {
            base: base.to_string(),
            files: versions.iter().map(|f| f.path.clone()).collect(),
            changes,
            impacted: Vec::new(),
            notes,
        }
    }

    /// The two versions of each changed file, and what the old ones were read from.
    pub(crate) fn versions(
        &self,
        request: &ImpactRequest,
        store: &Store,
        notes: &mut Vec<String>,
    ) -> Result<(String, Vec<FileVersions>), Error> {
        if !request.files.is_empty() {
            return Ok(("request".into(), request.files.clone()));
        }
        let in_git = git(&self.root, &["rev-parse", "--is-inside-work-tree"]).is_ok();
        if request.rev.is_some() || request.staged || in_git {
            if !in_git {
                return Err(Error::invalid("rev", format!("needs git, and {} is not in a git work tree", self.root.display())));
            }
            let rev = request.rev.clone().unwrap_or_else(|| "HEAD".into());
            return Ok((format!("git {rev}"), self.git_versions(&rev, request, notes)?));
        }
        if request.paths.is_empty() {
            return Err(Error::invalid(
                "paths",
                format!("{} is not in a git work tree: name the files to compare with their indexed version", self.root.display()),
            ));
        }
        let mut out = Vec::new();
        for path in expand_paths(store, &request.paths)? {
            let before = store.file_text(&path)?.unwrap_or_default();
            let Some(after) = read_text(&self.root.join(&path), &path, notes) else { continue };
            if before != after {
                out.push(FileVersions { path, before, after });
            }
        }
        Ok(("index".into(), out))
    }

    fn git_versions(&self, rev: &str, request: &ImpactRequest, notes: &mut Vec<String>) -> Result<Vec<FileVersions>, Error> {
        let mut diff = vec!["diff", "--name-only", "-z", "--relative", "--no-renames"];
        if request.staged {
            diff.push("--cached");
        }
        diff.extend([rev, "--"]);
        let mut paths: Vec<String> = split_z(&git(&self.root, &diff).map_err(|e| Error::invalid("rev", e))?);
        if !request.staged {
            // New files the working tree holds and git does not track yet.
            paths.extend(split_z(&git(&self.root, &["ls-files", "--others", "--exclude-standard", "-z"]).unwrap_or_default()));
        }
        let wanted = |p: &str| {
            request.paths.is_empty() || request.paths.iter().any(|w| p == w || p.starts_with(&format!("{}/", w.trim_end_matches('/'))))
        };
        // Files of a language Kenning reads, outside the index itself.
        let index_dir = self.index_dir.strip_prefix(&self.root).ok().map(|d| format!("{}/", d.to_string_lossy()));
        let inside_index = |p: &str| index_dir.as_deref().is_some_and(|d| p.starts_with(d)) || p.starts_with(".kenning/");
        paths.retain(|p| wanted(p) && !inside_index(p) && ken_lang::detect(Path::new(p)).is_some());
        paths.sort();
        paths.dedup();
        let mut out = Vec::new();
        for path in paths {
            let before = git(&self.root, &["show", &format!("{rev}:./{path}")]).unwrap_or_default();
            let after = if request.staged {
                git(&self.root, &["show", &format!(":./{path}")]).unwrap_or_default()
            } else {
                match read_text(&self.root.join(&path), &path, notes) {
                    Some(text) => text,
                    None => continue,
                }
            };
            if before.len().max(after.len()) > MAX_IMPACT_FILE_BYTES || before.contains('\0') || after.contains('\0') {
                notes.push(format!("{path}: skipped (binary, or larger than {MAX_IMPACT_FILE_BYTES} bytes)"));
                continue;
            }
            out.push(FileVersions { path, before, after });
        }
        Ok(out)
    }
}

/// Each file's atomic changes, with Table 1's rules for each.
pub(crate) fn classify_files(versions: &[FileVersions]) -> Vec<FileChange> {
    let mut miner = ken_mine::Miner::new();
    let mut changes = Vec::new();
    for file in versions {
        let Some(language) = ken_lang::detect(Path::new(&file.path)) else { continue };
        changes.extend(with_rules(&file.path, FileDiff::mine(&mut miner, language, &file.path, &file.before, &file.after).changes()));
    }
    changes
}

/// One file's atomic changes, each with the may-impact rules its label fires.
pub(crate) fn with_rules(path: &str, changes: Vec<ken_change::Change>) -> Vec<FileChange> {
    changes
        .into_iter()
        .map(|change| {
            let rules = rules::rules(change.label, !change.escaping.is_empty()).iter().map(|r| r.notation(change.label)).collect();
            FileChange { path: path.to_string(), change, rules }
        })
        .collect()
}

/// Files named by `paths` (files, or directories holding indexed files).
fn expand_paths(store: &Store, paths: &[String]) -> Result<Vec<String>, Error> {
    let indexed: Vec<String> = store.file_paths()?.into_iter().map(|(_, p)| p).collect();
    let mut out = Vec::new();
    for wanted in paths {
        let dir = format!("{}/", wanted.trim_end_matches('/'));
        let under: Vec<&String> = indexed.iter().filter(|p| p.starts_with(&dir)).collect();
        if under.is_empty() {
            out.push(wanted.clone());
        } else {
            out.extend(under.into_iter().cloned());
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// A file's text; a file that is gone reads as empty (a deletion). Binary
/// or oversized files are skipped with a note.
fn read_text(path: &Path, name: &str, notes: &mut Vec<String>) -> Option<String> {
    match std::fs::read(path) {
        Ok(bytes) if bytes.len() > MAX_IMPACT_FILE_BYTES || bytes.contains(&0) => {
            notes.push(format!("{name}: skipped (binary, or larger than {MAX_IMPACT_FILE_BYTES} bytes)"));
            None
        }
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(String::new()),
        Err(e) => {
            notes.push(format!("{name}: skipped ({e})"));
            None
        }
    }
}

pub(crate) fn git(root: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(format!("git {} failed: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

pub(crate) fn split_z(text: &str) -> Vec<String> {
    text.split('\0').filter(|p| !p.is_empty()).map(str::to_string).collect()
}

/// Each change's rules over the stored graph, merged by block. `versions`
/// holds the changed files' texts where the caller has them (a lost base
/// class is read from the new header).
fn impacted_blocks(store: &Store, changes: &[FileChange], versions: &[FileVersions], depth: u32) -> Result<Vec<ImpactedBlock>, Error> {
    let graph = Graph::new(store);
    let changed: Vec<&str> = changes.iter().map(|c| c.change.symbol.as_str()).collect();
    let mut blocks: FxHashMap<i64, ImpactedBlock> = FxHashMap::default();
    let edited = edited_lines(versions);
    for FileChange { path, change, .. } in changes {
        for rule in rules::rules(change.label, !change.escaping.is_empty()) {
            let subject = match rule.target {
                Target::Symbol => Some(change.symbol.as_str()),
                Target::Container => change.container.as_deref(),
            };
            let Some(subject) = subject else { continue };
            let constructor_changed = matches!(change.label, ChangeLabel::MCC | ChangeLabel::ACC | ChangeLabel::DCC);
            // A constructor's change needs nothing of the base classes
            // (no checker flags them): the walk is not made.
            if constructor_changed && rule.rel == Rel::DerivedClassOf {
                continue;
            }
            // An import changed: the uses in its file of the names it binds.
            // Otherwise ImportedBy is the graph's imports of the symbol.
            let import_changed = matches!(change.label, ChangeLabel::MI | ChangeLabel::DI);
            let hits = if rule.rel == Rel::ImportedBy && import_changed {
                importers(store, path, change)?
            } else if rule.rel == Rel::Overloads {
                overloads(store, path, change)?
            } else if rule.rel == Rel::Accessor {
                accessors(store, path, change)?
            } else if rule.rel == Rel::Implements {
                trait_implementation(store, path, change)?
            } else if rule.rel == Rel::Inherits {
                inherits::lost_inheritance(store, &graph, path, change, versions)?
            } else if constructor_changed && rule.rel == Rel::InstantiatedBy && !instantiation_constructs(path) {
                Vec::new()
            } else {
                let (relations, incoming) = rule.rel.edge();
                let roots = store.symbols_with_qualified_name(subject)?;
                if roots.is_empty() && rule.rel == Rel::UsedBy && change.kind == Some(SymbolKind::Field) {
                    // A field the index holds no symbol for (a Python instance
                    // attribute): its uses stay raw references by name.
                    let mut hits = attribute_uses(store, path, change)?;
                    hits.extend(inherits::called_fields(store, &graph, path, change)?);
                    hits
                } else if roots.is_empty() && incoming && rule.target == Target::Symbol {
                    // Not in the index: its uses are unresolved edges naming it.
                    loose_uses(store, change, relations)?
                } else {
                    let mut hits = Vec::new();
                    for root in roots {
                        if rule.rel == Rel::CalledBy {
                            hits.extend(recursion(store, &root, relations)?);
                        }
                        let built_by_literals = rule.rel == Rel::ConstructedBy && !instantiation_constructs(&root.path);
                        let mut found =
                            if built_by_literals { Vec::new() } else { graph.follow(root.clone(), relations, incoming, depth)?.hits };
                        if found.is_empty() && rule.rel == Rel::ConstructedBy {
                            // A Rust or Go struct is built where it is written
                            // out (`Version { major, .. }`, in `new` or not):
                            // its instantiations; so is a type without constructors.
                            found = graph.follow(root, &[Relation::Instantiates], true, depth)?.hits;
                        } else if rule.rel == Rel::ConstructedBy {
                            // A constructor owes a field change something where it
                            // initialises the field; a new field's name it cannot hold yet.
                            found.retain(|hit| mentions(store, &hit.symbol, &change.name));
                        }
                        hits.extend(found);
                    }
                    // Calls the resolver could not bind (an untyped receiver) to
                    // a name only this symbol has: they may be its callers too.
                    if rule.rel == Rel::CalledBy && rule.target == Target::Symbol && store.symbols_by_name(&change.name)?.len() == 1 {
                        hits.extend(loose_uses(store, change, relations)?);
                    }
                    // A field holding a class or a function is called.
                    if rule.rel == Rel::UsedBy && change.kind == Some(SymbolKind::Field) {
                        hits.extend(inherits::called_fields(store, &graph, path, change)?);
                    }
                    hits
                }
            };
            let hits = if constructor_changed && rule.rel == Rel::BaseClassOf {
                inheriting_instantiations(store, &graph, change, hits)?
            } else {
                // Where a type is built by its literals, the site is the
                // literal's (InstantiatedBy), not a constructor's header.
                let rel_of = |hit: &Hit| {
                    if rule.rel == Rel::ConstructedBy && hit.relation == Rel::InstantiatedBy.name() {
                        Rel::InstantiatedBy
                    } else {
                        rule.rel
                    }
                };
                hits.into_iter().map(|hit| (rel_of(&hit), hit)).collect()
            };
            for (rel, hit) in hits {
                // A method or field added to, deleted from or changed in a
                // class reaches its base classes and subclasses only where
                // it meets a member of its name (it overrides one, or is
                // overridden): elsewhere nothing in them refers to it (a
                // rename's new name, a helper); their uses are UsedBy's.
                let member_changed = matches!(change.label, ChangeLabel::AM | ChangeLabel::AF | ChangeLabel::DF | ChangeLabel::MF);
                if member_changed
                    && matches!(rule.rel, Rel::BaseClassOf | Rel::DerivedClassOf)
                    && !has_member(store, &hit.symbol.qualified_name, &change.name)?
                {
                    continue;
                }
                // A field's own constructor, edited with it (a Python
                // attribute renamed in `__init__`), owes nothing more.
                if rule.rel == Rel::ConstructedBy && changed.contains(&hit.symbol.qualified_name.as_str()) {
                    continue;
                }
                let mut sites: Vec<ImpactSite> = edge_sites(store, &hit, rel)?
                    .into_iter()
                    .map(|s| ImpactSite { start_line: s.line, end_line: s.line, path: s.path, line: s.line, col: s.col })
                    .collect();
                if rel == Rel::InstantiatedBy && matches!(change.label, ChangeLabel::AF | ChangeLabel::DF) && !sites.is_empty() {
                    sites = field_initializers(store, sites, change, changes)?;
                    if sites.is_empty() {
                        continue;
                    }
                }
                // A site on a line the change rewrote was seen to by the
                // change itself (the class header that lost its base, a
                // deleted body's own calls). A declaration the rewritten
                // line must still agree with (an accessor, an overload) stays.
                if !matches!(rel, Rel::Overloads | Rel::Accessor | Rel::Implements) && !sites.is_empty() {
                    sites.retain(|site| !edited.get(site.path.as_str()).is_some_and(|lines| lines.contains(&site.line)));
                    if sites.is_empty() {
                        continue;
                    }
                }
                let block = blocks.entry(hit.symbol.id).or_insert_with(|| ImpactedBlock {
                    changed: !matches!(rel, Rel::Overloads | Rel::Accessor | Rel::Implements)
                        && changed.contains(&hit.symbol.qualified_name.as_str()),
                    symbol: hit.symbol.clone(),
                    depth: hit.depth,
                    reasons: Vec::new(),
                });
                block.depth = block.depth.min(hit.depth);
                let known =
                    block.reasons.iter_mut().find(|r| r.label == change.label && r.cause == change.symbol && r.relation == rel.name());
                match known {
                    Some(reason) => {
                        for site in sites {
                            if !reason.sites.iter().any(|s| s.path == site.path && s.line == site.line) {
                                reason.sites.push(site);
                            }
                        }
                    }
                    None => {
                        // A deeper hit names the block it was reached through.
                        let through = if hit.depth > 1 { store.symbol_by_id(hit.via)?.map(|s| s.qualified_name) } else { None };
                        block.reasons.push(ImpactReason {
                            through,
                            label: change.label,
                            cause: change.symbol.clone(),
                            rule: rules::Rule { rel, ..rule }.notation(change.label),
                            relation: rel.name().to_string(),
                            depth: hit.depth,
                            sites,
                        });
                    }
                }
            }
        }
    }
    let mut out: Vec<ImpactedBlock> = blocks.into_values().collect();
    spans_of_calls(store, &mut out)?;
    out.sort_by(|a, b| (a.depth, &a.symbol.path, a.symbol.start_line).cmp(&(b.depth, &b.symbol.path, b.symbol.start_line)));
    Ok(out)
}

/// A struct literal (Rust, Go) names each field on a line of its own, where
/// the checker flags a deleted one: that line is the site, and a literal
/// that does not name it (`V { ..base }`) owes nothing. A field added is
/// missing from a literal unless it spreads another value; where a rename
/// deleted another, from one that names the old field the unknown name is
/// the error.
fn field_initializers(store: &Store, sites: Vec<ImpactSite>, change: &Change, changes: &[FileChange]) -> Result<Vec<ImpactSite>, Error> {
    let deleted_beside: Vec<&str> = changes
        .iter()
        .filter(|c| c.change.label == ChangeLabel::DF && c.change.container == change.container)
        .map(|c| c.change.name.as_str())
        .collect();
    // Each file is read once and parsed once per field asked about.
    let mut by_path: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    for (i, site) in sites.iter().enumerate() {
        by_path.entry(site.path.as_str()).or_default().push(i);
    }
    let mut found: Vec<Option<(Option<ken_change::sites::Literal>, bool)>> = vec![None; sites.len()];
    for (path, indices) in &by_path {
        let Some(language) = ken_lang::detect(Path::new(path)).filter(|l| matches!(l, Language::Rust | Language::Go)) else { continue };
        let Some(text) = store.file_text(path)? else { continue };
        let at: Vec<(u32, u32)> = indices.iter().map(|&i| (sites[i].line, sites[i].col)).collect();
        let own = ken_change::sites::struct_literals(language, &text, &at, &change.name);
        let mut names_deleted = vec![false; at.len()];
        for field in &deleted_beside {
            for (named, literal) in names_deleted.iter_mut().zip(ken_change::sites::struct_literals(language, &text, &at, field)) {
                *named |= literal.is_some_and(|l| l.field_line.is_some());
            }
        }
        for ((&i, literal), named) in indices.iter().zip(own).zip(names_deleted) {
            found[i] = Some((literal, named));
        }
    }
    let mut out = Vec::new();
    for (site, found) in sites.into_iter().zip(found) {
        match (change.label, found) {
            (_, None | Some((None, _))) => out.push(site),
            (ChangeLabel::DF, Some((Some(literal), _))) => {
                if let Some(line) = literal.field_line {
                    out.push(ImpactSite { line, start_line: line, end_line: line, col: 1, ..site });
                }
            }
            (_, Some((Some(literal), names_deleted))) => {
                if !literal.spreads && !names_deleted {
                    out.push(site);
                }
            }
        }
    }
    Ok(out)
}

/// Each site's reach: a callee's site spans its call's arguments, and a
/// value passed to a call on several lines starts at the call.
/// Each file is read and parsed once.
fn spans_of_calls(store: &Store, blocks: &mut [ImpactedBlock]) -> Result<(), Error> {
    let mut by_path: FxHashMap<String, Vec<&mut ImpactSite>> = FxHashMap::default();
    for site in blocks.iter_mut().flat_map(|b| b.reasons.iter_mut()).flat_map(|r| r.sites.iter_mut()) {
        by_path.entry(site.path.clone()).or_default().push(site);
    }
    for (path, mut sites) in by_path {
        let Some(language) = ken_lang::detect(Path::new(&path)) else { continue };
        let Some(text) = store.file_text(&path)? else { continue };
        let at: Vec<(u32, u32)> = sites.iter().map(|s| (s.line, s.col)).collect();
        for (site, span) in sites.iter_mut().zip(ken_change::sites::call_spans(language, &text, &at)) {
            if let Some(span) = span {
                (site.start_line, site.end_line) = (span.start_line, span.end_line);
            }
        }
    }
    Ok(())
}

/// The lines of each file's old version that its new version changes or
/// removes (1-based, as the stored graph numbers them).
fn edited_lines(versions: &[FileVersions]) -> FxHashMap<&str, FxHashSet<u32>> {
    let mut edited: FxHashMap<&str, FxHashSet<u32>> = FxHashMap::default();
    for version in versions {
        let diff = similar::TextDiff::from_lines(&version.before, &version.after);
        let lines = edited.entry(version.path.as_str()).or_default();
        for op in diff.ops() {
            if matches!(op.tag(), similar::DiffTag::Delete | similar::DiffTag::Replace) {
                lines.extend(op.old_range().map(|i| i as u32 + 1));
            }
        }
    }
    edited
}

/// The other declarations of the changed function's qualified name in its
/// file (overload signatures), outside the lines it had.
fn overloads(store: &Store, path: &str, change: &Change) -> Result<Vec<Hit>, Error> {
    let Some(before) = change.before else { return Ok(Vec::new()) };
    let mut others = Vec::new();
    for s in store.symbols_with_qualified_name(&change.symbol)? {
        // A property's getter and setter share its name, and are no overloads.
        if s.path == path && (s.end_line < before.start || s.start_line > before.end) && ken_graph::accessor_line(store, &s)?.is_none() {
            others.push(s);
        }
    }
    Ok(others
        .into_iter()
        .map(|s| Hit {
            depth: 1,
            relation: Rel::Overloads.name().to_string(),
            resolution: Resolution::Exact,
            site: Site { path: s.path.clone(), line: s.start_line, col: s.start_col },
            via: 0,
            symbol: s,
        })
        .collect())
}

/// A recursive function as its own caller: the walk leaves out the root,
/// but its calls of itself change with it (a new argument, a new name).
fn recursion(store: &Store, root: &SymbolRow, relations: &[Relation]) -> Result<Vec<Hit>, Error> {
    let calls_itself = store.edges_to(root.id, relations)?.into_iter().find(|e| e.src == root.id);
    Ok(calls_itself
        .map(|e| Hit {
            depth: 1,
            relation: e.relation.inverse_name().to_string(),
            resolution: e.resolution,
            site: Site { path: e.path, line: e.line, col: e.col },
            via: root.id,
            symbol: root.clone(),
        })
        .into_iter()
        .collect())
}

/// Whether the symbol's text holds `word` as a whole word.
fn mentions(store: &Store, symbol: &SymbolRow, word: &str) -> bool {
    let Ok(Some(text)) = store.file_text(&symbol.path) else { return false };
    let lines = text.lines().skip(symbol.start_line.saturating_sub(1) as usize).take((symbol.end_line + 1 - symbol.start_line) as usize);
    lines.flat_map(|l| l.split(|c: char| !(c.is_alphanumeric() || c == '_'))).any(|w| w == word)
}

/// Whether writing out an instance in the file runs a constructor.
fn instantiation_constructs(path: &str) -> bool {
    ken_lang::detect(Path::new(path)).is_none_or(|l| l.scoping().instantiation_runs_constructor())
}

/// The trait implementation the deleted item belonged to, at its `impl`
/// line (Rust: the implementation no longer has every item of the trait).
/// The block is the implementing type where the index holds it.
fn trait_implementation(store: &Store, path: &str, change: &Change) -> Result<Vec<Hit>, Error> {
    let (Some(before), Some(language)) = (change.before, ken_lang::detect(Path::new(path))) else { return Ok(Vec::new()) };
    let text = store.file_text(path)?.unwrap_or_default();
    let Some(line) = ken_change::edit::trait_impl_line(language, &text, before.start) else { return Ok(Vec::new()) };
    let mut owner = match &change.container {
        Some(container) => store.symbols_with_qualified_name(container)?.into_iter().next(),
        None => None,
    };
    if owner.is_none() {
        owner = store.symbols_with_qualified_name(&change.symbol)?.into_iter().find(|s| s.path == path);
    }
    Ok(owner
        .map(|symbol| Hit {
            depth: 1,
            relation: Rel::Implements.name().to_string(),
            resolution: Resolution::Exact,
            site: Site { path: path.to_string(), line, col: 1 },
            via: 0,
            symbol,
        })
        .into_iter()
        .collect())
}

/// The changed method's own declaration where it is a property accessor,
/// at the line that makes it one: `@property` (or `@x.setter`,
/// `@cached_property`) in Python, `get`/`set` in TypeScript and JavaScript.
/// A property takes no arguments, so a parameter added to its getter
/// breaks the property itself (pyright and tsc flag that line), not its uses.
fn accessors(store: &Store, path: &str, change: &Change) -> Result<Vec<Hit>, Error> {
    let Some(before) = change.before else { return Ok(Vec::new()) };
    let declared = store.symbols_with_qualified_name(&change.symbol)?;
    let Some(symbol) = declared.into_iter().find(|s| s.path == path && s.start_line <= before.end && s.end_line >= before.start) else {
        return Ok(Vec::new());
    };
    let Some(line) = ken_graph::accessor_line(store, &symbol)? else { return Ok(Vec::new()) };
    Ok(vec![Hit {
        depth: 1,
        relation: Rel::Accessor.name().to_string(),
        resolution: Resolution::Exact,
        site: Site { path: symbol.path.clone(), line, col: symbol.start_col },
        via: 0,
        symbol,
    }])
}

/// A constructor's change, for the subclasses Table 1 names: one with a
/// constructor of its own needs nothing (its `super().__init__(…)` is a
/// call, reached by `CalledBy`); one that inherits the constructor is built
/// with it, so its instantiations are impacted (`NullSession()` when
/// `SecureCookieSession.__init__` changes).
fn inheriting_instantiations(store: &Store, graph: &Graph, change: &Change, subclasses: Vec<Hit>) -> Result<Vec<(Rel, Hit)>, Error> {
    let mut out = Vec::new();
    for subclass in subclasses {
        if has_member(store, &subclass.symbol.qualified_name, &change.name)? {
            continue;
        }
        for mut hit in graph.follow(subclass.symbol.clone(), &[Relation::Instantiates], true, 1)?.hits {
            hit.depth += subclass.depth;
            out.push((Rel::InstantiatedBy, hit));
        }
    }
    Ok(out)
}

/// Whether the class `class` (qualified) has a member `name` (`a.B.m`, `a::B::m`).
fn has_member(store: &Store, class: &str, name: &str) -> Result<bool, Error> {
    for separator in [".", "::"] {
        if !store.symbols_with_qualified_name(&format!("{class}{separator}{name}"))?.is_empty() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Every place the hit's block meets the symbol it was reached from (a
/// caller may call it three times), in source order; the walk reports one.
fn edge_sites(store: &Store, hit: &Hit, rel: Rel) -> Result<Vec<Site>, Error> {
    let (relations, incoming) = rel.edge();
    let edges = if hit.via == 0 {
        Vec::new()
    } else if incoming {
        store.edges_to(hit.via, relations)?.into_iter().filter(|e| e.src == hit.symbol.id).collect()
    } else {
        store.edges_from(hit.via, relations)?.into_iter().filter(|e| e.dst == Some(hit.symbol.id)).collect()
    };
    let mut sites: Vec<Site> = edges.into_iter().map(|e| Site { path: e.path, line: e.line, col: e.col }).collect();
    if sites.is_empty() {
        sites.push(hit.site.clone());
    }
    sites.dedup_by(|a, b| a.path == b.path && a.line == b.line);
    Ok(sites)
}

/// The unresolved uses of the changed symbol's name, less those whose
/// qualifier names another type (`NonNull::new_unchecked` is no call of
/// `Identifier::new_unchecked`).
fn loose_uses(store: &Store, change: &Change, relations: &[Relation]) -> Result<Vec<Hit>, Error> {
    let mut hits = Vec::new();
    for edge in store.loose_edges_named(&change.name, relations)? {
        if edge.qualifier.as_deref().is_some_and(|q| names_another_type(q, change.container.as_deref())) {
            continue;
        }
        if let Some(symbol) = store.symbol_by_id(edge.src)? {
            hits.push(Hit {
                symbol,
                depth: 1,
                relation: edge.relation.inverse_name().to_string(),
                resolution: edge.resolution,
                site: Site { path: edge.path.clone(), line: edge.line, col: edge.col },
                via: 0,
            });
        }
    }
    Ok(hits)
}

/// The reads and writes of an attribute the index has no symbol for, by
/// name (`response.status_code`), less its own assignment and those whose
/// receiver names another type.
fn attribute_uses(store: &Store, path: &str, change: &Change) -> Result<Vec<Hit>, Error> {
    let declared_at = change.before.map(|r| r.start);
    let mut hits = Vec::new();
    for (r, file) in store.refs_named(&change.name, RefKind::FieldUse)? {
        if (file == path && Some(r.line) == declared_at)
            || r.qualifier.as_deref().is_none_or(|q| names_another_type(q, change.container.as_deref()))
        {
            continue;
        }
        if let Some(symbol) = store.symbol_by_id(r.enclosing_id)? {
            hits.push(direct_hit(symbol, Rel::UsedBy, Resolution::UniqueName, Site { path: file, line: r.line, col: r.col }));
        }
    }
    Ok(hits)
}

/// A block reached in one step, at `site`, by a rule the graph walk does
/// not make (the uses found by name, or by a rule's own reading).
fn direct_hit(symbol: SymbolRow, rel: Rel, resolution: Resolution, site: Site) -> Hit {
    Hit { symbol, depth: 1, relation: rel.name().to_string(), resolution, site, via: 0 }
}

/// Whether a call's qualifier names a type other than the one holding the
/// callee: a capitalised last segment that is not the container's name, for
/// a member; for a free function, a `::` type path (a Python module may be
/// capitalised, `Image.open`; a Rust or C++ function is never `Type::f`).
fn names_another_type(qualifier: &str, container: Option<&str>) -> bool {
    let last = qualifier.rsplit(['.', ':']).find(|s| !s.is_empty()).unwrap_or(qualifier);
    let last = last.split('<').next().unwrap_or(last);
    if !last.starts_with(|c: char| c.is_uppercase()) || last == "Self" {
        return false;
    }
    match container {
        Some(container) => container.rsplit(['.', ':']).find(|s| !s.is_empty()) != Some(last),
        None => qualifier.contains("::"),
    }
}

/// ImportedBy: the blocks of the importing file that use the name the import binds.
fn importers(store: &Store, path: &str, change: &Change) -> Result<Vec<Hit>, Error> {
    let Some((file_id, _)) = store.file_paths()?.into_iter().find(|(_, p)| p == path) else { return Ok(Vec::new()) };
    let bound = change.symbol.as_str();
    let kinds = [RefKind::Call, RefKind::Instantiate, RefKind::Inherit, RefKind::FieldUse];
    let mut hits = Vec::new();
    let mut seen = Vec::new();
    for r in store.graph_refs(&kinds, Some(&[file_id]))? {
        let head = r.qualifier.as_deref().map(|q| q.split(['.', ':']).next().unwrap_or(q));
        if (r.name == bound || head == Some(bound)) && !seen.contains(&r.enclosing_id) {
            seen.push(r.enclosing_id);
            if let Some(symbol) = store.symbol_by_id(r.enclosing_id)? {
                hits.push(Hit {
                    symbol,
                    depth: 1,
                    relation: "ImportedBy".into(),
                    resolution: Resolution::Exact,
                    site: Site { path: path.to_string(), line: r.line, col: r.col },
                    via: 0,
                });
            }
        }
    }
    Ok(hits)
}

impl Engine {
    /// CodePlan's plan graph: the seeds (blocks to edit with the
    /// instruction, or edits already made), then the obligations the
    /// may-impact rules derive from them, each linked to its cause.
    pub fn plan(&self, request: &PlanRequest) -> Result<PlanGraph, Error> {
        request.validate()?;
        let store = self.store()?;
        Ok(self.plan_state(request, &store, true)?.0.plan)
    }

    /// The plan's seeds, and (when `derive`) the obligations they derive;
    /// also the seed changes already made, with both versions of their files.
    pub(crate) fn plan_state(
        &self,
        request: &PlanRequest,
        store: &Store,
        derive: bool,
    ) -> Result<(PlanState, Vec<FileChange>, Vec<FileVersions>), Error> {
        let graph = Graph::new(store);
        let assume = request.assume.as_deref().and_then(ChangeLabel::parse);
        let mut state = PlanState::default();
        let mut changes: Vec<FileChange> = Vec::new();
        let mut made = Vec::new();
        for seed in &request.seeds {
            let block = graph.resolve(&SymbolRef::parse(seed))?;
            if let Some(label) = assume {
                let member = matches!(block.kind, SymbolKind::Method | SymbolKind::Constructor | SymbolKind::Field);
                // An assumed body change counts as one that escapes: its callers are asked to check.
                let escaping = if label == ChangeLabel::MMB {
                    vec![ken_change::Escape { kind: EscapeKind::Return, name: String::new(), line: block.start_line }]
                } else {
                    Vec::new()
                };
                let change = Change {
                    label,
                    symbol: block.qualified_name.clone(),
                    name: block.name.clone(),
                    kind: Some(block.kind),
                    container: if member { block.parent.clone() } else { None },
                    before: None,
                    after: None,
                    escaping,
                };
                let rules = rules::rules(label, true).iter().map(|r| r.notation(label)).collect();
                changes.push(FileChange { path: block.path.clone(), change, rules });
            }
            state.add_node(block, request.instruction.clone(), PlanStatus::Pending, true);
        }
        if let Some(diff) = &request.seed_diff {
            let mut notes = Vec::new();
            let (_, versions) = self.versions(diff, store, &mut notes)?;
            let classified = self.classified_versions("", &versions, notes);
            state.plan.notes.extend(classified.notes);
            for c in classified.changes {
                match store.symbols_with_qualified_name(&c.change.symbol)?.into_iter().next() {
                    Some(block) => {
                        state.add_node(block, request.instruction.clone(), PlanStatus::Completed, true);
                    }
                    None if c.change.kind.is_some() => state.plan.notes.push(format!(
                        "{} ({}) is not in the index yet: what it impacts is listed without it (run `ken index`)",
                        c.change.symbol, c.change.label
                    )),
                    None => {}
                }
                changes.push(c);
            }
            made = versions;
        }
        if derive {
            state.derive(store, &changes, request.depth.unwrap_or(1))?;
        }
        if assume.is_none() && request.seed_diff.is_none() {
            state.plan.notes.push("no obligation is derived before an edit: pass `assume` (e.g. MMS) to plan for a kind of change".into());
        }
        Ok((state, changes, made))
    }
}

/// A plan graph being built: its nodes by block, and why each derived one
/// is there.
#[derive(Default)]
pub(crate) struct PlanState {
    pub plan: PlanGraph,
    node_of: FxHashMap<String, String>,
    /// The reasons that made each derived node an obligation, by node id.
    pub causes: FxHashMap<String, Vec<ImpactReason>>,
}

impl PlanState {
    /// The node of `block`, added when new.
    pub fn add_node(&mut self, block: SymbolRow, instruction: String, status: PlanStatus, seed: bool) -> String {
        if let Some(id) = self.node_of.get(&block.qualified_name) {
            return id.clone();
        }
        let id = format!("n{}", self.plan.nodes.len() + 1);
        self.node_of.insert(block.qualified_name.clone(), id.clone());
        self.plan.nodes.push(PlanNode { id: id.clone(), block, instruction, status, seed, note: None });
        id
    }

    pub fn node_mut(&mut self, id: &str) -> Option<&mut PlanNode> {
        self.plan.nodes.iter_mut().find(|n| n.id == id)
    }

    /// The obligations `changes` derive: a node for each impacted block
    /// (new ones pending), an edge from its cause. Returns the nodes that
    /// gained a reason, in plan order.
    pub fn derive(&mut self, store: &Store, changes: &[FileChange], depth: u32) -> Result<Vec<String>, Error> {
        let mut touched = Vec::new();
        for block in impacted_blocks(store, changes, &[], depth)? {
            let first = &block.reasons[0];
            let instruction = format!(
                "Update for the change to {} ({}, {}): this block is its {}",
                first.cause,
                first.label.describe(),
                first.label,
                relation_noun(&first.relation)
            );
            let reasons = block.reasons.clone();
            let to = self.add_node(block.symbol, instruction, PlanStatus::Pending, false);
            for r in reasons {
                let from = r.through.as_ref().and_then(|t| self.node_of.get(t)).or_else(|| self.node_of.get(&r.cause)).cloned();
                let known = self.causes.entry(to.clone()).or_default();
                if !known.iter().any(|k| k.cause == r.cause && k.rule == r.rule) {
                    known.push(r.clone());
                    if !touched.contains(&to) {
                        touched.push(to.clone());
                    }
                }
                let Some(from) = from else { continue };
                if from != to && !self.plan.edges.iter().any(|e| e.from == from && e.to == to && e.rule == r.rule) {
                    self.plan.edges.push(PlanEdge { from, to: to.clone(), label: r.label, rule: r.rule, relation: r.relation });
                }
            }
        }
        Ok(touched)
    }
}

/// What a block is to the change that reaches it by `relation`.
fn relation_noun(relation: &str) -> &'static str {
    match relation {
        "CalledBy" => "caller",
        "Overrides" => "base method",
        "OverriddenBy" => "override",
        "UsedBy" => "user",
        "ConstructedBy" => "constructor",
        "BaseClassOf" => "subclass",
        "DerivedClassOf" => "base class",
        "InstantiatedBy" => "instantiation site",
        "ImportedBy" => "user of the import",
        _ => "dependant",
    }
}
