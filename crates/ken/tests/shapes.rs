//! The JSON every command prints, as a shape: keys and value types, not
//! values. `--json` output, the HTTP API and the MCP tools share these types,
//! so a change here is a change of public wire format and must be deliberate:
//! a renamed field or a storage column leaking out fails this test.

mod support;

use expect_test::{Expect, expect};
use serde_json::Value;
use support::{Repo, SHOP, json};

/// A value's shape: objects by key (in output order), arrays by the union of their
/// elements' shapes, scalars by type.
fn shape(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), shape(v))).collect()),
        Value::Array(items) => {
            let mut merged = serde_json::Map::new();
            let mut scalar = None;
            for item in items {
                match shape(item) {
                    Value::Object(fields) => merged.extend(fields),
                    other => scalar = Some(other),
                }
            }
            match scalar {
                Some(s) if merged.is_empty() => Value::Array(vec![s]),
                _ if merged.is_empty() => Value::Array(vec![]),
                _ => Value::Array(vec![Value::Object(merged)]),
            }
        }
        Value::String(_) => "string".into(),
        Value::Number(_) => "number".into(),
        Value::Bool(_) => "bool".into(),
        Value::Null => "null".into(),
    }
}

fn check(repo: &Repo, args: &[&str], expect: Expect) {
    let value = json(&repo.ken(args));
    expect.assert_eq(&(serde_json::to_string_pretty(&shape(&value)).unwrap() + "\n"));
}

