//! The team hub end to end: `ken index` and `ken push` in each repository,
//! `ken serve --hub` answering over all of them, on both vector backends;
//! its tokens, path checks and limits; and a push that breaks off while
//! the hub applies it.

mod support;

use expect_test::expect;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use support::{Backend, Repo, stdout};

on_both_backends!(pushed_repositories_are_searched_together, a_push_that_breaks_off_leaves_the_previous_version);

/// A running hub; killed on drop.
struct Hub {
    child: Child,
    base: String,
}

impl Hub {
    fn start(backend: &Backend, dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> Hub {
        let mut args = vec!["serve", "--hub", dir.to_str().unwrap(), "--addr", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        let mut command = backend.command(dir, &args);
        command.envs(env.iter().copied());
        let mut child = command.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("the hub starts");
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let base =
            line.split_whitespace().find(|w| w.starts_with("http://")).unwrap_or_else(|| panic!("hub address, got: {line}")).to_string();
        std::thread::spawn(move || for _ in stderr.lines() {});
        Hub { child, base }
    }

    fn call(&self, method: &str, path: &str, token: Option<&str>, body: Option<&Value>) -> (u16, Value) {
        let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
        let url = format!("{}{path}", self.base);
        let auth = token.map(|t| format!("Bearer {t}"));
        let response = match (method, body) {
            ("GET", _) => {
                let mut request = agent.get(&url);
                if let Some(auth) = &auth {
                    request = request.header("authorization", auth);
                }
                request.call()
            }
            (_, body) => {
                let mut request = agent.post(&url).header("content-type", "application/json");
                if let Some(auth) = &auth {
                    request = request.header("authorization", auth);
                }
                request.send(body.map(|b| b.to_string()).unwrap_or_default())
            }
        };
        let mut response = response.expect("the hub answers");
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string().unwrap_or_default();
        (status, serde_json::from_str(&text).unwrap_or_else(|_| panic!("{method} {path}: not JSON ({status}): {text}")))
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn token(backend: &Backend, hub_dir: &Path, name: &str, access: &str) -> String {
    stdout(&backend.ken(hub_dir, &["hub", "token", name, "--access", access, "--dir", hub_dir.to_str().unwrap()])).trim().to_string()
}

fn push(backend: &Backend, repo: &Path, hub: &Hub, token: &str, name: &str) -> Value {
    let out = backend.command(repo, &["push", &hub.base, "--repo", name, "--json"]).env("KEN_HUB_TOKEN", token).output().unwrap();
    support::json(&out)
}

const BILLING: &str = "//- billing.py\ndef compute_invoice_total(items):\n    \"\"\"Sum the line items of an invoice.\"\"\"\n    return sum(i.price for i in items)\n\
     //- tax.py\ndef vat_rate(country):\n    \"\"\"The value added tax rate of a country.\"\"\"\n    return 0.2\n";
const SHIPPING: &str =
    "//- shipping.py\ndef estimate_delivery_window(order):\n    \"\"\"Days until the parcel arrives.\"\"\"\n    return 3\n";

/// The hits as `repo path name`.
fn hits(response: &Value) -> String {
    let hits = response["hits"].as_array().unwrap_or_else(|| panic!("{response}"));
    hits.iter()
        .map(|h| format!("{} {} {}", h["repo"].as_str().unwrap(), h["path"].as_str().unwrap(), h["name"].as_str().unwrap()))
        .collect::<Vec<_>>()
        .join(" | ")
}

fn summary(push: &Value) -> String {
    format!(
        "version {} written {} deleted {} vectors {} embedded_by_hub {} files {}",
        push["version"], push["files_written"], push["files_deleted"], push["vectors_received"], push["embedded_by_hub"], push["files"]
    )
}

fn pushed_repositories_are_searched_together(backend: &Backend) {
    let billing = Repo::new(BILLING);
    let shipping = Repo::new(SHIPPING);
    for repo in [&billing, &shipping] {
        stdout(&backend.ken(repo.path(), &["index", "-q"]));
    }
    let hub_dir = tempfile::tempdir().unwrap();
    let (push_token, read_token) = (token(backend, hub_dir.path(), "ci", "push"), token(backend, hub_dir.path(), "dev", "read"));
    let hub = Hub::start(backend, hub_dir.path(), &[], &[]);

    // First pushes: every file, every vector; the hub embeds nothing.
    let first =
        [push(backend, billing.path(), &hub, &push_token, "billing"), push(backend, shipping.path(), &hub, &push_token, "shipping")];
    expect![[r#"
        version 1 written 2 deleted 0 vectors 4 embedded_by_hub 0 files 2
        version 1 written 1 deleted 0 vectors 2 embedded_by_hub 0 files 1
    "#]]
    .assert_eq(&(first.iter().map(summary).collect::<Vec<_>>().join("\n") + "\n"));

    let search = |query: &str, repos: &[&str]| {
        let (status, body) = hub.call("POST", "/api/v1/search", Some(&read_token), Some(&json!({"query": query, "k": 2, "repos": repos})));
        assert_eq!(status, 200, "{body}");
        format!("{query:?} {repos:?} => {}", hits(&body))
    };
    let lines = [
        search("when does my parcel arrive", &[]),
        search("sum the invoice lines", &[]),
        search("when does my parcel arrive", &["billing"]),
        search("estimate_delivery_window", &["shipping"]),
    ];
    expect![[r#"
        "when does my parcel arrive" [] => shipping shipping.py estimate_delivery_window | billing billing.py compute_invoice_total
        "sum the invoice lines" [] => billing billing.py compute_invoice_total | shipping shipping.py estimate_delivery_window
        "when does my parcel arrive" ["billing"] => billing billing.py compute_invoice_total | billing tax.py vat_rate
        "estimate_delivery_window" ["shipping"] => shipping shipping.py estimate_delivery_window
    "#]]
    .assert_eq(&(lines.join("\n") + "\n"));

    // With the vectors in a server, the cluster's first stage (dense and
    // BM25, fused) routes a query to the repositories that match it best;
    // an Edge hub has no shared collection, and searches them all.
    let routed = |query: &str| {
        let (status, body) = hub.call("POST", "/api/v1/search", Some(&read_token), Some(&json!({"query": query, "k": 2, "route": 1})));
        assert_eq!((status, body["in_scope"].as_u64()), (200, Some(2)), "{body}");
        format!("{query:?} => {}", body["repos"])
    };
    let lines = [routed("when does my parcel arrive"), routed("compute_invoice_total"), routed("estimate_delivery_window")];
    match backend {
        Backend::Qdrant(_) => expect![[r#"
            "when does my parcel arrive" => ["shipping"]
            "compute_invoice_total" => ["billing"]
            "estimate_delivery_window" => ["shipping"]
        "#]]
        .assert_eq(&(lines.join("\n") + "\n")),
        Backend::Edge => assert!(lines.iter().all(|l| l.ends_with(r#"["billing","shipping"]"#)), "{lines:?}"),
    }

    // The CLI searches the hub too.
    let cli = backend
        .command(
            billing.path(),
            &["search", "--hub", &hub.base, "--repo", "shipping", "--repo", "billing", "--route", "1", "parcel delivery days", "-k", "1"],
        )
        .env("KEN_HUB_TOKEN", &read_token)
        .output()
        .unwrap();
    expect![[r#"
        $ ken search --hub URL --repo shipping --repo billing --route 1 "parcel delivery days" -k 1
         1. shipping:shipping.py:1-3  function shipping.estimate_delivery_window  (0.0492)
                  1 │ def estimate_delivery_window(order):
                  2 │     """Days until the parcel arrives."""
                  3 │     return 3
    "#]]
    .assert_eq(&format!("$ ken search --hub URL --repo shipping --repo billing --route 1 \"parcel delivery days\" -k 1\n{}", stdout(&cli)));

    // A change: one file edited, one deleted; only they travel.
    billing.write("billing.py", "def compute_invoice_total(items, discount):\n    \"\"\"Sum the line items, less a discount.\"\"\"\n    return sum(i.price for i in items) - discount\n");
    std::fs::remove_file(billing.path().join("tax.py")).unwrap();
    stdout(&backend.ken(billing.path(), &["index", "-q"]));
    let second = push(backend, billing.path(), &hub, &push_token, "billing");
    let unchanged = push(backend, shipping.path(), &hub, &push_token, "shipping");
    expect![[r#"
        version 2 written 1 deleted 1 vectors 2 embedded_by_hub 0 files 1
        version 1 written 0 deleted 0 vectors 0 embedded_by_hub 0 files 1
    "#]]
    .assert_eq(&format!("{}\n{}\n", summary(&second), summary(&unchanged)));

    // Each repository's own API, on its live version.
    let (status, symbols) = hub.call("GET", "/api/v1/repos/billing/symbols?name=vat_rate", Some(&read_token), None);
    assert_eq!((status, symbols.as_array().map(Vec::len)), (200, Some(0)), "{symbols}");
    let (status, symbol) = hub.call("GET", "/api/v1/repos/billing/symbol?symbol=compute_invoice_total", Some(&read_token), None);
    assert_eq!(status, 200, "{symbol}");
    assert!(symbol.to_string().contains("discount"), "{symbol}");
    let (_, repos) = hub.call("GET", "/api/v1/repos", Some(&read_token), None);
    expect![[r#"[{"repo":"billing","version":2,"files":1},{"repo":"shipping","version":1,"files":1}]"#]].assert_eq(&repos.to_string());
}

/// An agent on the hub's MCP endpoint (the official Python SDK's client
/// over streamable HTTP, with a read token): every tool, each naming its
/// repository where it reads one; no token, no session.
#[test]
fn agents_search_the_hub_over_mcp() {
    let backend = Backend::Edge;
    let billing = Repo::new(BILLING);
    let shipping = Repo::new(SHIPPING);
    for repo in [&billing, &shipping] {
        stdout(&backend.ken(repo.path(), &["index", "-q"]));
    }
    let hub_dir = tempfile::tempdir().unwrap();
    let (push_token, read_token) = (token(&backend, hub_dir.path(), "ci", "push"), token(&backend, hub_dir.path(), "dev", "read"));
    let hub = Hub::start(&backend, hub_dir.path(), &[], &[]);
    push(&backend, billing.path(), &hub, &push_token, "billing");
    push(&backend, shipping.path(), &hub, &push_token, "shipping");

    let (status, refused) = hub.call("POST", "/mcp", None, Some(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})));
    assert_eq!((status, refused["error"]["code"].as_str()), (401, Some("unauthorized")), "{refused}");

    let cases: &[(&str, Value, &str)] = &[
        ("repos", json!({}), "\"repo\": \"shipping\""),
        ("search", json!({"query": "when does my parcel arrive", "k": 2}), "\"repo\": \"shipping\""),
        ("hybrid_search", json!({"repo": "billing", "query": "invoice total", "top_k": 2}), "compute_invoice_total"),
        (
            "locate",
            json!({"repo": "billing", "report": "Wrong total\n  File \"/srv/billing.py\", line 4, in compute_invoice_total"}),
            "billing.py",
        ),
        ("context", json!({"repo": "shipping", "task": "how is delivery estimated", "budget": 512}), "def estimate_delivery_window"),
        ("map", json!({"repo": "billing", "budget": 256}), "def vat_rate(country)"),
        ("find_symbols", json!({"repo": "billing", "name": "vat"}), "tax.vat_rate"),
        ("symbol", json!({"repo": "billing", "symbol": "billing.compute_invoice_total"}), "return sum(i.price for i in items)"),
        ("callers", json!({"repo": "billing", "symbol": "tax.vat_rate"}), "\"hits\""),
        ("callees", json!({"repo": "billing", "symbol": "billing.compute_invoice_total"}), "\"hits\""),
        ("refs", json!({"repo": "billing", "symbol": "tax.vat_rate"}), "\"hits\""),
        ("subclasses", json!({"repo": "billing", "symbol": "tax.vat_rate"}), "\"hits\""),
        ("outline", json!({"repo": "billing", "path": "tax.py"}), "tax.vat_rate"),
        ("grep", json!({"repo": "shipping", "pattern": "def \\w+_window"}), "def estimate_delivery_window(order):"),
        ("index_status", json!({"repo": "shipping"}), "\"files\""),
    ];
    let calls: serde_json::Map<String, Value> = cases.iter().map(|(name, args, _)| (name.to_string(), args.clone())).collect();
    let report = support::mcp_http_client(&format!("{}/mcp", hub.base), Some(&read_token), &Value::Object(calls));
    assert_eq!(report["server"], "kenning-hub", "{report}");
    let mut listed: Vec<&String> = report["tools"].as_object().unwrap().keys().collect();
    listed.sort();
    let mut called: Vec<&str> = cases.iter().map(|c| c.0).collect();
    called.sort();
    assert_eq!(listed, called, "every tool listed has a case here, and no other");
    for (name, args, holds) in cases {
        let call = &report["calls"][*name];
        assert_eq!(call["is_error"], false, "{name} {args}: {call}");
        assert!(call["text"].as_str().unwrap().contains(holds), "{name} answered without `{holds}`: {call}");
        if args.get("repo").is_some() {
            assert!(report["tools"][*name]["required"].as_array().unwrap().contains(&json!("repo")), "{name} must require `repo`");
        }
    }
}

/// Tokens, paths, sizes and fields: each refused with its status, nothing written.
#[test]
fn the_hub_refuses_what_it_must() {
    let backend = Backend::Edge;
    let hub_dir = tempfile::tempdir().unwrap();
    let (push_token, read_token) = (token(&backend, hub_dir.path(), "ci", "push"), token(&backend, hub_dir.path(), "dev", "read"));
    let hub = Hub::start(&backend, hub_dir.path(), &["--max-push-bytes", "4096"], &[]);
    let file = |path: &str| json!({"files": [{"path": path, "hash": "ab12", "text": "x = 1\n"}]});
    let cases: Vec<(&str, &str, Option<&str>, Value)> = vec![
        ("no token", "/api/v1/repos/a/push", None, file("a.py")),
        ("unknown token", "/api/v1/repos/a/push", Some("ken_nope"), file("a.py")),
        ("read token pushing", "/api/v1/repos/a/push", Some(&read_token), file("a.py")),
        ("no token reading", "/api/v1/repos", None, json!({})),
        ("parent path", "/api/v1/repos/a/push", Some(&push_token), file("../escaped.py")),
        ("absolute path", "/api/v1/repos/a/push", Some(&push_token), file("/tmp/escaped.py")),
        ("dot path", "/api/v1/repos/a/push", Some(&push_token), file("src/./a.py")),
        ("bad repository name", "/api/v1/repos/..evil/push", Some(&push_token), file("a.py")),
        (
            "too large",
            "/api/v1/repos/a/push",
            Some(&push_token),
            json!({"files": [{"path": "a.py", "hash": "ab", "text": "x".repeat(5000)}]}),
        ),
        ("bad hash", "/api/v1/repos/a/push", Some(&push_token), json!({"files": [{"path": "a.py", "hash": "not hex", "text": ""}]})),
        (
            "vectors without a model",
            "/api/v1/repos/a/push",
            Some(&push_token),
            json!({"vectors": [{"hash": "0".repeat(32), "vector": "AACAPw=="}]}),
        ),
        (
            "a vector that is not base64",
            "/api/v1/repos/a/push",
            Some(&push_token),
            json!({"model": "m", "model_id": "m", "vectors": [{"hash": "0".repeat(32), "vector": "!!"}]}),
        ),
        ("an unknown field", "/api/v1/repos/a/push", Some(&push_token), json!({"filez": []})),
        ("another base version", "/api/v1/repos/a/push", Some(&push_token), json!({"base_version": 7})),
        ("a repository never pushed", "/api/v1/repos/nothere/symbols", Some(&read_token), json!({})),
        ("a route out of range", "/api/v1/search", Some(&read_token), json!({"query": "x", "route": 5000})),
    ];
    let lines: Vec<String> = cases
        .iter()
        .map(|(what, path, token, body)| {
            let method = if path.ends_with("/push") || path.ends_with("/search") { "POST" } else { "GET" };
            let (status, answer) = hub.call(method, path, *token, Some(body));
            format!(
                "{what}: {status} {} {}",
                answer["error"]["code"].as_str().unwrap_or("-"),
                answer["error"]["field"].as_str().unwrap_or("-")
            )
        })
        .collect();
    expect![[r#"
        no token: 401 unauthorized -
        unknown token: 401 unauthorized -
        read token pushing: 403 forbidden -
        no token reading: 401 unauthorized -
        parent path: 400 invalid_field files[0].path
        absolute path: 400 invalid_field files[0].path
        dot path: 400 invalid_field files[0].path
        bad repository name: 400 invalid_field repo
        too large: 413 too_large -
        bad hash: 400 invalid_field files[0].hash
        vectors without a model: 400 invalid_field model
        a vector that is not base64: 400 invalid_field vectors[0].vector
        an unknown field: 400 invalid_field filez
        another base version: 409 conflict -
        a repository never pushed: 404 not_found -
        a route out of range: 400 invalid_field route
    "#]]
    .assert_eq(&(lines.join("\n") + "\n"));
    // The OpenAPI document lists the routes and the push's fields.
    let (status, doc) = hub.call("GET", "/openapi.json", None, None);
    assert_eq!(status, 200);
    let paths: Vec<&String> = doc["paths"].as_object().unwrap().keys().collect();
    expect![[
        r#"["/health", "/mcp", "/openapi.json", "/api/v1/repos", "/api/v1/repos/{repo}/manifest", "/api/v1/repos/{repo}/push", "/api/v1/search"]"#
    ]]
    .assert_eq(&format!("{paths:?}"));
    let push_fields: Vec<&String> = doc["components"]["schemas"]["PushRequest"]["properties"].as_object().unwrap().keys().collect();
    expect![[r#"["base_version", "files", "deleted", "model", "model_id", "vectors"]"#]].assert_eq(&format!("{push_fields:?}"));
    assert!(!hub_dir.path().join("repos/escaped.py").exists() && !hub_dir.path().parent().unwrap().join("escaped.py").exists());
    assert!(!hub_dir.path().join("repos/a").exists(), "a refused push wrote a repository");
}

/// The hub dies while applying a push (after the new version is indexed,
/// before it is made live), then a client dies halfway through its upload:
/// the previous version answers, and the same push again ends where a push
/// into a fresh hub does.
fn a_push_that_breaks_off_leaves_the_previous_version(backend: &Backend) {
    let repo = Repo::new(BILLING);
    stdout(&backend.ken(repo.path(), &["index", "-q"]));
    let hub_dir = tempfile::tempdir().unwrap();
    let push_token = token(backend, hub_dir.path(), "ci", "push");
    let status = |hub: &Hub| {
        let (_, status) = hub.call("GET", "/api/v1/repos/billing/status", Some(&push_token), None);
        let (_, symbols) = hub.call("GET", "/api/v1/repos/billing/symbols?name=discount_rate", Some(&push_token), None);
        let e = &status["embeddings"];
        format!(
            "{} points, {} embedded; discount_rate found {}",
            e["symbols"].as_u64().unwrap() + e["chunks"].as_u64().unwrap(),
            e["symbols_embedded"].as_u64().unwrap() + e["chunks_embedded"].as_u64().unwrap(),
            symbols.as_array().map_or(0, Vec::len)
        )
    };
    {
        let hub = Hub::start(backend, hub_dir.path(), &[], &[]);
        push(backend, repo.path(), &hub, &push_token, "billing");
    }
    repo.write(
        "discount.py",
        "def discount_rate(customer):\n    \"\"\"The share taken off a loyal customer's invoice.\"\"\"\n    return 0.1\n",
    );
    stdout(&backend.ken(repo.path(), &["index", "-q"]));
    let broken = {
        let hub = Hub::start(backend, hub_dir.path(), &[], &[("KEN_FAILPOINT", "hub.push_indexed")]);
        let out =
            backend.command(repo.path(), &["push", &hub.base, "--repo", "billing"]).env("KEN_HUB_TOKEN", &push_token).output().unwrap();
        assert!(!out.status.success(), "the push went through the failpoint");
        String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or_default().to_string()
    };
    let hub = Hub::start(backend, hub_dir.path(), &[], &[]);
    // The client dies halfway through its upload (a CI job killed).
    let killed = backend
        .command(repo.path(), &["push", &hub.base, "--repo", "billing"])
        .env("KEN_HUB_TOKEN", &push_token)
        .env("KEN_FAILPOINT", "push.upload")
        .output()
        .unwrap();
    assert!(!killed.status.success(), "the push went through the client's failpoint");
    let killed = String::from_utf8_lossy(&killed.stderr).lines().next().unwrap_or_default().to_string();
    let before = status(&hub);
    let again = push(backend, repo.path(), &hub, &push_token, "billing");
    let after = status(&hub);
    // A fresh hub, pushed once (its own collections, on the same server).
    let fresh_dir = tempfile::tempdir().unwrap();
    std::fs::write(fresh_dir.path().join("ken.toml"), "[vectors]\ncollection_prefix = \"fresh\"\n").unwrap();
    let fresh_token = token(backend, fresh_dir.path(), "ci", "push");
    let fresh_hub = Hub::start(backend, fresh_dir.path(), &[], &[]);
    let mut fresh_status = {
        push(backend, repo.path(), &fresh_hub, &fresh_token, "billing");
        let (_, status) = fresh_hub.call("GET", "/api/v1/repos/billing/status", Some(&fresh_token), None);
        let e = &status["embeddings"];
        (e["symbols"].as_u64().unwrap() + e["chunks"].as_u64().unwrap()).to_string()
    };
    fresh_status.push_str(" points in a fresh hub");
    expect![[r#"
        broken: error: cannot reach the hub at URL
        killed: failpoint push.upload: aborting
        before: 4 points, 4 embedded; discount_rate found 0
        again: version 2 written 1 deleted 0 vectors 2 embedded_by_hub 0 files 3
        after: 6 points, 6 embedded; discount_rate found 1
        fresh: 6 points in a fresh hub
    "#]]
    .assert_eq(&format!(
        "broken: {}\nkilled: {killed}\nbefore: {before}\nagain: {}\nafter: {after}\nfresh: {fresh_status}\n",
        broken.split(" at http").next().unwrap().to_string() + " at URL",
        summary(&again)
    ));
    if let Backend::Qdrant(q) = backend {
        // The server holds what a fresh push writes: nothing left over from the broken one.
        assert_eq!(q.count_repo(0, "ken_vectors_d384", "billing"), q.count_repo(0, "fresh_vectors_d384", "billing"));
    }
}
