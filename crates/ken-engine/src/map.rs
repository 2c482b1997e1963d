//! `Engine::map`: a repository map (aider's idea). The definitions that
//! matter most, as one-line signatures nested under their classes, within a
//! token budget. Without a focus they are ranked by the stored importance
//! (PageRank, references, use across files); with one, by PageRank
//! personalised to the focus's symbols, so the map shows what they use and
//! what uses them.

use crate::api::{MapFile, MapRequest, MapSymbol, RepoMap, map_file_text, map_line_text};
use crate::{Engine, Error};
use ken_core::SymbolKind;
use ken_graph::{USE_RELATIONS, personalized_pagerank};
use ken_store::{GraphSymbol, Store};
use rustc_hash::{FxHashMap, FxHashSet};

const DEFAULT_BUDGET: usize = 2048;
const MAX_SIGNATURE_CHARS: usize = 160;
/// An edge also carries rank back, from the used to its user, at this
/// weight: a map centred on a function shows its callers too, not only what
/// it calls.
const REVERSE_WEIGHT: f64 = 0.5;
/// Candidates that did not fit, in a row, before the map stops looking.
const MAX_MISSES: usize = 200;

impl Engine {
    pub fn map(&self, request: &MapRequest) -> Result<RepoMap, Error> {
        request.validate()?;
        let store = self.store()?;
        let budget = request.budget.unwrap_or(DEFAULT_BUDGET);
        let tokenizer = request.tokenizer.unwrap_or_default();
        let mut notes = Vec::new();
        let paths: FxHashMap<i64, String> = store.graph_files()?.into_iter().map(|f| (f.id, f.path)).collect();
        let syms = store.graph_symbols()?;
        let index: FxHashMap<i64, usize> = syms.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
        let metrics: FxHashMap<i64, ken_store::MetricsRow> = store.all_metrics()?.into_iter().map(|m| (m.symbol_id, m)).collect();
        if metrics.is_empty() && !syms.is_empty() {
            notes.push("the graph is not linked yet (run `ken index`): definitions are in file order".into());
        }
        let is_test = |i: usize| {
            let mut at = Some(i);
            while let Some(j) = at {
                if metrics.get(&syms[j].id).is_some_and(|m| m.is_test) {
                    return true;
                }
                at = syms[j].parent_id.and_then(|p| index.get(&p).copied());
            }
            false
        };

        let (teleport, focus) = resolve_focus(&request.focus, &syms, &paths, &mut notes)?;
        let score: Vec<f64> = if request.focus.is_empty() {
            syms.iter().map(|s| metrics.get(&s.id).map_or(0.0, |m| m.importance)).collect()
        } else {
            let mut out: Vec<Vec<(usize, f64)>> = vec![Vec::new(); syms.len()];
            for (src, dst, relation, _) in store.resolved_edges()? {
                let (Some(&a), Some(&b)) = (index.get(&src), index.get(&dst)) else { continue };
                if a != b && USE_RELATIONS.contains(&relation) {
                    out[a].push((b, 1.0));
                    out[b].push((a, REVERSE_WEIGHT));
                }
            }
            personalized_pagerank(&out, Some(&teleport), 0.85, 40)
        };

        let mut order: Vec<usize> =
            (0..syms.len()).filter(|&i| shown_kind(&syms[i], &index, &syms) && (request.tests || !is_test(i))).collect();
        let ranked = order.len();
        // What a focus does not reach keeps the order of importance.
        let importance = |i: usize| metrics.get(&syms[i].id).map_or(0.0, |m| m.importance);
        order.sort_by(|&a, &b| {
            score[b]
                .total_cmp(&score[a])
                .then_with(|| importance(b).total_cmp(&importance(a)))
                .then_with(|| (&paths[&syms[a].file_id], syms[a].start_line).cmp(&(&paths[&syms[b].file_id], syms[b].start_line)))
        });

        // Greedy by rank: a definition comes with the containers it sits in
        // and, for a new file, the file's line.
        let mut lines: FxHashMap<usize, MapSymbol> = FxHashMap::default();
        let mut files_seen: FxHashSet<i64> = FxHashSet::default();
        let mut chosen: Vec<usize> = Vec::new();
        let mut used = 0usize;
        let mut misses = 0;
        for &i in &order {
            if lines.contains_key(&i) {
                continue;
            }
            let chain = containers(i, &index, &syms);
            let mut new_lines = Vec::new();
            for (depth, &j) in chain.iter().rev().enumerate() {
                if !lines.contains_key(&j) {
                    new_lines.push((j, depth as u32));
                }
            }
            let mut cost = 0;
            let mut rendered = Vec::new();
            for &(j, depth) in &new_lines {
                let Some(line) = map_symbol(&store, &syms[j], depth, if j == i { score[i] } else { 0.0 })? else { continue };
                cost += tokenizer.count(&map_line_text(&line));
                rendered.push((j, line));
            }
            let file = syms[i].file_id;
            if !files_seen.contains(&file) {
                cost += tokenizer.count(&format!("{}:\n", paths[&file]));
            }
            if used + cost > budget {
                misses += 1;
                if misses >= MAX_MISSES {
                    break;
                }
                continue;
            }
            misses = 0;
            used += cost;
            files_seen.insert(file);
            chosen.push(i);
            lines.extend(rendered);
        }

        // The estimate summed lines; the text is counted whole, and the
        // weakest definitions go until it fits.
        loop {
            let files = assemble(&lines, &syms, &paths, &score);
            let text: String = files.iter().map(map_file_text).collect();
            let tokens = tokenizer.count(&text);
            if tokens <= budget || chosen.is_empty() {
                let shown = lines.len();
                if shown == 0 && ranked > 0 {
                    notes.push(format!("no definition fits in {budget} tokens"));
                }
                return Ok(RepoMap { budget, tokenizer, tokens, focus, files, shown, ranked, notes });
            }
            let weakest = chosen.pop().expect("not empty");
            lines.remove(&weakest);
            // A container stays while a member still needs it.
            let needed: FxHashSet<usize> = chosen.iter().flat_map(|&c| containers(c, &index, &syms)).collect();
            lines.retain(|j, _| needed.contains(j));
        }
    }
}

