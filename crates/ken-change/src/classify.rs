//! ClassifyChanges: both versions are mined, their symbols paired by their
//! path inside the file and their kind, and each pair, and each symbol on
//! one side only, gives its atomic changes. Imports are paired by the name
//! they bind.

use crate::ChangeLabel;
use crate::escape::{Escape, escapes};
use ken_core::{ChunkBudget, FileAnalysis, Language, RefKind, Symbol, SymbolKind};
use ken_mine::Miner;
use rustc_hash::FxHashMap;
use serde::Serialize;

/// One atomic change, tied to the symbol it concerns.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Change {
    pub label: ChangeLabel,
    /// The symbol's qualified name; for an import, the name it binds.
    pub symbol: String,
    pub name: String,
    /// `None` for imports.
    #[schemars(with = "Option<String>")]
    pub kind: Option<SymbolKind>,
    /// The class or type holding the symbol (qualified), when it is a member.
    pub container: Option<String>,
    /// Its lines in the old version (modified and deleted symbols).
    pub before: Option<LineRange>,
    /// Its lines in the new version (modified and added symbols).
    pub after: Option<LineRange>,
    /// For a body change (MMB): the objects it modifies that outlive the
    /// call (the return value, a parameter, a field, a global). Table 1's
    /// MMB rule reaches the callers only when there is one.
    pub escaping: Vec<Escape>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LineRange {
    pub start: u32,
    pub end: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Category {
    Type,
    Callable,
    Field,
}

fn category(kind: SymbolKind) -> Option<Category> {
    if kind.is_type() {
        Some(Category::Type)
    } else if kind.is_callable() {
        Some(Category::Callable)
    } else if matches!(kind, SymbolKind::Field | SymbolKind::Constant) {
        Some(Category::Field)
    } else {
        None
    }
}

/// One side of the comparison: a file's text and what was mined from it.
struct Version<'a> {
    text: &'a str,
    analysis: FileAnalysis,
}

impl Version<'_> {
    fn source(&self, s: &Symbol) -> &str {
        self.text.get(s.span.start_byte as usize..s.span.end_byte as usize).unwrap_or("")
    }

    fn lines(s: &Symbol) -> LineRange {
        LineRange { start: s.span.start_line, end: s.span.end_line }
    }

    /// The type a member belongs to: its parent when that is a type, else
    /// the owner its qualified name spells (a Rust `impl` in another module).
    fn container(&self, s: &Symbol) -> Option<String> {
        if let Some(parent) = s.parent.and_then(|p| self.analysis.symbols.get(p as usize))
            && parent.kind.is_type()
        {
            return Some(parent.qualified_name.clone());
        }
        let member = matches!(s.kind, SymbolKind::Method | SymbolKind::Constructor | SymbolKind::Field);
        let nested = s.local_path.len() > s.name.len();
        (member && nested)
            .then(|| s.qualified_name.strip_suffix(s.name.as_str()).map(|q| q.trim_end_matches(['.', ':']).to_string()))
            .flatten()
    }

    /// Symbols by (path in the file, category, occurrence): overloads pair in order.
    fn keyed(&self) -> FxHashMap<(String, Category, usize), usize> {
        let mut seen: FxHashMap<(String, Category), usize> = FxHashMap::default();
        let mut out = FxHashMap::default();
        for (i, s) in self.analysis.symbols.iter().enumerate() {
            let Some(category) = category(s.kind) else { continue };
            let n = seen.entry((s.local_path.clone(), category)).or_default();
            out.insert((s.local_path.clone(), category, *n), i);
            *n += 1;
        }
        out
    }

    /// Module-level names a function can assign (constants and variables).
    fn globals(&self) -> Vec<String> {
        self.analysis
            .symbols
            .iter()
            .filter(|s| matches!(s.kind, SymbolKind::Constant | SymbolKind::Field) && s.parent.is_none_or(|p| p == 0))
            .map(|s| s.name.clone())
            .collect()
    }

    /// Imports by the name each binds: (module, imported name, line).
    fn imports(&self) -> FxHashMap<String, (Option<String>, String, u32)> {
        self.analysis
            .references
            .iter()
            .filter(|r| r.kind == RefKind::Import)
            .map(|r| (r.alias.clone().unwrap_or_else(|| r.name.clone()), (r.qualifier.clone(), r.name.clone(), r.line)))
            .collect()
    }
}

