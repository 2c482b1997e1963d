//! Stages 2–3: the code association graph grown from the seeds.
//!
//! Nodes are symbols of the index. Breadth-first from the seeds (best seed
//! first), each node contributes its neighbours over the static dependency
//! graph, strongest relations first and at most `max_neighbors` of them, so
//! one hub cannot fill the graph; growth stops at `max_graph_depth` or
//! `max_nodes`. Generic names (the noise filter) are never added: they would
//! glue unrelated communities together in stage 4.

use ken_core::{Relation, SymbolKind};
use ken_search::LaneRanks;
use ken_store::{Store, StoreError, SymbolRow};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use std::collections::VecDeque;

/// Relations followed, with their weight in clustering and their priority
/// when a node has more neighbours than it may keep (lower first).
/// `imports` is left out: module-level, it links everything to everything.
pub(crate) const RELATIONS: &[(Relation, f64, u8)] = &[
    (Relation::Calls, 1.0, 0),
    (Relation::Instantiates, 1.0, 0),
    (Relation::Overrides, 1.0, 0),
    (Relation::DerivedClassOf, 1.0, 0),
    (Relation::Construct, 1.0, 0),
    (Relation::Uses, 0.5, 1),
    (Relation::ParentOf, 0.5, 2),
];

pub(crate) fn followed_relations() -> Vec<Relation> {
    RELATIONS.iter().map(|r| r.0).collect()
}

/// An edge's weight in clustering; a language server's `references` (not a
/// stored relation) weighs as a use.
pub(crate) fn relation_weight(relation: &str) -> f64 {
    RELATIONS.iter().find(|r| r.0.as_str() == relation).map_or(0.5, |r| r.1)
}

fn relation_priority(relation: Relation) -> u8 {
    RELATIONS.iter().find(|r| r.0 == relation).map_or(3, |r| r.2)
}

/// Names too generic to say anything about a query (seed 003's list, and
/// the usual suspects of each language).
pub const NOISE_NAMES: &[&str] = &[
    "log",
    "print",
    "println",
    "printf",
    "debug",
    "info",
    "error",
    "warn",
    "warning",
    "get",
    "set",
    "init",
    "__init__",
    "__new__",
    "__repr__",
    "__str__",
    "__eq__",
    "__hash__",
    "__len__",
    "__iter__",
    "__getitem__",
    "__setitem__",
    "__contains__",
    "__enter__",
    "__exit__",
    "__call__",
    "tostring",
    "equals",
    "hashcode",
    "constructor",
    "new",
    "default",
    "clone",
    "fmt",
    "len",
    "main",
    "string",
    "valueof",
];

pub(crate) fn is_noise(name: &str, extra: &[String]) -> bool {
    let lower = name.to_ascii_lowercase();
    NOISE_NAMES.contains(&lower.as_str()) || extra.iter().any(|e| e.eq_ignore_ascii_case(name))
}

/// How a node got into the graph.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "origin", rename_all = "lowercase")]
pub enum Origin {
    /// Retrieved by stage 1.
    Seed { rank: usize, score: f32, lanes: LaneRanks },
    /// Reached from another node: `from` `relation` this one (CodePlan's
    /// label in that direction: "Session.send CalledBy Session.request").
    Reached { from: usize, relation: String, via: Via, depth: u32 },
}

