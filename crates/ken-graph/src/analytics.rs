//! Symbol analytics (MutaGReP): reference counts, usage across files,
//! degrees, entry points and PageRank, combined into one importance score.
//! Recomputed over the whole graph after an index run that changed it.

use crate::tests::TestClassifier;
use ken_core::{Language, Relation, SymbolKind};
use ken_store::{GraphFile, GraphSymbol, MetricsRow};
use rustc_hash::{FxHashMap, FxHashSet};

/// Relations that say one symbol depends on another (not the syntactic ones).
pub(crate) const USE_RELATIONS: &[Relation] =
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
    let n = out.len();
    if n == 0 {
        return Vec::new();
    }
    let adjacency: Vec<Vec<usize>> = out.iter().map(|s| s.iter().copied().collect()).collect();
    let mut rank = vec![1.0 / n as f64; n];
    let mut next = vec![0.0; n];
    for _ in 0..iterations {
        let dangling: f64 = adjacency.iter().zip(&rank).filter(|(a, _)| a.is_empty()).map(|(_, r)| r).sum();
        let base = (1.0 - damping) / n as f64 + damping * dangling / n as f64;
        next.iter_mut().for_each(|x| *x = base);
        for (v, targets) in adjacency.iter().enumerate() {
            if targets.is_empty() {
                continue;
            }
            let share = damping * rank[v] / targets.len() as f64;
            for &t in targets {
                next[t] += share;
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