/// A Python class's instance attributes, the `self.x = …` of its
/// `__init__` (its fields, where other languages declare them), by class:
/// (qualified name of the attribute, the line assigning it first).
fn instance_attributes(version: &Version<'_>) -> FxHashMap<String, (String, String, u32)> {
    let mut out = FxHashMap::default();
    for init in version.analysis.symbols.iter().filter(|s| s.name == "__init__" && s.kind.is_callable()) {
        let Some(class) = version.container(init) else { continue };
        // The class's declared members (a class-level field is no instance attribute).
        let declared: Vec<&str> =
            version.analysis.symbols.iter().filter(|s| s.parent.is_some() && s.parent == init.parent).map(|s| s.name.as_str()).collect();
        for (offset, line) in version.source(init).lines().enumerate() {
            let Some(rest) = line.trim_start().strip_prefix("self.") else { continue };
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let after = rest[name.len()..].trim_start();
            // `self.x = …` or `self.x: T = …`, not `self.x == …` nor `self.x.y = …`.
            let assigns = after.starts_with(':') || (after.starts_with('=') && !after.starts_with("=="));
            if name.is_empty() || !assigns || declared.contains(&name.as_str()) {
                continue;
            }
            let qualified = format!("{class}.{name}");
            out.entry(qualified).or_insert((name, class.clone(), init.span.start_line + offset as u32));
        }
    }
    out
}

/// Python instance attributes that `__init__` no longer assigns (DF) or
/// newly assigns (AF): a renamed attribute is both, as a declared field is.
fn instance_attribute_changes(old: &Version<'_>, new: &Version<'_>) -> Vec<Change> {
    let (before, after) = (instance_attributes(old), instance_attributes(new));
    let change = |label, qualified: &str, (name, class, line): &(String, String, u32), deleted: bool| {
        let lines = Some(LineRange { start: *line, end: *line });
        Change {
            label,
            symbol: qualified.to_string(),
            name: name.clone(),
            kind: Some(SymbolKind::Field),
            container: Some(class.clone()),
            before: if deleted { lines } else { None },
            after: if deleted { None } else { lines },
            escaping: Vec::new(),
        }
    };
    let mut out: Vec<Change> =
        before.iter().filter(|(q, _)| !after.contains_key(*q)).map(|(q, a)| change(ChangeLabel::DF, q, a, true)).collect();
    out.extend(after.iter().filter(|(q, _)| !before.contains_key(*q)).map(|(q, a)| change(ChangeLabel::AF, q, a, false)));
    out
}

/// Whitespace-insensitive text, so reindenting or rewrapping is no change.
fn norm(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A callable's header (decorators and signature, up to its body) and its
/// body with the line it starts at, as the grammar splits them: a mined
/// signature is cut short on long parameter lists.
fn split<'t>(v: &Version<'t>, tree: Option<&tree_sitter::Tree>, s: &Symbol) -> Option<(&'t str, (&'t str, u32))> {
    let (head, body) = crate::edit::split_definition(tree?, v.text, &s.name, s.name_line)?;
    let start = (s.span.start_byte as usize).min(head.start);
    let line = s.span.start_line + v.text[start..body.start].matches('\n').count() as u32;
    Some((&v.text[start..head.end], (&v.text[body], line)))
}

/// The lines after the signature (the body), and the line they start at.
fn body<'t>(version: &'t Version<'_>, s: &Symbol) -> (&'t str, u32) {
    let text = version.source(s);
    let head_lines = s.name_line.saturating_sub(s.span.start_line) as usize + s.signature.lines().count().max(1);
    let start = text.split_inclusive('\n').take(head_lines).map(str::len).sum::<usize>().min(text.len());
    (&text[start..], s.span.start_line + head_lines as u32)
}