impl Origin {
    /// A seed's fused retrieval score.
    pub fn seed_score(&self) -> Option<f32> {
        match self {
            Origin::Seed { score, .. } => Some(*score),
            Origin::Reached { .. } => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Via {
    /// The stored dependency graph.
    Graph,
    /// A live language server.
    Lsp,
}

#[derive(Clone, Debug)]
pub struct Node {
    pub symbol: SymbolRow,
    pub origin: Origin,
}

impl Node {
    pub fn is_seed(&self) -> bool {
        matches!(self.origin, Origin::Seed { .. })
    }
    pub fn depth(&self) -> u32 {
        match self.origin {
            Origin::Seed { .. } => 0,
            Origin::Reached { depth, .. } => depth,
        }
    }
}

/// A directed edge between two nodes: `src` `relation` `dst`, forward
/// relation names (`calls`, `parent_of`, or `references` from a server).
#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    pub src: usize,
    pub dst: usize,
    pub relation: String,
    pub via: Via,
}

#[derive(Clone, Debug, Default)]
pub struct CodeGraph {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    /// `(src, dst, relation)` of every edge, so adding one is O(1).
    edge_keys: FxHashSet<(usize, usize, String)>,
    pub index: FxHashMap<i64, usize>,
    /// Neighbours left out because they were generic names.
    pub noise_dropped: usize,
    /// Growth stopped at `max_nodes` with nodes still waiting.
    pub truncated: bool,
    pub depth_reached: u32,
}

impl CodeGraph {
    pub fn add(&mut self, symbol: SymbolRow, origin: Origin) -> usize {
        if let Some(&i) = self.index.get(&symbol.id) {
            return i;
        }
        let i = self.nodes.len();
        self.index.insert(symbol.id, i);
        if let Origin::Reached { depth, .. } = origin {
            self.depth_reached = self.depth_reached.max(depth);
        }
        self.nodes.push(Node { symbol, origin });
        i
    }

    pub fn add_edge(&mut self, src: usize, dst: usize, relation: &str, via: Via) {
        if src == dst || !self.edge_keys.insert((src, dst, relation.to_string())) {
            return;
        }
        self.edges.push(Edge { src, dst, relation: relation.to_string(), via });
    }
}

/// A neighbour of a node in the static graph: the symbol, the relation in
/// the direction node → neighbour (CodePlan label) and how often it occurs.
pub(crate) struct Neighbour {
    pub id: i64,
    pub label: &'static str,
    priority: u8,
    count: u32,
}

/// A node's neighbours over [`RELATIONS`], strongest first.
pub(crate) fn static_neighbours(store: &Store, id: i64) -> Result<Vec<Neighbour>, StoreError> {
    let relations = followed_relations();
    let mut by_id: FxHashMap<i64, Neighbour> = FxHashMap::default();
    let mut add = |other: i64, relation: Relation, forward: bool| {
        let label = if forward { relation.label() } else { relation.inverse_name() };
        let priority = relation_priority(relation);
        let entry = by_id.entry(other).or_insert(Neighbour { id: other, label, priority, count: 0 });
        entry.count += 1;
        if priority < entry.priority {
            entry.priority = priority;
            entry.label = label;
        }
    };
    for e in store.edges_from(id, &relations)? {
        if let Some(dst) = e.dst.filter(|&d| d != id) {
            add(dst, e.relation, true);
        }
    }
    for e in store.edges_to(id, &relations)? {
        if e.src != id {
            add(e.src, e.relation, false);
        }
    }
    let mut out: Vec<Neighbour> = by_id.into_values().collect();
    out.sort_by(|a, b| a.priority.cmp(&b.priority).then(b.count.cmp(&a.count)).then(a.id.cmp(&b.id)));
    Ok(out)
}

pub(crate) struct Limits<'a> {
    pub max_depth: u32,
    pub max_nodes: usize,
    pub max_neighbors: usize,
    pub noise: &'a [String],
}

/// Breadth-first growth over the static graph from `frontier` (node indexes).
pub(crate) fn expand_static(
    store: &Store,
    graph: &mut CodeGraph,
    frontier: impl IntoIterator<Item = usize>,
    limits: &Limits,
) -> Result<(), StoreError> {
    let mut queue: VecDeque<usize> = frontier.into_iter().collect();
    while let Some(at) = queue.pop_front() {
        queue.extend(grow_static(store, graph, at, limits)?);
        if graph.truncated {
            break;
        }
    }
    Ok(())
}

/// Adds one node's static neighbours (one level); returns the new nodes.
pub(crate) fn grow_static(store: &Store, graph: &mut CodeGraph, at: usize, limits: &Limits) -> Result<Vec<usize>, StoreError> {
    let depth = graph.nodes[at].depth();
    let mut added = Vec::new();
    if depth >= limits.max_depth {
        return Ok(added);
    }
    let id = graph.nodes[at].symbol.id;
    for n in static_neighbours(store, id)? {
        if added.len() >= limits.max_neighbors {
            break;
        }
        // Containment only from the seeds themselves: a seed's class or
        // members belong with it, its class's other members do not.
        if graph.index.contains_key(&n.id) || (depth > 0 && matches!(n.label, "ParentOf" | "ChildOf")) {
            continue;
        }
        if graph.nodes.len() >= limits.max_nodes {
            graph.truncated = true;
            break;
        }
        let Some(symbol) = store.symbol_by_id(n.id)? else { continue };
        // A module contains everything in its file: it says nothing about the query.
        if symbol.kind == SymbolKind::Module {
            continue;
        }
        if is_noise(&symbol.name, limits.noise) {
            graph.noise_dropped += 1;
            continue;
        }
        let origin = Origin::Reached { from: at, relation: n.label.to_string(), via: Via::Graph, depth: depth + 1 };
        added.push(graph.add(symbol, origin));
    }
    Ok(added)
}

/// Every stored edge between two nodes of the graph (over [`RELATIONS`]).
pub(crate) fn connect_static(store: &Store, graph: &mut CodeGraph) -> Result<(), StoreError> {
    let relations = followed_relations();
    let ids: FxHashSet<i64> = graph.index.keys().copied().collect();
    for src in 0..graph.nodes.len() {
        for e in store.edges_from(graph.nodes[src].symbol.id, &relations)? {
            if let Some(dst) = e.dst.filter(|d| ids.contains(d)).and_then(|d| graph.index.get(&d).copied()) {
                graph.add_edge(src, dst, e.relation.as_str(), Via::Graph);
            }
        }
    }
    Ok(())
}
