//! Symbol analytics (MutaGReP): reference counts, usage across files,
//! degrees, entry points and PageRank, combined into one importance score.
//! Recomputed over the whole graph after an index run that changed it.

use crate::tests::TestClassifier;
use ken_core::{Language, Relation, SymbolKind};
use ken_store::{GraphFile, GraphSymbol, MetricsRow};
use rustc_hash::{FxHashMap, FxHashSet};

/// Relations that say one symbol depends on another (not the syntactic ones).
pub const USE_RELATIONS: &[Relation] =
    &[Relation::Calls, Relation::Instantiates, Relation::Uses, Relation::Imports, Relation::DerivedClassOf, Relation::Overrides];

/// `edges` are the resolved edges as `(src, dst, relation, file_id)`.
pub(crate) fn compute(files: &[GraphFile], syms: &[GraphSymbol], edges: &[(i64, i64, Relation, i64)]) -> Vec<MetricsRow> {
    let index: FxHashMap<i64, usize> = syms.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
    let file_lang: FxHashMap<i64, Language> = files.iter().map(|f| (f.id, f.language)).collect();
    let n = syms.len();
    let mut rows: Vec<MetricsRow> = syms.iter().map(|s| MetricsRow { symbol_id: s.id, ..MetricsRow::default() }).collect();
    let mut in_src: Vec<FxHashSet<usize>> = vec![FxHashSet::default(); n];
    let mut out_dst: Vec<FxHashSet<usize>> = vec![FxHashSet::default(); n];
    let mut caller_set: Vec<FxHashSet<usize>> = vec![FxHashSet::default(); n];
    let mut using_files: Vec<FxHashSet<i64>> = vec![FxHashSet::default(); n];
    for (src, dst, relation, file_id) in edges {
        if !USE_RELATIONS.contains(relation) {
            continue;
        }
        let (Some(&src), Some(&dst)) = (index.get(src), index.get(dst)) else { continue };
        if src == dst {
            continue;
        }
        rows[dst].refs += 1;
        in_src[dst].insert(src);
        out_dst[src].insert(dst);
        using_files[dst].insert(*file_id);
        if matches!(relation, Relation::Calls | Relation::Instantiates) {
            caller_set[dst].insert(src);
        }
    }
    let ranks = pagerank(&out_dst, 0.85, 40);
    let classifier = TestClassifier::new(files, syms);
    let max_refs = rows.iter().map(|r| r.refs).max().unwrap_or(0).max(1) as f64;
    let max_files = using_files.iter().map(FxHashSet::len).max().unwrap_or(0).max(1) as f64;
    let max_rank = ranks.iter().copied().fold(0.0f64, f64::max).max(f64::MIN_POSITIVE);
    for (i, row) in rows.iter_mut().enumerate() {
        let s = &syms[i];
        let kind = s.kind;
        row.in_degree = in_src[i].len() as u32;
        row.out_degree = out_dst[i].len() as u32;
        row.callers = caller_set[i].len() as u32;
        row.files_using = using_files[i].len() as u32;
        row.pagerank = ranks[i];
        row.is_test = classifier.is_test(i);
        row.entry_point = kind.is_callable() && row.callers == 0 && !row.is_test;
        let language = file_lang.get(&s.file_id).copied();
        let mut importance = 0.5 * (ranks[i] / max_rank).sqrt()
            + 0.3 * (f64::from(row.refs)).ln_1p() / max_refs.ln_1p()
            + 0.2 * (row.files_using as f64).ln_1p() / max_files.ln_1p();
        if row.is_test || classifier.in_test_file(s.file_id) {
            importance *= 0.2;
        }
        if !crate::tests::is_public(s, kind, language) {
            importance *= 0.6;
        }
        if kind == SymbolKind::Module {
            importance *= 0.5;
        }
        row.importance = (importance * 1e6).round() / 1e6;
    }
    rows
}

/// PageRank by power iteration over adjacency lists: rank flows from a
/// symbol to what it uses. (petgraph's `page_rank` is quadratic in the node
/// count, too slow for a repository.) Dangling mass is spread evenly.
fn pagerank(out: &[FxHashSet<usize>], damping: f64, iterations: usize) -> Vec<f64> {
    let adjacency: Vec<Vec<(usize, f64)>> = out.iter().map(|s| s.iter().map(|&t| (t, 1.0)).collect()).collect();
    personalized_pagerank(&adjacency, None, damping, iterations)
}

/// PageRank over weighted adjacency lists (`out[v]` holds `(target,
/// weight)`), whose random jumps, and the mass of nodes without edges, land
/// on `teleport` (weights, normalised here) or, without one, on every node.
/// Personalised to a few nodes, it ranks what is near them (aider's
/// repository map).
pub fn personalized_pagerank(out: &[Vec<(usize, f64)>], teleport: Option<&[f64]>, damping: f64, iterations: usize) -> Vec<f64> {
    let n = out.len();
    if n == 0 {
        return Vec::new();
    }
    let jump: Vec<f64> = match teleport {
        Some(t) if t.len() == n && t.iter().sum::<f64>() > 0.0 => {
            let total: f64 = t.iter().sum();
            t.iter().map(|w| w / total).collect()
        }
        _ => vec![1.0 / n as f64; n],
    };
    let totals: Vec<f64> = out.iter().map(|edges| edges.iter().map(|e| e.1).sum()).collect();
    let mut rank = jump.clone();
    let mut next = vec![0.0; n];
    for _ in 0..iterations {
        let dangling: f64 = totals.iter().zip(&rank).filter(|(t, _)| **t <= 0.0).map(|(_, r)| r).sum();
        let spread = (1.0 - damping) + damping * dangling;
        next.iter_mut().zip(&jump).for_each(|(x, j)| *x = spread * j);
        for (v, edges) in out.iter().enumerate() {
            if totals[v] <= 0.0 {
                continue;
            }
            let share = damping * rank[v] / totals[v];
            for &(t, w) in edges {
                next[t] += share * w;
            }
        }
        let delta: f64 = next.iter().zip(&rank).map(|(a, b)| (a - b).abs()).sum();
        std::mem::swap(&mut rank, &mut next);
        if delta < 1e-9 {
            break;
        }
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::personalized_pagerank;

    #[test]
    fn a_personalised_rank_stays_near_its_focus() {
        // 0 → 1 → 2, and 3 → 4 apart.
        let out = vec![vec![(1, 1.0)], vec![(2, 1.0)], vec![], vec![(4, 1.0)], vec![]];
        let uniform = personalized_pagerank(&out, None, 0.85, 100);
        assert!((uniform.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert!(uniform[2] > uniform[1] && uniform[4] > uniform[3]);
        let focused = personalized_pagerank(&out, Some(&[1.0, 0.0, 0.0, 0.0, 0.0]), 0.85, 100);
        assert!((focused.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert_eq!((focused[3], focused[4]), (0.0, 0.0), "{focused:?}");
        assert!(focused[0] > 0.0 && focused[1] > 0.0 && focused[2] > 0.0, "{focused:?}");
    }
}