/// The atomic changes from `before` to `after` of the file at `path`.
/// A file without symbols (documents, configuration, an unknown language)
/// has none.
pub fn classify(path: &str, language: Language, before: &str, after: &str) -> Vec<Change> {
    FileDiff::mine(&mut Miner::new(), language, path, before, after).changes()
}

/// Two versions of one file, each mined and parsed once, for
/// [`FileDiff::changes`] and then [`FileDiff::signature_deltas`].
pub struct FileDiff<'a> {
    language: Language,
    old: Version<'a>,
    new: Version<'a>,
    /// Parsed on the first callable that needs it.
    trees: std::cell::OnceCell<(Option<tree_sitter::Tree>, Option<tree_sitter::Tree>)>,
}

impl<'a> FileDiff<'a> {
    pub fn mine(miner: &mut Miner, language: Language, path: &str, before: &'a str, after: &'a str) -> Self {
        let budget = ChunkBudget::default();
        FileDiff {
            language,
            old: Version { text: before, analysis: miner.analyze(path, language, before, &budget) },
            new: Version { text: after, analysis: miner.analyze(path, language, after, &budget) },
            trees: std::cell::OnceCell::new(),
        }
    }

    fn trees(&self) -> (Option<&tree_sitter::Tree>, Option<&tree_sitter::Tree>) {
        let (old, new) = self
            .trees
            .get_or_init(|| (crate::edit::parse_tree(self.language, self.old.text), crate::edit::parse_tree(self.language, self.new.text)));
        (old.as_ref(), new.as_ref())
    }

