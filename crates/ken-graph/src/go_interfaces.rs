//! Go's interfaces, which a type satisfies by its method set: nothing in
//! the code names the relation, so queries work it out when asked, from
//! qualified names (`pkg.Type.Method`, wherever in the package a method is
//! declared) and embedding (`DerivedClassOf` edges: a struct's embedded
//! fields, an interface's embedded interfaces). Worked out at query time,
//! it keeps out of the stored graph a relation that an edit anywhere in a
//! package could change, so incremental linking stays exact.

use crate::query::{Graph, GraphError};
use ken_core::{Language, Relation, SymbolKind};
use ken_store::SymbolKey;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::hash_map::Entry;

/// How deep embedding is followed, either way.
const MAX_EMBEDDING: usize = 4;
/// Most types considered for one interface or method.
const MAX_CANDIDATES: usize = 256;

impl Graph<'_> {
    /// The methods that dynamic dispatch ties `method` to: for an
    /// interface's method, the methods of that name on the types that
    /// satisfy the interface (or are embedded in one that does); for a
    /// type's method, the methods of that name on the interfaces the type,
    /// or a type embedding it, satisfies. A call through either may run
    /// the other, so each counts the other's calls, as gopls does.
    pub(crate) fn go_dispatch_partners(&self, method: &ken_store::SymbolRow) -> Result<Vec<i64>, GraphError> {
        let Some((owner, _)) = method.qualified_name.rsplit_once('.') else { return Ok(Vec::new()) };
        let Some(owner) = self.go_type(owner)? else { return Ok(Vec::new()) };
        let mut partners = Vec::new();
        // Per interface: a common name (`String`) meets one interface many times.
        let mut required_by: FxHashMap<i64, FxHashSet<String>> = FxHashMap::default();
        for other in self.store.symbol_keys_named(&method.name)? {
            if other.id == method.id || other.language != Language::Go || !other.kind.is_callable() {
                continue;
            }
            let Some(other_owner) = other.qualified_name.rsplit_once('.').map(|(o, _)| o) else { continue };
            let Some(other_owner) = self.go_type(other_owner)? else { continue };
            let (interface, concrete) = match (owner.kind == SymbolKind::Interface, other_owner.kind == SymbolKind::Interface) {
                (true, false) => (&owner, &other_owner),
                (false, true) => (&other_owner, &owner),
                _ => continue,
            };
            let required = match required_by.entry(interface.id) {
                Entry::Occupied(known) => known.into_mut(),
                Entry::Vacant(slot) => slot.insert(self.go_required_methods(interface)?),
            };
            let mut satisfies = false;
            for ty in std::iter::once(concrete.clone()).chain(self.go_embedders(concrete)?) {
                if self.go_has_methods(&ty, required)? {
                    satisfies = true;
                    break;
                }
            }
            if satisfies {
                partners.push(other.id);
            }
        }
        Ok(partners)
    }

    /// The types, interfaces among them, whose method sets cover the
    /// interface's.
    pub(crate) fn go_implementers(&self, interface: &ken_store::SymbolRow) -> Result<Vec<i64>, GraphError> {
        let Some(interface) = self.go_type(&interface.qualified_name)?.filter(|t| t.kind == SymbolKind::Interface) else {
            return Ok(Vec::new());
        };
        let required = self.go_required_methods(&interface)?;
        let Some(first) = required.iter().min() else { return Ok(Vec::new()) };
        // The types with a method of one required name, and those embedding them.
        let mut candidates: Vec<SymbolKey> = Vec::new();
        let mut seen: FxHashSet<i64> = FxHashSet::from_iter([interface.id]);
        for method in self.store.symbol_keys_named(first)? {
            if method.language != Language::Go || !method.kind.is_callable() {
                continue;
            }
            let Some((owner, _)) = method.qualified_name.rsplit_once('.') else { continue };
            let Some(owner) = self.go_type(owner)? else { continue };
            if !seen.insert(owner.id) {
                continue;
            }
            for embedder in self.go_embedders(&owner)? {
                if seen.insert(embedder.id) {
                    candidates.push(embedder);
                }
            }
            candidates.push(owner);
            if candidates.len() >= MAX_CANDIDATES {
                break;
            }
        }
        let mut implementers = Vec::new();
        for ty in candidates {
            if self.go_has_methods(&ty, &required)? {
                implementers.push(ty.id);
            }
        }
        implementers.sort_unstable();
        Ok(implementers)
    }

    /// The Go type of that qualified name, if the index has it.
    fn go_type(&self, qualified_name: &str) -> Result<Option<SymbolKey>, GraphError> {
        let types = self.store.symbol_keys_with_qualified_name(qualified_name)?;
        Ok(types.into_iter().find(|t| t.language == Language::Go && t.kind.is_type()))
    }

    /// The method names an interface requires: its own and those of the
    /// interfaces it embeds.
    fn go_required_methods(&self, interface: &SymbolKey) -> Result<FxHashSet<String>, GraphError> {
        let mut names = FxHashSet::default();
        for ty in std::iter::once(interface.clone()).chain(self.go_embedded(interface)?) {
            // Any callable: an index mined before Go's methods named like their
            // type stopped being constructors still holds them as such.
            names.extend(self.store.child_keys(ty.id)?.into_iter().filter(|m| m.kind.is_callable()).map(|m| m.name));
        }
        Ok(names)
    }

    /// Whether `ty` has a method of each name, its own or promoted from a
    /// type it embeds (one name at least).
    fn go_has_methods(&self, ty: &SymbolKey, names: &FxHashSet<String>) -> Result<bool, GraphError> {
        if names.is_empty() {
            return Ok(false);
        }
        let holders: Vec<SymbolKey> = std::iter::once(ty.clone()).chain(self.go_embedded(ty)?).collect();
        for name in names {
            let mut found = false;
            for holder in &holders {
                let methods = self.store.symbol_keys_with_qualified_name(&format!("{}.{name}", holder.qualified_name))?;
                if methods.iter().any(|m| m.kind.is_callable()) {
                    found = true;
                    break;
                }
            }
            if !found {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The types `ty` embeds, transitively.
    fn go_embedded(&self, ty: &SymbolKey) -> Result<Vec<SymbolKey>, GraphError> {
        self.go_embedding(ty, false)
    }

    /// The types embedding `ty`, transitively.
    fn go_embedders(&self, ty: &SymbolKey) -> Result<Vec<SymbolKey>, GraphError> {
        self.go_embedding(ty, true)
    }

    fn go_embedding(&self, ty: &SymbolKey, embedders: bool) -> Result<Vec<SymbolKey>, GraphError> {
        let mut out: Vec<SymbolKey> = Vec::new();
        let mut seen: FxHashSet<i64> = FxHashSet::from_iter([ty.id]);
        let mut frontier = vec![ty.id];
        for _ in 0..MAX_EMBEDDING {
            let mut next = Vec::new();
            for id in frontier {
                let edges = if embedders {
                    self.store.edges_to(id, &[Relation::DerivedClassOf])?
                } else {
                    self.store.edges_from(id, &[Relation::DerivedClassOf])?
                };
                for e in edges {
                    let other = if embedders { Some(e.src) } else { e.dst };
                    let Some(other) = other.filter(|o| seen.insert(*o)) else { continue };
                    let Some(symbol) = self.store.symbol_key(other)? else { continue };
                    if symbol.language == Language::Go && out.len() < MAX_CANDIDATES {
                        next.push(other);
                        out.push(symbol);
                    }
                }
            }
            frontier = next;
        }
        Ok(out)
    }
}
