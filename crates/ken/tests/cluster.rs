//! A real 3-node Qdrant cluster (3 shards, 2 replicas) as the vector store:
//! a node killed while `ken index` writes and while searches run costs no
//! search and no point, and a restarted node catches up. Every test stops
//! its cluster, also when it fails (`support::Qdrant` kills on drop).

mod support;

use serde_json::Value;
use std::path::Path;
use support::{Backend, Qdrant, json, pypi_corpus};

const COLLECTION: &str = "ken_vectors_d384";

/// A copy of a real package with a ken.toml that asks for a replicated collection.
fn replicated_repo() -> tempfile::TempDir {
    let corpus = pypi_corpus("requests", "2.32.3");
    let repo = tempfile::tempdir().unwrap();
    copy_tree(&corpus, repo.path());
    std::fs::write(repo.path().join("ken.toml"), "[vectors]\nshards = 3\nreplicas = 2\n").unwrap();
    repo
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The top hits of each query, one line per query.
fn answers(backend: &Backend, repo: &Path) -> String {
    let queries = ["how are redirects handled", "strip the authorization header", "parse a cookie jar from a dict"];
    let lines: Vec<String> = queries
        .iter()
        .map(|q| {
            let out = backend.ken(repo, &["search", q, "--mode", "semantic", "--json", "-k", "3"]);
            assert!(out.status.success(), "search {q:?} failed: {}", String::from_utf8_lossy(&out.stderr));
            let hits: Vec<String> =
                json(&out)["hits"].as_array().unwrap().iter().map(|h| h["qualified_name"].as_str().unwrap().to_string()).collect();
            format!("{q}: {}", hits.join(", "))
        })
        .collect();
    lines.join("\n")
}

/// Every replica of the collection, as node `i` sees them, is active.
fn all_replicas_active(cluster: &Qdrant, i: usize) -> bool {
    let Some((200, body)) = support::http_get(cluster.http_port(i), &format!("/collections/{COLLECTION}/cluster")) else { return false };
    let info: Value = serde_json::from_str(&body).unwrap_or_default();
    let result = &info["result"];
    let shards: Vec<&Value> = ["local_shards", "remote_shards"].iter().filter_map(|k| result[k].as_array()).flatten().collect();
    shards.len() == 6 && shards.iter().all(|s| s["state"] == "Active")
}

fn wait_until(what: &str, ready: impl Fn() -> bool) {
    // A generous bound for a busy machine; a healthy one takes seconds.
    for _ in 0..1800 {
        if ready() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("{what} never happened");
}

#[test]
fn a_lost_node_costs_no_search_and_no_point() {
    let Some(cluster) = Qdrant::start(3) else { return };
    let backend = Backend::Qdrant(cluster);
    let Backend::Qdrant(cluster) = &backend else { unreachable!() };
    let repo = replicated_repo();

    // A node dies while the index writes its vectors: once the first are
    // in, however long the index takes to get there on a busy machine.
    // Its stderr in a file, which no pipe left unread can block.
    let stderr = tempfile::NamedTempFile::new().unwrap();
    let mut index = backend
        .command(repo.path(), &["index", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(stderr.reopen().unwrap())
        .spawn()
        .unwrap();
    let index_log = || std::fs::read_to_string(stderr.path()).unwrap_or_default();
    let written = || {
        support::http_get(cluster.http_port(0), &format!("/collections/{COLLECTION}")).is_some_and(|(status, _)| status == 200)
            && cluster.count(0, COLLECTION) > 0
    };
    while !written() {
        if index.try_wait().unwrap().is_some() {
            panic!(
                "ken index ended ({}) before any vector was seen: {}\nnodes' logs:\n{}",
                index.wait().unwrap(),
                index_log(),
                cluster.logs()
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    cluster.kill(2);
    let out = index.wait_with_output().unwrap();
    assert!(out.status.success(), "ken index failed with a node down: {}", index_log());
    let summary = json(&out);
    let progress = &summary["vectors"]["embed"]["progress"];
    let points = progress["symbols"].as_u64().unwrap() + progress["chunks"].as_u64().unwrap();
    assert_eq!(progress["symbols"], progress["symbols_embedded"], "{summary}");
    assert_eq!(cluster.count(0, COLLECTION), points, "points with a node down");

    // Searches answer with a node down.
    let expected = answers(&backend, repo.path());

    // The node comes back and catches up: its replicas turn active again.
    cluster.restart(2);
    wait_until("node 2's replicas active", || all_replicas_active(cluster, 0));
    assert_eq!(cluster.count(2, COLLECTION), points, "points seen through the restarted node");

    // The node ken talks to first dies between searches: the others answer, the same.
    let searching = std::thread::scope(|scope| {
        let running = scope.spawn(|| (0..3).map(|_| answers(&backend, repo.path())).collect::<Vec<_>>());
        std::thread::sleep(std::time::Duration::from_millis(300));
        cluster.kill(0);
        running.join().unwrap()
    });
    for answer in searching {
        assert_eq!(answer, expected);
    }
    assert_eq!(answers(&backend, repo.path()), expected);
    assert_eq!(cluster.count(1, COLLECTION), points, "points with the first node down");
}
