//! Fixture repositories for the graph tests: several files in one string
//! (`//- path` headers), indexed with the real indexer into a real SQLite
//! file; edges and query answers rendered for `expect!` snapshots.
#![allow(dead_code)] // each test file uses some of the helpers

use expect_test::Expect;
use ken_graph::{Graph, SymbolRef};
use ken_store::Store;
use std::fmt::Write;

pub struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    pub fn new(text: &str) -> Fixture {
        let fixture = Fixture { dir: tempfile::tempdir().unwrap() };
        fixture.write(text);
        fixture.index();
        fixture
    }

    /// Writes the files of a fixture; an empty body deletes the file.
    pub fn write(&self, text: &str) {
        ken_test_support::write_files(&self.dir.path().join("repo"), &ken_test_support::files(text));
    }

    pub fn index(&self) -> ken_index::IndexSummary {
        let opts = ken_index::IndexOptions::new(self.dir.path().join("repo"), self.index_dir());
        ken_index::index(&opts, &|_| {}).expect("index runs")
    }

    pub fn index_dir(&self) -> std::path::PathBuf {
        self.dir.path().join("index")
    }

    pub fn store(&self) -> Store {
        Store::open_read_only(&self.index_dir()).unwrap()
    }
}

/// Every resolved edge but the syntactic ones as `src -relation-> dst
/// [how]`, then the unresolved names.
pub fn render_edges(store: &Store) -> String {
    let names: std::collections::HashMap<i64, String> =
        store.graph_symbols().unwrap().into_iter().map(|s| (s.id, s.qualified_name)).collect();
    let mut resolved = Vec::new();
    let mut unresolved = Vec::new();
    for e in store.all_edges().unwrap() {
        if matches!(e.relation.as_str(), "parent_of") {
            continue;
        }
        let src = &names[&e.src];
        match e.dst {
            Some(dst) => {
                let how = if e.resolution == ken_core::Resolution::Exact { String::new() } else { format!(" [{}]", e.resolution) };
                resolved.push(format!("{src} -{}-> {}{how}", e.relation, names[&dst]));
            }
            None => unresolved.push(format!("{src} -{}-> ?{}", e.relation, e.name)),
        }
    }
    resolved.sort();
    resolved.dedup();
    unresolved.sort();
    unresolved.dedup();
    let mut out = resolved.join("\n");
    if !unresolved.is_empty() {
        out.push_str("\nunresolved:\n");
        out.push_str(&unresolved.join("\n"));
    }
    out.push('\n');
    out
}

pub fn check_edges(fixture: &str, expect: Expect) {
    let f = Fixture::new(fixture);
    expect.assert_eq(&render_edges(&f.store()));
}

/// Runs one graph query per line of `queries` (`callers a.b 2`,
/// `subclasses A`, `tests f`, `untested`, `path a b`…) and renders the answers.
pub fn check_queries(fixture: &str, queries: &str, expect: Expect) {
    let f = Fixture::new(fixture);
    let store = f.store();
    let graph = Graph::new(&store);
    let mut out = String::new();
    for query in queries.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let words: Vec<&str> = query.split_whitespace().collect();
        writeln!(out, "> {query}").unwrap();
        let target = |i: usize| graph.resolve(&SymbolRef::parse(words[i]));
        let depth = |i: usize| words.get(i).and_then(|d| d.parse().ok()).unwrap_or(1);
        let result = match words[0] {
            "callers" => target(1).and_then(|s| graph.callers(s, depth(2))).map(|t| t.hits),
            "callees" => target(1).and_then(|s| graph.callees(s, depth(2))).map(|t| t.hits),
            "subclasses" => target(1).and_then(|s| graph.subclasses(s)).map(|t| t.hits),
            "superclasses" => target(1).and_then(|s| graph.superclasses(s)).map(|t| t.hits),
            "overrides" => target(1).and_then(|s| graph.overrides(s)).map(|(up, down)| up.hits.into_iter().chain(down.hits).collect()),
            "refs" => target(1).and_then(|s| graph.refs(s)).map(|t| t.hits),
            "tests" => target(1).and_then(|s| graph.tests(s, 8)).map(|t| t.hits),
            "path" => target(1).and_then(|a| target(2).and_then(|b| graph.path(a, b, 12))).map(|p| p.unwrap_or_default()),
            "untested" => {
                let rows = graph.untested().unwrap();
                for s in rows {
                    writeln!(out, "  {}", s.qualified_name).unwrap();
                }
                continue;
            }
            "rank" => {
                for (s, _) in graph.ranked(5, |_, _| true).unwrap() {
                    writeln!(out, "  {}", s.qualified_name).unwrap();
                }
                continue;
            }
            other => panic!("unknown query {other}"),
        };
        match result {
            Ok(hits) => {
                for h in hits {
                    let indent = "  ".repeat(h.depth as usize);
                    writeln!(out, "{indent}{} {} ({}:{})", h.relation, h.symbol.qualified_name, h.site.path, h.site.line).unwrap();
                }
            }
            Err(e) => writeln!(out, "  error: {e}").unwrap(),
        }
    }
    expect.assert_eq(&out);
}
