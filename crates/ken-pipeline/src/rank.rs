//! Stage 5: multi-factor scores inside each cluster.
//!
//! score = w1 · text relevance + w2 · centrality + w3 · proximity, where
//! centrality is PageRank over the cluster's edges scaled so the most
//! central member has 1 (raw PageRank sums to 1, which would punish members
//! of big clusters), and proximity is 1 / (1 + hops to the nearest seed of
//! the cluster), ignoring edge direction (a caller of a seed is as close as
//! a callee).

use crate::config::RankingWeights;
use crate::graph::CodeGraph;
use petgraph::graph::DiGraph;
use serde::Serialize;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, schemars::JsonSchema)]
pub struct Factors {
    pub text: f64,
    pub centrality: f64,
    pub proximity: f64,
}

impl Factors {
    pub fn score(&self, w: &RankingWeights) -> f64 {
        w.w1 * self.text + w.w2 * self.centrality + w.w3 * self.proximity
    }
}

/// Hops from every node to the nearest seed over the whole graph, ignoring
/// direction (`None`: not connected to any seed).
pub(crate) fn seed_distances(graph: &CodeGraph) -> Vec<Option<u32>> {
    let mut neighbours: Vec<Vec<usize>> = vec![Vec::new(); graph.nodes.len()];
    for e in &graph.edges {
        neighbours[e.src].push(e.dst);
        neighbours[e.dst].push(e.src);
    }
    let mut distance: Vec<Option<u32>> = vec![None; graph.nodes.len()];
    let mut queue = VecDeque::new();
    for (i, node) in graph.nodes.iter().enumerate() {
        if node.is_seed() {
            distance[i] = Some(0);
            queue.push_back(i);
        }
    }
    while let Some(i) = queue.pop_front() {
        let d = distance[i].unwrap_or(0);
        for &j in &neighbours[i] {
            if distance[j].is_none() {
                distance[j] = Some(d + 1);
                queue.push_back(j);
            }
        }
    }
    distance
}

/// Centrality and proximity of each member (`members` are graph node indexes).
pub(crate) fn structure(graph: &CodeGraph, members: &[usize], distance: &[Option<u32>]) -> Vec<(f64, f64)> {
    let local: rustc_hash::FxHashMap<usize, usize> = members.iter().enumerate().map(|(i, &m)| (m, i)).collect();
    let mut digraph: DiGraph<(), ()> = DiGraph::with_capacity(members.len(), 0);
    let handles: Vec<_> = members.iter().map(|_| digraph.add_node(())).collect();
    for e in &graph.edges {
        if let (Some(&a), Some(&b)) = (local.get(&e.src), local.get(&e.dst)) {
            digraph.add_edge(handles[a], handles[b], ());
        }
    }
    let ranks: Vec<f64> = if members.len() == 1 { vec![1.0] } else { petgraph::algo::page_rank(&digraph, 0.85_f64, 50) };
    let top = ranks.iter().cloned().fold(0.0, f64::max);
    (0..members.len())
        .map(|i| {
            let centrality = if top > 0.0 { ranks[i] / top } else { 0.0 };
            let proximity = distance[members[i]].map_or(0.0, |d| 1.0 / (1.0 + d as f64));
            (centrality, proximity)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// score = w1·text + w2·centrality + w3·proximity, with the weights the
    /// caller gives: the default favours text, and moving weight moves the order.
    #[test]
    fn the_score_weighs_the_three_factors() {
        let seed = Factors { text: 0.9, centrality: 0.2, proximity: 1.0 };
        let hub = Factors { text: 0.3, centrality: 1.0, proximity: 0.5 };
        let defaults = RankingWeights::default();
        let score = |f: &Factors, w: &RankingWeights| (f.score(w) * 1e4).round() / 1e4;
        assert_eq!((score(&seed, &defaults), score(&hub, &defaults)), (0.68, 0.595));
        let centrality_only = RankingWeights { w1: 0.0, w2: 1.0, w3: 0.0 };
        assert_eq!((score(&seed, &centrality_only), score(&hub, &centrality_only)), (0.2, 1.0));
        let none = RankingWeights { w1: 0.0, w2: 0.0, w3: 0.0 };
        assert_eq!(score(&seed, &none), 0.0);
    }
}
