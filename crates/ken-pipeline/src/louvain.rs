//! Louvain community detection (Blondel et al., 2008) with a resolution
//! parameter (Reichardt & Bornholdt): higher resolution, smaller communities.
//!
//! Graphs here are small (the pipeline caps them at a few hundred nodes), so
//! this favours clarity and determinism over speed: nodes are visited in
//! index order and ties keep a node where it is, so the same graph always
//! gives the same communities.

/// Community of each node, numbered 0.. in order of first appearance.
/// `edges` are undirected `(a, b, weight)`; self-loops and repeats are fine.
pub fn communities(n: usize, edges: &[(usize, usize, f64)], resolution: f64) -> Vec<usize> {
    // Level graph: adjacency without self-loops, plus each node's degree
    // (self-loops included), which is all the move gain needs.
    let mut adjacency: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    let mut degree = vec![0.0; n];
    for &(a, b, w) in edges {
        if a >= n || b >= n || w.is_nan() || w <= 0.0 {
            continue;
        }
        degree[a] += w;
        degree[b] += w;
        if a != b {
            adjacency[a].push((b, w));
            adjacency[b].push((a, w));
        }
    }
    let total: f64 = degree.iter().sum(); // 2m
    // Which level-node each original node is in.
    let mut membership: Vec<usize> = (0..n).collect();
    if total == 0.0 {
        return membership;
    }
    loop {
        let level = move_nodes(&adjacency, &degree, total, resolution);
        let count = level.iter().max().map_or(0, |m| m + 1);
        if count == adjacency.len() {
            break; // no node moved: done
        }
        for m in membership.iter_mut() {
            *m = level[*m];
        }
        // Aggregate: one node per community, summed weights between them.
        let mut next_degree = vec![0.0; count];
        for (node, &c) in level.iter().enumerate() {
            next_degree[c] += degree[node];
        }
        let mut weights: rustc_hash::FxHashMap<(usize, usize), f64> = Default::default();
        for (node, neighbours) in adjacency.iter().enumerate() {
            for &(other, w) in neighbours {
                let (a, b) = (level[node], level[other]);
                if a < b {
                    *weights.entry((a, b)).or_default() += w;
                }
            }
        }
        let mut next: Vec<Vec<(usize, f64)>> = vec![Vec::new(); count];
        let mut pairs: Vec<_> = weights.into_iter().collect();
        pairs.sort_by_key(|&(k, _)| k);
        for ((a, b), w) in pairs {
            next[a].push((b, w));
            next[b].push((a, w));
        }
        adjacency = next;
        degree = next_degree;
    }
    renumber(&membership)
}

/// Phase one: move single nodes to the neighbouring community with the best
/// modularity gain until nothing moves. Returns communities numbered 0..
fn move_nodes(adjacency: &[Vec<(usize, f64)>], degree: &[f64], total: f64, resolution: f64) -> Vec<usize> {
    let n = adjacency.len();
    let mut community: Vec<usize> = (0..n).collect();
    let mut community_degree: Vec<f64> = degree.to_vec();
    let mut links: rustc_hash::FxHashMap<usize, f64> = Default::default();
    for _pass in 0..100 {
        let mut moved = false;
        for node in 0..n {
            let own = community[node];
            let k = degree[node];
            links.clear();
            for &(other, w) in &adjacency[node] {
                *links.entry(community[other]).or_default() += w;
            }
            community_degree[own] -= k;
            // Gain of joining c (up to a constant factor): links to c minus
            // what a random graph with the same degrees would put there.
            let gain = |c: usize, link: f64| link - resolution * community_degree[c] * k / total;
            let mut best = own;
            let mut best_gain = gain(own, links.get(&own).copied().unwrap_or(0.0));
            let mut candidates: Vec<(usize, f64)> = links.iter().map(|(&c, &w)| (c, w)).collect();
            candidates.sort_by_key(|&(c, _)| c);
            for (c, link) in candidates {
                let g = gain(c, link);
                if g > best_gain + 1e-12 {
                    best = c;
                    best_gain = g;
                }
            }
            community_degree[best] += k;
            if best != own {
                community[node] = best;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    renumber(&community)
}

fn renumber(labels: &[usize]) -> Vec<usize> {
    let mut map: rustc_hash::FxHashMap<usize, usize> = Default::default();
    labels
        .iter()
        .map(|l| {
            let next = map.len();
            *map.entry(*l).or_insert(next)
        })
        .collect()
}

/// Newman's modularity of a partition, with resolution (for tests and tuning).
pub fn modularity(n: usize, edges: &[(usize, usize, f64)], membership: &[usize], resolution: f64) -> f64 {
    let mut degree = vec![0.0; n];
    let mut inside = 0.0;
    for &(a, b, w) in edges {
        degree[a] += w;
        degree[b] += w;
        if membership[a] == membership[b] {
            inside += if a == b { w } else { 2.0 * w };
        }
    }
    let total: f64 = degree.iter().sum();
    if total == 0.0 {
        return 0.0;
    }
    let count = membership.iter().max().map_or(0, |m| m + 1);
    let mut community_degree = vec![0.0; count];
    for (node, &c) in membership.iter().enumerate() {
        community_degree[c] += degree[node];
    }
    inside / total - resolution * community_degree.iter().map(|d| (d / total).powi(2)).sum::<f64>()
}