/// The focus's symbols as PageRank's jump weights (each item an equal
/// share), and what each item was taken for. An item that names nothing is
/// left out with a note (an agent may pass every word it saw), unless no
/// item names anything.
fn resolve_focus(
    focus: &[String],
    syms: &[GraphSymbol],
    paths: &FxHashMap<i64, String>,
    notes: &mut Vec<String>,
) -> Result<(Vec<f64>, Vec<String>), Error> {
    let mut teleport = vec![0.0; syms.len()];
    let mut described = Vec::new();
    for item in focus {
        let wanted = item.trim().trim_start_matches("./").trim_end_matches('/');
        let dir = format!("{wanted}/");
        let in_path = |p: &str| p == wanted || p.starts_with(&dir) || wanted.is_empty() || wanted == ".";
        let mut hits: Vec<usize> = (0..syms.len()).filter(|&i| in_path(&paths[&syms[i].file_id])).collect();
        let mut what = "path";
        if hits.is_empty() {
            if paths.values().any(|p| in_path(p)) {
                notes.push(format!("focus `{item}` holds no definitions"));
                continue;
            }
            hits = (0..syms.len()).filter(|&i| names(&syms[i], wanted)).collect();
            what = "symbol";
        }
        if hits.is_empty() {
            notes.push(format!("focus `{item}` is neither an indexed path nor a symbol's name"));
            continue;
        }
        let share = 1.0 / hits.len() as f64;
        for i in &hits {
            teleport[*i] += share;
        }
        described.push(format!("{what} {item} ({} definitions)", hits.len()));
    }
    if described.is_empty() && !focus.is_empty() {
        let items: Vec<String> = focus.iter().map(|f| format!("`{f}`")).collect();
        return Err(Error::invalid("focus", format!("names no indexed path with definitions and no symbol: {}", items.join(", "))));
    }
    Ok((teleport, described))
}

/// `wanted` is the symbol's name, its qualified name, or a tail of it
/// (`Session.request`, `runtime::Handle`).
fn names(s: &GraphSymbol, wanted: &str) -> bool {
    s.name == wanted
        || s.qualified_name == wanted
        || s.qualified_name.strip_suffix(wanted).is_some_and(|head| head.ends_with('.') || head.ends_with("::"))
}

/// Definitions a map lists: types, callables, and constants at the top of a file.
fn shown_kind(s: &GraphSymbol, index: &FxHashMap<i64, usize>, syms: &[GraphSymbol]) -> bool {
    match s.kind {
        k if k.is_type() || k.is_callable() => true,
        SymbolKind::Constant => s.parent_id.and_then(|p| index.get(&p)).is_none_or(|&p| syms[p].kind == SymbolKind::Module),
        _ => false,
    }
}

/// `i` and the types and callables it sits in, innermost first.
fn containers(i: usize, index: &FxHashMap<i64, usize>, syms: &[GraphSymbol]) -> Vec<usize> {
    let mut chain = vec![i];
    let mut at = syms[i].parent_id.and_then(|p| index.get(&p).copied());
    while let Some(j) = at {
        if syms[j].kind.is_type() || syms[j].kind.is_callable() {
            chain.push(j);
        }
        at = syms[j].parent_id.and_then(|p| index.get(&p).copied());
    }
    chain
}

fn map_symbol(store: &Store, s: &GraphSymbol, depth: u32, score: f64) -> Result<Option<MapSymbol>, Error> {
    let Some(row) = store.symbol_by_id(s.id)? else { return Ok(None) };
    let mut signature = row.signature.split_whitespace().collect::<Vec<_>>().join(" ");
    if signature.is_empty() {
        signature = format!("{} {}", s.kind, s.name);
    }
    if let Some((cut, _)) = signature.char_indices().nth(MAX_SIGNATURE_CHARS) {
        signature.truncate(cut);
        signature.push('…');
    }
    Ok(Some(MapSymbol {
        line: s.name_line.max(s.start_line),
        end_line: s.end_line,
        kind: s.kind.to_string(),
        qualified_name: s.qualified_name.clone(),
        signature,
        depth,
        score: (score * 1e6).round() / 1e6,
    }))
}

/// Files by their best definition's score; definitions by line.
fn assemble(lines: &FxHashMap<usize, MapSymbol>, syms: &[GraphSymbol], paths: &FxHashMap<i64, String>, score: &[f64]) -> Vec<MapFile> {
    let mut by_file: FxHashMap<i64, Vec<usize>> = FxHashMap::default();
    for &i in lines.keys() {
        by_file.entry(syms[i].file_id).or_default().push(i);
    }
    let mut files: Vec<(f64, MapFile)> = by_file
        .into_iter()
        .map(|(file, mut members)| {
            members.sort_by_key(|&i| (syms[i].start_line, std::cmp::Reverse(syms[i].end_line)));
            let best = members.iter().map(|&i| score[i]).fold(0.0, f64::max);
            (best, MapFile { path: paths[&file].clone(), symbols: members.iter().map(|i| lines[i].clone()).collect() })
        })
        .collect();
    files.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.path.cmp(&b.1.path)));
    files.into_iter().map(|(_, f)| f).collect()
}