    /// The signature changes among `changes` (from [`FileDiff::changes`]).
    pub fn signature_deltas<'s>(&'s self, changes: &[Change]) -> Vec<(String, crate::edit::SignatureDelta)> {
        let (old_tree, new_tree) = self.trees();
        let side = |v: &'s Version<'_>, tree| crate::edit::Side { text: v.text, symbols: &v.analysis.symbols, tree };
        crate::edit::signature_deltas_of(self.language, side(&self.old, old_tree), side(&self.new, new_tree), changes)
    }

    /// ClassifyChanges over the two versions.
    pub fn changes(&self) -> Vec<Change> {
        let (language, old, new) = (self.language, &self.old, &self.new);
        let (old_keys, new_keys) = (old.keyed(), new.keyed());
        let globals = new.globals();
        let mut changes = Vec::new();
        let change = |label, version: &Version<'_>, s: &Symbol, before: Option<LineRange>, after: Option<LineRange>| Change {
            label,
            symbol: s.qualified_name.clone(),
            name: s.name.clone(),
            kind: Some(s.kind),
            container: version.container(s),
            before,
            after,
            escaping: Vec::new(),
        };

        for (key, &j) in &new_keys {
            let b = &new.analysis.symbols[j];
            let Some(&i) = old_keys.get(key) else {
                let label = match key.1 {
                    Category::Type => ChangeLabel::AC,
                    Category::Field => ChangeLabel::AF,
                    Category::Callable if b.kind == SymbolKind::Constructor => ChangeLabel::ACC,
                    Category::Callable => ChangeLabel::AM,
                };
                changes.push(change(label, new, b, None, Some(Version::lines(b))));
                continue;
            };
            let a = &old.analysis.symbols[i];
            let spans = (Some(Version::lines(a)), Some(Version::lines(b)));
            match key.1 {
                Category::Type => {
                    let head = |v: &Version<'_>, s: &Symbol| {
                        norm(
                            &v.source(s)
                                .lines()
                                .take(s.name_line.saturating_sub(s.span.start_line) as usize)
                                .collect::<Vec<_>>()
                                .join("\n"),
                        )
                    };
                    if norm(&a.signature) != norm(&b.signature) || head(old, a) != head(new, b) {
                        changes.push(change(ChangeLabel::MC, new, b, spans.0, spans.1));
                    }
                }
                Category::Field => {
                    if norm(old.source(a)) != norm(new.source(b)) {
                        changes.push(change(ChangeLabel::MF, new, b, spans.0, spans.1));
                    }
                }
                Category::Callable => {
                    let (ot, nt) = self.trees();
                    let (signature_changed, (old_body, old_line), (new_body, new_line)) = match (split(old, ot, a), split(new, nt, b)) {
                        (Some((ha, ba)), Some((hb, bb))) => (norm(ha) != norm(hb), ba, bb),
                        _ => (norm(&a.signature) != norm(&b.signature), body(old, a), body(new, b)),
                    };
                    let text_changed = norm(old.source(a)) != norm(new.source(b));
                    let body_changed = if old_body.trim().is_empty() && new_body.trim().is_empty() {
                        !signature_changed && text_changed
                    } else {
                        norm(old_body) != norm(new_body)
                    };
                    if signature_changed || (text_changed && !body_changed) {
                        // A decorator or attribute counts with the signature.
                        let label = if b.kind == SymbolKind::Constructor { ChangeLabel::MCC } else { ChangeLabel::MMS };
                        changes.push(change(label, new, b, spans.0, spans.1));
                    }
                    if body_changed {
                        let (old_body, new_body) = if old_body.trim().is_empty() && new_body.trim().is_empty() {
                            (old.source(a), new.source(b))
                        } else {
                            (old_body, new_body)
                        };
                        let mut c = change(ChangeLabel::MMB, new, b, spans.0, spans.1);
                        c.escaping = escapes(language, &b.signature, (old_body, old_line), (new_body, new_line), &globals);
                        changes.push(c);
                    }
                }
            }
        }
        for (key, &i) in &old_keys {
            if new_keys.contains_key(key) {
                continue;
            }
            let a = &old.analysis.symbols[i];
            let label = match key.1 {
                Category::Type => ChangeLabel::DC,
                Category::Field => ChangeLabel::DF,
                Category::Callable if a.kind == SymbolKind::Constructor => ChangeLabel::DCC,
                Category::Callable => ChangeLabel::DM,
            };
            changes.push(change(label, old, a, Some(Version::lines(a)), None));
        }

        if language == Language::Python {
            let attributes = instance_attribute_changes(old, new);
            // A renamed or dropped attribute is its DF and AF, not a
            // modified value the constructor's callers would see.
            for c in changes.iter_mut().filter(|c| c.label == ChangeLabel::MMB) {
                c.escaping.retain(|e| {
                    e.kind != crate::EscapeKind::Field || !attributes.iter().any(|a| a.container == c.container && a.name == e.name)
                });
            }
            changes.extend(attributes);
        }

        let (old_imports, new_imports) = (old.imports(), new.imports());
        let import = |label, bound: &str, name: &str, before: Option<u32>, after: Option<u32>| Change {
            label,
            symbol: bound.to_string(),
            name: name.to_string(),
            kind: None,
            container: None,
            before: before.map(|l| LineRange { start: l, end: l }),
            after: after.map(|l| LineRange { start: l, end: l }),
            escaping: Vec::new(),
        };
        for (bound, (module, name, line)) in &new_imports {
            match old_imports.get(bound) {
                None => changes.push(import(ChangeLabel::AI, bound, name, None, Some(*line))),
                Some((old_module, old_name, old_line)) if (old_module, old_name) != (module, name) => {
                    changes.push(import(ChangeLabel::MI, bound, name, Some(*old_line), Some(*line)))
                }
                Some(_) => {}
            }
        }
        for (bound, (_, name, line)) in &old_imports {
            if !new_imports.contains_key(bound) {
                changes.push(import(ChangeLabel::DI, bound, name, Some(*line), None));
            }
        }
        changes.sort_by(|a, b| {
            let line = |c: &Change| c.after.or(c.before).map_or(0, |r| r.start);
            (line(a), a.label, &a.symbol).cmp(&(line(b), b.label, &b.symbol))
        });
        changes
    }
}
