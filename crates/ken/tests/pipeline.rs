//! `ken search --pipeline`: the five stages end to end through the real
//! binary, on a small repository with two concerns (auth and billing).
//! Runs without embeddings (seeds from BM25 and names) except where noted,
//! so snapshots do not depend on the model.

mod support;

use expect_test::{Expect, expect};
use support::{Repo, SHOP, json, ken_command, stdout};

fn shop() -> Repo {
    let repo = Repo::new(SHOP);
    stdout(&repo.ken(&["index", "--quiet"]));
    repo
}

/// Text output without the timings line (the only part that varies).
fn check(repo: &Repo, args: &[&str], expect: Expect) {
    let mut full = vec!["search"];
    full.extend_from_slice(args);
    let text = stdout(&repo.ken(&full));
    let stable: Vec<&str> = text.lines().filter(|l| !l.starts_with("stages:")).collect();
    expect.assert_eq(&(stable.join("\n") + "\n"));
}

fn err(out: &std::process::Output) -> String {
    assert!(!out.status.success(), "expected failure, got: {}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8_lossy(&out.stderr).trim().to_string()
}

#[test]
fn clusters_with_explanations() {
    let repo = shop();
    check(
        &repo,
        &["--pipeline", "--explain", "user authentication flow", "-k", "3"],
        expect![[r#"
            8 symbols in 3 clusters (6 seeds, static graph, 13 nodes, 18 edges)

            cluster 1  1.000  handler.authenticate and 2 related (auth/)
              1.000  function  auth.handler.authenticate  auth/handler.py:5-10
                     seed #1 (bm25 1) · text 1.00 · centrality 0.70 · proximity 1.00
              0.962  method    auth.users.UserStore.load  auth/users.py:18-19
                     seed #5 (bm25 6) · text 0.92 · centrality 1.00 · proximity 1.00
              0.238  function  auth.handler.token_subject  auth/handler.py:13-15
                     auth.handler.authenticate Calls this (graph, depth 1) · text 0.00 · centrality 1.00 · proximity 0.50

            cluster 2  0.984  users.User and 1 related (auth/users.py)
              0.984  class     auth.users.User  auth/users.py:4-11
                     seed #2 (bm25 3) · text 0.97 · centrality 1.00 · proximity 1.00
              0.955  constructor auth.users.User.__init__  auth/users.py:5-8
                     seed #6 (bm25 7) · text 0.91 · centrality 1.00 · proximity 1.00

            cluster 3  0.977  users.UserStore and 2 related (auth/)
              0.977  class     auth.users.UserStore  auth/users.py:14-19
                     seed #3 (bm25 4) · text 0.95 · centrality 0.53 · proximity 1.00
              0.969  method    auth.users.UserStore.find  auth/users.py:15-16
                     seed #4 (bm25 5) · text 0.94 · centrality 1.00 · proximity 1.00
              0.127  function  auth.handler.login  auth/handler.py:18-24
                     auth.users.UserStore InstantiatedBy this (graph, depth 1) · text 0.00 · centrality 0.37 · proximity 0.50

        "#]],
    );
    check(
        &repo,
        &["--pipeline", "invoice total", "-k", "2"],
        expect![[r#"
            6 symbols in 2 clusters (4 seeds, static graph, 6 nodes, 6 edges)

            cluster 1  1.000  Invoice.total and 2 related (billing/invoice.py)
              1.000  method    billing.invoice.Invoice.total  billing/invoice.py:7-8
              0.977  class     billing.invoice.Line  billing/invoice.py:1-3
              0.332  method    billing.invoice.Line.amount  billing/invoice.py:2-3

            cluster 2  0.992  invoice.Invoice and 2 related (billing/invoice.py)
              0.992  class     billing.invoice.Invoice  billing/invoice.py:6-11
              0.984  method    billing.invoice.Invoice.render_pdf  billing/invoice.py:10-11
              0.232  function  billing.invoice.send_invoice  billing/invoice.py:14-16

        "#]],
    );
}

#[test]
fn json_has_the_seed_003_shape() {
    let repo = shop();
    let v = json(&repo.ken(&["search", "--pipeline", "--explain", "--json", "token", "-k", "2"]));
    let id = v["query_id"].as_str().unwrap();
    assert!(id.starts_with("hs-") && id.len() == "hs-20250120-001".len(), "{id}");
    assert!(v["execution_time_ms"].is_u64());
    for stage in ["embed_ms", "seeds_ms", "expansion_ms", "clustering_ms", "ranking_ms", "total_ms"] {
        assert!(v["timings"][stage].is_f64(), "{stage} missing");
    }
    let clusters = v["results"].as_array().unwrap();
    assert!(!clusters.is_empty() && clusters.len() <= 2);
    // Seeds keep retrieval's order, above the symbols the expansion reached,
    // which score half their weighted factors.
    let mut seeds: Vec<(f64, u64)> = Vec::new();
    let mut previous = f64::MAX;
    for c in clusters {
        let score = c["score"].as_f64().unwrap();
        assert!(score <= previous, "clusters are sorted by score");
        previous = score;
        assert!(c["cluster_id"].as_str().unwrap().starts_with("cluster_"));
        assert!(!c["title"].as_str().unwrap().is_empty());
        let symbols = c["symbols"].as_array().unwrap();
        // A cluster's score is its best symbol's.
        assert_eq!(symbols[0]["score"].as_f64().unwrap(), score);
        for s in symbols {
            let expected = format!("{}:{}:{}", s["file_path"].as_str().unwrap(), s["name"].as_str().unwrap(), s["range"]["start"]["line"]);
            assert_eq!(s["id"].as_str().unwrap(), expected);
            for key in ["kind", "raw_code"] {
                assert!(s[key].is_string(), "{key}");
            }
            assert!(s["range"]["end"]["char"].is_u64());
            let f = &s["explain"]["factors"];
            let combined =
                0.4 * f["text"].as_f64().unwrap() + 0.35 * f["centrality"].as_f64().unwrap() + 0.25 * f["proximity"].as_f64().unwrap();
            let score = s["score"].as_f64().unwrap();
            if s["explain"]["origin"] == "seed" {
                assert!((0.5..=1.0).contains(&score), "{s}");
                seeds.push((score, s["explain"]["rank"].as_u64().unwrap()));
            } else {
                assert!((0.5 * combined - score).abs() < 1e-9, "reached: score = (0.4·text + 0.35·centrality + 0.25·proximity) / 2");
            }
        }
    }
    seeds.sort_by(|a, b| b.0.total_cmp(&a.0));
    assert!(seeds.windows(2).all(|w| w[0].1 < w[1].1), "seeds by retrieval rank: {seeds:?}");
    assert_eq!(v["expansion"]["mode"], "static");

    // Seed 003's order: every symbol by its weighted factors.
    let v = json(&repo.ken(&["search", "--pipeline", "--explain", "--json", "token", "-k", "2", "--order", "factors"]));
    for s in v["results"].as_array().unwrap().iter().flat_map(|c| c["symbols"].as_array().unwrap()) {
        let f = &s["explain"]["factors"];
        let combined =
            0.4 * f["text"].as_f64().unwrap() + 0.35 * f["centrality"].as_f64().unwrap() + 0.25 * f["proximity"].as_f64().unwrap();
        assert!((combined - s["score"].as_f64().unwrap()).abs() < 1e-9, "score = 0.4·text + 0.35·centrality + 0.25·proximity");
    }
}

#[test]
fn settings_from_flags_config_file_and_environment() {
    let repo = shop();
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut cmd = ken_command(repo.path(), &[&["search", "--pipeline", "--json", "token"], args].concat());
        cmd.env("KEN_NO_EMBED", "1").env("XDG_CONFIG_HOME", repo.path().join("no-user-config"));
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    };
    // Depth 0: the graph is the seeds alone.
    let v = json(&run(&["--depth", "0"], &[]));
    assert_eq!(v["expansion"]["nodes"], v["expansion"]["seeds"]);
    let v = json(&run(&[], &[("KEN_MAX_GRAPH_DEPTH", "0")]));
    assert_eq!(v["expansion"]["nodes"], v["expansion"]["seeds"]);
    // Weights 1,0,0 in seed 003's order: every symbol scores its text relevance.
    let v = json(&run(&["--weights", "1,0,0", "--explain"], &[("KEN_PIPELINE_ORDER", "factors")]));
    for c in v["results"].as_array().unwrap() {
        for s in c["symbols"].as_array().unwrap() {
            assert_eq!(s["score"], s["explain"]["factors"]["text"]);
        }
    }
    repo.write("ken.toml", "[search]\ntop_k = 1\n[pipeline]\nmax_nodes = 5\n");
    let v = json(&run(&[], &[]));
    assert_eq!(v["results"].as_array().unwrap().len(), 1);
    assert!(v["expansion"]["nodes"].as_u64().unwrap() <= 5.max(v["expansion"]["seeds"].as_u64().unwrap()));

    let problems = [
        err(&run(&["--depth", "9"], &[])),
        err(&run(&["--weights", "1,x,0"], &[])),
        err(&run(&["--weights=-1,0,0"], &[])),
        err(&run(&["--resolution", "0"], &[])),
        err(&run(&["--expansion", "psychic"], &[])),
        err(&run(&["--order", "best"], &[])),
        err(&run(&[], &[("KEN_PIPELINE_ORDER", "random")])),
        err(&run(&[], &[("KEN_RANKING_WEIGHTS", "1,2")])),
        err(&run(&[], &[("KEN_MAX_NODES", "many")])),
    ];
    expect![[r#"
        error: command line: `max_graph_depth` must be between 0 and 5 (got 9)
        error: --weights `1,x,0` must be three numbers, e.g. 0.4,0.35,0.25
        error: command line: `ranking_weights.w1` must be a finite number from 0 to 1000 (got -1)
        error: command line: `clustering_resolution` must be a number above 0 and at most 10 (got 0)
        error: unknown --expansion `psychic`; use static or lsp
        error: unknown --order `best`; use retrieval or factors
        error: environment variable KEN_PIPELINE_ORDER: `order` cannot be `random`; use retrieval or factors
        error: environment variable KEN_RANKING_WEIGHTS: `ranking_weights` cannot be `1,2`; give three numbers, e.g. 0.4,0.35,0.25
        error: environment variable KEN_MAX_NODES: `max_nodes` cannot be `many`: not a number
    "#]]
    .assert_eq(&(problems.join("\n") + "\n"));
    repo.write("ken.toml", "[pipeline]\nmax_graph_depht = 1\n");
    let message = err(&run(&[], &[])).replace(&repo.path().display().to_string(), "$REPO");
    expect!["error: $REPO/ken.toml: line 2: unknown field `max_graph_depht`, expected one of `max_graph_depth`, `max_nodes`, `max_neighbors`, `expansion`, `clustering_resolution`, `min_cluster_size`, `strong_seed`, `ranking_weights`, `order`, `noise_names`, `max_code_lines`; fix the file or remove it"].assert_eq(&message);
}

#[test]
fn live_expansion_with_a_language_server() {
    let repo = shop();
    // The default 1 s budget is for interactive use; a cold language server
    // on a busy machine may need far longer, and the test is about answers.
    repo.write("ken.toml", "[lsp]\nrequest_timeout_ms = 120000\nbudget_ms = 600000\n");
    let v = json(&repo.ken(&["search", "--pipeline", "--expansion", "lsp", "--explain", "--json", "validate_token", "-k", "3"]));
    let lsp = &v["expansion"]["lsp"];
    assert!(!lsp["servers"].as_array().unwrap().is_empty(), "a Python server answered: {lsp}");
    assert_eq!(lsp["fallback_nodes"], 0, "{lsp}");
    let reached: Vec<String> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["symbols"].as_array().unwrap().iter())
        .filter(|s| s["explain"]["via"] == "lsp")
        .map(|s| {
            format!(
                "{} {} {}",
                s["explain"]["from_name"].as_str().unwrap(),
                s["explain"]["relation"].as_str().unwrap(),
                s["qualified_name"].as_str().unwrap()
            )
        })
        .collect();
    // `sign` is reached from the seed SECRET by reference, then its caller by call hierarchy.
    assert!(reached.iter().any(|r| r == "auth.tokens.sign CalledBy auth.tokens.issue_token"), "{reached:?}");
}

#[test]
fn live_expansion_falls_back_to_the_static_graph() {
    // No language server speaks Ruby: every symbol falls back, and the answer says so.
    let repo = Repo::new(
        r#"
//- lib/cart.rb
class Cart
  def total
    items.sum { |i| price_of(i) }
  end

  def price_of(item)
    item.price
  end
end
"#,
    );
    stdout(&repo.ken(&["index", "--quiet"]));
    let out = repo.ken(&["search", "--pipeline", "--expansion", "lsp", "--json", "cart total"]);
    let v = json(&out);
    let lsp = &v["expansion"]["lsp"];
    assert!(lsp["fallback_nodes"].as_u64().unwrap() > 0, "{lsp}");
    assert!(lsp["reasons"][0].as_str().unwrap().contains("no language server for ruby"), "{lsp}");
    assert!(v["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().contains("static graph")), "{v}");
}

#[test]
fn a_hanging_language_server_costs_its_timeout_not_the_answer() {
    let repo = shop();
    let fake = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ken-lsp/tests/fake_lsp.py");
    repo.write(
        "ken.toml",
        format!(
            "[lsp]\nrequest_timeout_ms = 300\nbudget_ms = 1000\n[[lsp.servers]]\nname = \"stuck\"\nlanguages = [\"python\"]\ncommand = \"python3\"\nargs = [{:?}, \"hang\"]\n",
            fake.display().to_string()
        ),
    );
    let start = std::time::Instant::now();
    let v = json(&repo.ken(&["search", "--pipeline", "--expansion", "lsp", "--json", "validate_token"]));
    let elapsed = start.elapsed();
    let lsp = &v["expansion"]["lsp"];
    assert_eq!(lsp["fallback_nodes"], lsp["expanded_nodes"], "{lsp}");
    assert!(lsp["reasons"].to_string().contains("stuck"), "{lsp}");
    assert!(!v["results"].as_array().unwrap().is_empty(), "the static graph still answers");
    assert!(v["expansion"]["nodes"].as_u64().unwrap() > v["expansion"]["seeds"].as_u64().unwrap(), "{}", v["expansion"]);
    // Bounded by the request timeout (and the budget), not by the server.
    // Generous, so a busy machine cannot fail it; a hung server never ends.
    assert!(elapsed < std::time::Duration::from_secs(120), "{elapsed:?}");
}
