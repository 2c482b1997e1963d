//! `Engine::eval`: retrieval quality measured on the user's own repository,
//! with query sets the repository itself supplies (as the harness does on
//! pinned corpora, `bench/harness/querysets.py`):
//! - identifier: a definition's name (its container's too where the name is
//!   shared) should find that definition;
//! - docstring: a definition's docstring, first sentence, should find the
//!   definition, searched in a copy of the index where the sampled
//!   docstrings are blanked (else BM25 finds the words themselves). The copy
//!   is indexed with this index's embeddings reused for every text that did
//!   not change, so only the blanked definitions are embedded again;
//! - callers and subclasses (`relations`), with the language servers as
//!   the oracle, when the engine runs them (`lsp`).
//!
//! Each search set runs through every mode, the hybrid mode without each of
//! its lanes, and the ranking configurations given to compare; the relation
//! sets through the graph and a name match. Each reports MRR@10, Recall@10
//! and the latency of each.

mod relations;

use crate::api::{ClusterTitles, EvalReport, EvalRequest, EvalRow, EvalSet, HybridSearchRequest, SearchRequest};
use crate::{Engine, EngineOptions, Error, IndexRequest};
use ken_search::{Hit, Mode, RankingOverrides};
use ken_store::{Store, SymbolRow};
use relations::Relation;
use std::time::Instant;

/// A query and the definition it should find.
struct Case {
    query: String,
    gold: SymbolRow,
}

/// A system under evaluation: a mode and a ranking laid over the index's,
/// or the pipeline.
struct System {
    name: String,
    mode: Mode,
    ranking: Option<RankingOverrides>,
    pipeline: bool,
}

/// One query's answer, best first: where each result is, and what.
type Ranked = Vec<(String, u32, u32, String)>;

impl Engine {
    pub fn eval(&self, request: &EvalRequest) -> Result<EvalReport, Error> {
        request.validate()?;
        if request.lsp && self.lsp.is_none() {
            return Err(Error::invalid("lsp", "this engine runs without language servers (start `ken serve` with --lsp)"));
        }
        let started = Instant::now();
        let compare = request.compare.iter().map(|spec| Ok((spec.clone(), parse_ranking(spec)?))).collect::<Result<Vec<_>, Error>>()?;
        let per_set = request.queries.unwrap_or(50);
        let store = self.store()?;
        let definitions = definitions(&store)?;
        let embedded = store.embed_progress()?.embedded() > 0;
        let mut notes = Vec::new();
        if !embedded {
            notes.push("no embeddings in this index: the semantic lane is off (run `ken index` to embed)".to_string());
        }
        let systems = systems(embedded, &compare);
        let mut sets = Vec::new();

        let identifiers = identifier_cases(&definitions, per_set);
        sets.push(self.run_set("identifier", &identifiers, &systems)?);

        let docstrings = docstring_cases(&definitions, per_set);
        if docstrings.is_empty() {
            notes.push("no definition has a docstring of four words or more: no docstring set".to_string());
        } else {
            let scratch = self.blanked_copy(&store, &docstrings, embedded)?;
            sets.push(scratch.engine.run_set("docstring", &docstrings, &systems)?);
        }
        if request.lsp {
            if let Some(runtime) = &self.runtime {
                notes.extend(runtime.block_on(self.warm_lsp()).into_iter().map(|p| format!("language server: {p}")));
            }
            for relation in [Relation::Callers, Relation::Subclasses] {
                let cases = self.relation_cases(&store, &definitions, relation, per_set, &mut notes)?;
                if !cases.is_empty() {
                    sets.push(self.run_relation_set(&store, relation, &cases)?);
                }
            }
        } else {
            notes.push("callers and subclasses are scored with `--lsp`: the language servers on PATH are the oracle".to_string());
        }
        Ok(EvalReport { sets, notes, seconds: started.elapsed().as_secs_f64() })
    }