#[test]
fn every_command_prints_its_json_shape() {
    let repo = Repo::new(SHOP);
    check(
        &repo,
        &["index", "--json"],
        expect![[r#"
            {
              "root": "string",
              "index_dir": "string",
              "files_by_language": {
                "python": "number"
              },
              "files": "number",
              "lines": "number",
              "symbols": "number",
              "references": "number",
              "chunks": "number",
              "skipped": {},
              "skipped_files": [],
              "vendored_dirs_skipped": "number",
              "unsupported_files": "number",
              "files_with_parse_errors": "number",
              "parse_errors": "number",
              "changes": {
                "added": "number",
                "modified": "number",
                "renamed": "number",
                "deleted": "number",
                "unchanged": "number"
              },
              "mined_files": "number",
              "mined_lines": "number",
              "graph": {
                "files_linked": "number",
                "edges": "number",
                "resolved": "number",
                "by_resolution": {
                  "exact": "number",
                  "type_inferred": "number",
                  "unique_name": "number",
                  "unresolved": "number"
                },
                "analytics": "bool",
                "seconds": "number"
              },
              "compacted": "bool",
              "seconds": "number",
              "phases": {
                "walk": "number",
                "mine_and_store": "number",
                "link": "number",
                "lexical": "number",
                "embed": "number",
                "compact": "number"
              },
              "vectors": {
                "sync": {
                  "files_synced": "number",
                  "files_removed": "number",
                  "points_written": "number",
                  "seconds": "number"
                }
              }
            }
        "#]],
    );
    check(
        &repo,
        &["search", "issue a session token", "--json", "-k", "3"],
        expect![[r#"
        {
          "query": "string",
          "mode": "string",
          "hits": [
            {
              "path": "string",
              "start_line": "number",
              "end_line": "number",
              "name": "string",
              "qualified_name": "string",
              "kind": "string",
              "unit": "string",
              "symbol_id": "number",
              "language": "string",
              "score": "number",
              "lanes": {
                "sparse": "number"
              },
              "header": "string",
              "snippet": {
                "start_line": "number",
                "text": "string"
              }
            }
          ],
          "terms": [
            "string"
          ],
          "notes": [
            "string"
          ],
          "timings": {
            "embed_ms": "number",
            "dense_ms": "number",
            "sparse_ms": "number",
            "exact_ms": "number",
            "fuse_ms": "number",
            "total_ms": "number"
          }
        }
    "#]],
    );
    check(
        &repo,
        &["search", "issue a session token", "--pipeline", "--explain", "--json", "-k", "2"],
        expect![[r#"
        {
          "query_id": "string",
          "execution_time_ms": "number",
          "results": [
            {
              "cluster_id": "string",
              "score": "number",
              "title": "string",
              "symbols": [
                {
                  "id": "string",
                  "name": "string",
                  "qualified_name": "string",
                  "kind": "string",
                  "file_path": "string",
                  "range": {
                    "start": {
                      "line": "number",
                      "char": "number"
                    },
                    "end": {
                      "line": "number",
                      "char": "number"
                    }
                  },
                  "score": "number",
                  "raw_code": "string",
                  "explain": {
                    "origin": "string",
                    "from": "string",
                    "from_name": "string",
                    "relation": "string",
                    "via": "string",
                    "depth": "number",
                    "factors": {
                      "text": "number",
                      "centrality": "number",
                      "proximity": "number"
                    }
                  }
                }
              ],
              "metadata": {
                "size": "number",
                "seeds": "number",
                "files": "number",
                "edges": "number"
              }
            }
          ],
          "query": "string",
          "timings": {
            "embed_ms": "number",
            "seeds_ms": "number",
            "expansion_ms": "number",
            "clustering_ms": "number",
            "ranking_ms": "number",
            "total_ms": "number"
          },
          "expansion": {
            "mode": "string",
            "seeds": "number",
            "nodes": "number",
            "edges": "number",
            "depth_reached": "number",
            "truncated": "bool",
            "noise_filtered": "number"
          },
          "notes": [
            "string"
          ]
        }
    "#]],
    );
    check(
        &repo,
        &["symbols", "token", "--json"],
        expect![[r#"
        [
          {
            "id": "number",
            "kind": "string",
            "name": "string",
            "qualified_name": "string",
            "path": "string",
            "language": "string",
            "start_line": "number",
            "start_col": "number",
            "end_line": "number",
            "end_col": "number",
            "signature": "string",
            "docstring": "string",
            "parent": "string"
          }
        ]
    "#]],
    );
    check(
        &repo,
        &["outline", "auth/handler.py", "--json"],
        expect![[r#"
        {
          "path": "string",
          "symbols": [
            {
              "id": "number",
              "kind": "string",
              "name": "string",
              "qualified_name": "string",
              "path": "string",
              "language": "string",
              "start_line": "number",
              "start_col": "number",
              "end_line": "number",
              "end_col": "number",
              "signature": "string",
              "docstring": "string",
              "parent": "string",
              "children": []
            }
          ]
        }
    "#]],
    );
    check(
        &repo,
        &["graph", "callers", "auth.tokens.sign", "--json"],
        expect![[r#"
        {
          "symbol": {
            "id": "number",
            "kind": "string",
            "name": "string",
            "qualified_name": "string",
            "path": "string",
            "language": "string",
            "start_line": "number",
            "start_col": "number",
            "end_line": "number",
            "end_col": "number",
            "signature": "string",
            "parent": "string"
          },
          "hits": [
            {
              "symbol": {
                "id": "number",
                "kind": "string",
                "name": "string",
                "qualified_name": "string",
                "path": "string",
                "language": "string",
                "start_line": "number",
                "start_col": "number",
                "end_line": "number",
                "end_col": "number",
                "signature": "string",
                "docstring": "string",
                "parent": "string"
              },
              "depth": "number",
              "relation": "string",
              "resolution": "string",
              "site": {
                "path": "string",
                "line": "number",
                "col": "number"
              }
            }
          ],
          "truncated": "bool"
        }
    "#]],
    );
    check(
        &repo,
        &["status", "--json"],
        expect![[r#"
            {
              "index_dir": "string",
              "root": "string",
              "stats": {
                "files": "number",
                "lines": "number",
                "symbols": "number",
                "references": "number",
                "chunks": "number",
                "files_with_parse_errors": "number",
                "parse_errors": "number"
              },
              "embeddings": {
                "symbols": "number",
                "symbols_embedded": "number",
                "chunks": "number",
                "chunks_embedded": "number",
                "files_unsynced": "number"
              },
              "model": "null",
              "intents": {
                "intents": "number",
                "symbols": "number"
              },
              "reindexing": "bool",
              "language_servers": []
            }
        "#]],
    );
}