    fn run_set(&self, name: &str, cases: &[Case], systems: &[System]) -> Result<EvalSet, Error> {
        // Warm, as a server is: the model and shard loaded by a first query,
        // and the optimised session a one-shot search skips made.
        if let Some(case) = cases.first() {
            self.ranked(&systems[0], &case.query)?;
        }
        let embedder = self.embedder.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some(embedder) = embedder {
            embedder.ready_for_queries().map_err(|e| Error::internal(format!("readying the model: {e}")))?;
        }
        let mut rows = Vec::new();
        for system in systems {
            let (mut reciprocal, mut found, mut times) = (0.0, 0usize, Vec::new());
            for case in cases {
                let t = Instant::now();
                let ranked = self.ranked(system, &case.query)?;
                times.push(t.elapsed().as_secs_f64() * 1000.0);
                if let Some(rank) = ranked.iter().take(10).position(|(path, start, end, name)| finds(path, *start, *end, name, &case.gold))
                {
                    reciprocal += 1.0 / (rank + 1) as f64;
                    found += 1;
                }
            }
            times.sort_by(f64::total_cmp);
            let n = cases.len().max(1) as f64;
            rows.push(EvalRow {
                system: system.name.clone(),
                mrr_at_10: reciprocal / n,
                recall_at_10: found as f64 / n,
                precision: None,
                p50_ms: percentile(&times, 0.5),
                p95_ms: percentile(&times, 0.95),
            });
        }
        Ok(EvalSet { name: name.to_string(), queries: cases.len(), rows, misses: Vec::new() })
    }

    fn ranked(&self, system: &System, query: &str) -> Result<Ranked, Error> {
        if system.pipeline {
            // As the harness reads it: every cluster's members by score, once each.
            let request = HybridSearchRequest {
                query: query.to_string(),
                top_k: Some(10),
                config_overrides: None,
                explain: false,
                languages: Vec::new(),
                kinds: Vec::new(),
                path: None,
                titles: Some(ClusterTitles::Structural),
                query_expansion: None,
            };
            let response = self.pipeline_search(&request, &self.config)?;
            let mut members: Vec<_> = response.results.iter().flat_map(|c| &c.symbols).collect();
            members.sort_by(|a, b| b.score.total_cmp(&a.score));
            let mut seen = rustc_hash::FxHashSet::default();
            return Ok(members
                .into_iter()
                .filter(|s| seen.insert((s.file_path.clone(), s.range.start.line)))
                .map(|s| (s.file_path.clone(), s.range.start.line, s.range.end.line, s.qualified_name.clone()))
                .collect());
        }
        let request = SearchRequest {
            query: query.to_string(),
            k: Some(10),
            mode: Some(system.mode),
            ranking: system.ranking.clone(),
            ..Default::default()
        };
        let hits: Vec<Hit> = self.search(&request)?.hits;
        Ok(hits.into_iter().map(|h| (h.path, h.start_line, h.end_line, h.qualified_name)).collect())
    }

    /// The indexed files in a scratch directory, the cases' docstrings
    /// blanked, indexed there with this index's embeddings reused.
    fn blanked_copy(&self, store: &Store, cases: &[Case], embedded: bool) -> Result<Scratch, Error> {
        let dir =
            tempfile::Builder::new().prefix("ken-eval-").tempdir().map_err(|e| Error::internal(format!("a scratch directory: {e}")))?;
        let root = dir.path().join("repo");
        let mut by_file: rustc_hash::FxHashMap<&str, Vec<&SymbolRow>> = rustc_hash::FxHashMap::default();
        for case in cases {
            by_file.entry(case.gold.path.as_str()).or_default().push(&case.gold);
        }
        for (_, path) in store.file_paths()? {
            let Some(text) = store.file_text(&path)? else { continue };
            let text = match by_file.get(path.as_str()) {
                Some(symbols) => blank_docstrings(&text, symbols),
                None => text,
            };
            let target = root.join(&path);
            let written = target.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| std::fs::write(&target, text));
            written.map_err(|e| Error::internal(format!("writing {}: {e}", target.display())))?;
        }
        let index_dir = dir.path().join("index");
        let mut options = EngineOptions::new(index_dir.clone());
        options.root = Some(root.clone());
        options.model = match ken_search::indexed_model(store)? {
            Some((_, spec)) => Some((ken_embed::ModelSpec::parse(&spec).map_err(|e| Error::internal(e.to_string()))?, spec)),
            None => None,
        };
        let engine = Engine::open(options)?;
        let request = IndexRequest {
            options: ken_index::IndexOptions::new(root, index_dir),
            embed: embedded,
            seed: Some(self.index_dir.clone()),
            ..Default::default()
        };
        engine.index(&request, &|_| {})?;
        Ok(Scratch { engine, _dir: dir })
    }
}

/// An engine over a scratch copy; the directory goes with it.
struct Scratch {
    engine: Engine,
    _dir: tempfile::TempDir,
}

/// `key = value, …` (TOML, as `[search.ranking]` in `ken.toml` takes them).
fn parse_ranking(spec: &str) -> Result<RankingOverrides, Error> {
    #[derive(serde::Deserialize)]
    struct Wrapper {
        ranking: RankingOverrides,
    }
    let wrapped: Wrapper = toml::from_str(&format!("ranking = {{ {spec} }}"))
        .map_err(|e| Error::invalid("compare", format!("`{spec}` is not `key = value, …` over the ranking settings: {}", e.message())))?;
    let ranking = wrapped.ranking.apply(&ken_search::Ranking::default());
    if let Some((field, problem)) = ranking.invalid() {
        return Err(Error::invalid("compare", format!("`{spec}`: {field} {problem}")));
    }
    Ok(wrapped.ranking)
}

fn systems(embedded: bool, compare: &[(String, RankingOverrides)]) -> Vec<System> {
    let ranking = ken_search::Ranking::default();
    let without = |lane: usize| {
        let (mut code, mut prose) = (ranking.code_weights, ranking.prose_weights);
        code[lane] = 0.0;
        prose[lane] = 0.0;
        Some(RankingOverrides { code_weights: Some(code), prose_weights: Some(prose), ..Default::default() })
    };
    let system = |name: &str, mode: Mode, ranking: Option<RankingOverrides>| System { name: name.into(), mode, ranking, pipeline: false };
    let mut out = vec![system("hybrid", Mode::Hybrid, None)];
    if embedded {
        out.push(system("semantic", Mode::Semantic, None));
    }
    out.push(system("lexical", Mode::Lexical, None));
    out.push(system("exact", Mode::Exact, None));
    out.push(System { pipeline: true, ..system("pipeline", Mode::Hybrid, None) });
    if embedded {
        out.push(system("hybrid − dense", Mode::Hybrid, without(0)));
    }
    out.push(system("hybrid − BM25", Mode::Hybrid, without(1)));
    out.push(system("hybrid − names", Mode::Hybrid, without(2)));
    for (spec, overrides) in compare {
        out.push(system(&format!("hybrid, {spec}"), Mode::Hybrid, Some(overrides.clone())));
    }
    out
}

/// Every function, method and type, in file order.
fn definitions(store: &Store) -> Result<Vec<SymbolRow>, Error> {
    let mut out = Vec::new();
    for (_, path) in store.file_paths()? {
        if let Some(symbols) = store.outline(&path)? {
            out.extend(symbols.into_iter().filter(|s| s.kind.is_callable() || s.kind.is_type()));
        }
    }
    Ok(out)
}

/// Up to `n` of `items`, the same ones on every run: ordered by a hash of
/// their key, not by where they sit.
fn sample<T>(mut items: Vec<T>, n: usize, key: impl Fn(&T) -> String) -> Vec<T> {
    items.sort_by_cached_key(|item| xxhash_rust::xxh3::xxh3_64(key(item).as_bytes()));
    items.truncate(n);
    items
}

fn identifier_cases(definitions: &[SymbolRow], n: usize) -> Vec<Case> {
    let mut names: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::default();
    for d in definitions {
        *names.entry(d.name.as_str()).or_default() += 1;
    }
    let candidates: Vec<&SymbolRow> = definitions.iter().filter(|d| d.name.chars().count() >= 3 && !d.name.starts_with("__")).collect();
    sample(candidates, n, |d| format!("{}:{}", d.path, d.qualified_name))
        .into_iter()
        .map(|d| {
            // A shared name is asked with its container's: `Session.send`.
            let query = match (names[d.name.as_str()], d.parent.as_deref()) {
                (1, _) | (_, None) => d.name.clone(),
                (_, Some(parent)) => {
                    let owner = parent.rsplit(['.', ':', '/']).find(|s| !s.is_empty()).unwrap_or(parent);
                    format!("{owner}.{}", d.name)
                }
            };
            Case { query, gold: d.clone() }
        })
        .collect()
}

fn docstring_cases(definitions: &[SymbolRow], n: usize) -> Vec<Case> {
    let candidates: Vec<(&SymbolRow, String)> = definitions
        .iter()
        .filter_map(|d| {
            let sentence = first_sentence(d.docstring.as_deref()?);
            let words = sentence.split_whitespace().count();
            let names_itself = sentence.to_lowercase().contains(&d.name.to_lowercase());
            (words >= 4 && !names_itself).then_some((d, sentence))
        })
        .collect();
    sample(candidates, n, |(d, _)| format!("{}:{}", d.path, d.qualified_name))
        .into_iter()
        .map(|(d, query)| Case { query, gold: d.clone() })
        .collect()
}

/// The docstring's first sentence (or paragraph), at most 200 characters.
fn first_sentence(doc: &str) -> String {
    let paragraph = doc.trim().split("\n\n").next().unwrap_or("");
    let joined = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
    let end = joined.find(". ").map_or(joined.len(), |i| i + 1);
    joined[..end].chars().take(200).collect()
}

/// Whether a result is the definition, or a piece of it.
fn finds(path: &str, start: u32, end: u32, qualified_name: &str, gold: &SymbolRow) -> bool {
    path == gold.path && (qualified_name == gold.qualified_name || (start >= gold.start_line && end <= gold.end_line))
}

/// `text` with the docstrings of `symbols` emptied where they are written:
/// each line near a definition whose words (comment and quote marks aside)
/// are in its docstring loses those words, so lines, quotes and comment
/// markers stay and the file parses as before.
fn blank_docstrings(text: &str, symbols: &[&SymbolRow]) -> String {
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    for symbol in symbols {
        let Some(doc) = symbol.docstring.as_deref() else { continue };
        // Doc comments sit above a definition; docstrings inside it.
        let from = symbol.start_line.saturating_sub(40).max(1) as usize - 1;
        let to = (symbol.end_line as usize).min(lines.len());
        for line in lines.iter_mut().take(to).skip(from) {
            let words = doc_words(line);
            if words.chars().count() >= 3 && doc.contains(words) {
                *line = line.replacen(words, "", 1).trim_end().to_string();
            }
        }
    }
    lines.join("\n")
}

/// A line's words, without comment or string markers around them.
fn doc_words(line: &str) -> &str {
    const OPENERS: [&str; 10] = ["///", "//!", "/**", "//", "#", "*", "\"\"\"", "'''", "--", "\""];
    const CLOSERS: [&str; 4] = ["\"\"\"", "'''", "*/", "\""];
    let mut words = line.trim();
    for opener in OPENERS {
        if let Some(rest) = words.strip_prefix(opener) {
            words = rest.trim_start();
            break;
        }
    }
    for closer in CLOSERS {
        if let Some(rest) = words.strip_suffix(closer) {
            words = rest.trim_end();
            break;
        }
    }
    words
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docstrings_are_blanked_where_they_are_written() {
        let text = "def f(x):\n    \"\"\"Add one to x.\n\n    Twice if asked.\n    \"\"\"\n    return x + 1\n\n/// Grows the pool.\nfn grow() {}\n";
        let row = |name: &str, start: u32, end: u32, doc: &str| SymbolRow {
            id: 0,
            parent_id: None,
            kind: ken_core::SymbolKind::Function,
            name: name.into(),
            qualified_name: name.into(),
            path: "a.py".into(),
            language: ken_core::Language::Python,
            start_line: start,
            start_col: 0,
            end_line: end,
            end_col: 0,
            name_line: start,
            signature: String::new(),
            docstring: Some(doc.into()),
            parent: None,
        };
        let f = row("f", 1, 6, "Add one to x.\n\nTwice if asked.");
        let grow = row("grow", 9, 9, "Grows the pool.");
        expect_test::expect![[r#"
            def f(x):
                """


                """
                return x + 1

            ///
            fn grow() {}
        "#]]
        .assert_eq(&blank_docstrings(text, &[&f, &grow]));
    }

    #[test]
    fn a_docstring_asks_its_first_sentence() {
        assert_eq!(first_sentence("Send a request. Retries on failure.\n\nMore."), "Send a request.");
        assert_eq!(first_sentence("Parse the\n   accept header"), "Parse the accept header");
    }

    #[test]
    fn compare_takes_the_ranking_settings_as_toml() {
        assert_eq!(parse_ranking("rrf_k = 30, code_weights = [1, 0, 2]").unwrap().code_weights, Some([1.0, 0.0, 2.0]));
        assert_eq!(parse_ranking("rrf_k = -1").unwrap_err().field.as_deref(), Some("compare"));
        assert!(parse_ranking("rrf = 30").unwrap_err().message.contains("rrf"));
    }
}
