//! `ken serve`: the real server on an ephemeral loopback port, driven over
//! HTTP. Every bad request must get a 4xx and a JSON error naming the field.

mod support;

use expect_test::expect;
use ken_test_support::Rng;
use support::{Repo, Server, json, ken_command, ken_embed_in, pypi_corpus, stdout};

fn shop() -> Repo {
    let repo = Repo::new(support::SHOP);
    stdout(&repo.ken(&["index", "--quiet"]));
    repo
}

#[test]
fn hybrid_search_answers_the_seed_003_request() {
    let repo = shop();
    let server = Server::start(&repo, &[]);
    let (status, v) = server.post(
        "/api/v1/hybrid-search",
        r#"{"query": "user authentication flow", "top_k": 2,
            "config_overrides": {"ranking_weights": {"w1": 0.5, "w2": 0.3, "w3": 0.2}, "max_graph_depth": 2, "clustering_resolution": 1.0}}"#,
    );
    assert_eq!(status, 200, "{v}");
    assert!(v["query_id"].as_str().unwrap().starts_with("hs-"));
    assert!(v["execution_time_ms"].is_u64());
    assert!(v["timings"]["clustering_ms"].is_f64());
    let clusters = v["results"].as_array().unwrap();
    assert_eq!(clusters.len(), 2);
    let top = &clusters[0]["symbols"][0];
    let keys: Vec<&str> = top.as_object().unwrap().keys().map(String::as_str).collect();
    expect!["id name qualified_name kind file_path range score raw_code"].assert_eq(&keys.join(" "));
    assert!(top["raw_code"].as_str().unwrap().contains(top["name"].as_str().unwrap()));

    // Query ids are unique per request.
    let (_, again) = server.post("/api/v1/hybrid-search", r#"{"query": "invoice"}"#);
    assert_ne!(again["query_id"], v["query_id"]);
}

#[test]
fn bad_requests_get_4xx_json_naming_the_field() {
    let repo = shop();
    // A small body limit, so the body over it fits in the socket's buffers
    // and the client reads the 413 instead of a reset.
    repo.write("ken.toml", "[server]\nmax_body_bytes = 65536\n");
    let server = Server::start(&repo, &[]);
    let json = Some("application/json");
    let big = format!(r#"{{"query": "{}"}}"#, "x".repeat(100_000));
    let cases: &[(&str, &str, Option<&str>, &str)] = &[
        ("POST", "/api/v1/hybrid-search", json, r#"{"query": "x", "top_k": 0}"#),
        ("POST", "/api/v1/hybrid-search", json, r#"{"query": "x", "top_k": 101}"#),
        ("POST", "/api/v1/hybrid-search", json, r#"{"query": "x", "top_k": -3}"#),
        ("POST", "/api/v1/hybrid-search", json, r#"{"query": "x", "top_k": "ten"}"#),
        ("POST", "/api/v1/hybrid-search", json, r#"{"query": "x", "surprise": 1}"#),
        (
            "POST",
            "/api/v1/hybrid-search",
            json,
            r#"{"query": "x", "config_overrides": {"ranking_weights": {"w1": -0.1, "w2": 0.3, "w3": 0.2}}}"#,
        ),
        ("POST", "/api/v1/hybrid-search", json, r#"{"query": "x", "config_overrides": {"ranking_weights": {"w1": 0, "w2": 0, "w3": 0}}}"#),
        (
            "POST",
            "/api/v1/hybrid-search",
            json,
            r#"{"query": "x", "config_overrides": {"ranking_weights": {"w1": 1e400, "w2": 0, "w3": 0}}}"#,
        ),
        ("POST", "/api/v1/hybrid-search", json, r#"{"query": "x", "config_overrides": {"ranking_weights": {"w1": 1}}}"#),
        ("POST", "/api/v1/hybrid-search", json, r#"{"query": "x", "config_overrides": {"max_graph_depth": 6}}"#),
        ("POST", "/api/v1/hybrid-search", json, r#"{"query": "x", "config_overrides": {"clustering_resolution": 0}}"#),
        ("POST", "/api/v1/hybrid-search", json, r#"{"query": "x", "config_overrides": {"clustering_resolution": 11}}"#),
        ("POST", "/api/v1/hybrid-search", json, r#"{"query": "x", "config_overrides": {"expansion": "psychic"}}"#),
        ("POST", "/api/v1/hybrid-search", json, r#"{"query": "x", "config_overrides": {"depth": 1}}"#),
        ("POST", "/api/v1/hybrid-search", json, r#"{"query": "x", "languages": ["klingon"]}"#),
        ("POST", "/api/v1/hybrid-search", json, r#"{"query": "   "}"#),
        ("POST", "/api/v1/hybrid-search", json, r#"{"query": "the of and"}"#),
        ("POST", "/api/v1/hybrid-search", json, r#"{"top_k": 3}"#),
        ("POST", "/api/v1/hybrid-search", json, r#"{"query": "x""#),
        ("POST", "/api/v1/hybrid-search", json, r#"[1, 2]"#),
        ("POST", "/api/v1/hybrid-search", json, r#"{"query": "x"} trailing"#),
        ("POST", "/api/v1/hybrid-search", json, &big),
        ("POST", "/api/v1/hybrid-search", Some("text/plain"), r#"{"query": "x"}"#),
        ("POST", "/api/v1/hybrid-search", None, r#"{"query": "x"}"#),
        ("POST", "/api/v1/search", json, r#"{"query": "x", "k": 0}"#),
        ("POST", "/api/v1/search", json, r#"{"query": "x", "mode": "psychic"}"#),
        ("POST", "/api/v1/search", json, r#"{"query": "x", "path": "[z-a]"}"#),
        ("POST", "/api/v1/search", json, r#"{"query": "x", "ranking": {"file_decay": 1.5}}"#),
        ("POST", "/api/v1/locate", json, r#"{"report": "  "}"#),
        ("POST", "/api/v1/locate", json, r#"{"report": "x", "k": 0}"#),
        ("POST", "/api/v1/locate", json, r#"{"report": "x", "weights": {"title": -1}}"#),
        ("POST", "/api/v1/locate", json, r#"{"report": "x", "weights": {"lanes": 2}}"#),
        ("POST", "/api/v1/locate", json, r#"{"query": "x"}"#),
        ("POST", "/api/v1/locate", json, r#"{"report": "x", "rerank": "gpt"}"#),
        ("POST", "/api/v1/impact", json, r#"{"rev": "--output=x"}"#),
        ("POST", "/api/v1/impact", json, r#"{"paths": ["../outside.py"]}"#),
        ("POST", "/api/v1/impact", json, r#"{"depth": 9}"#),
        ("POST", "/api/v1/impact", json, r#"{"staged": true, "files": [{"path": "a.py", "before": "", "after": "x = 1"}]}"#),
        ("POST", "/api/v1/impact", json, r#"{"files": [{"path": "a.py", "before": ""}]}"#),
        ("POST", "/api/v1/plan", json, r#"{"instruction": "x"}"#),
        ("POST", "/api/v1/plan", json, r#"{"instruction": " ", "seeds": ["a"]}"#),
        ("POST", "/api/v1/plan", json, r#"{"instruction": "x", "seeds": ["a"], "assume": "ZZ"}"#),
        ("POST", "/api/v1/plan", json, r#"{"instruction": "x", "seed_diff": {"depth": 0}}"#),
        ("POST", "/api/v1/execute", json, r#"{"plan": {"instruction": "x", "seeds": ["a"]}, "oracle": "sh -c id"}"#),
        ("POST", "/api/v1/execute", json, r#"{"plan": {"instruction": "x", "seeds": ["a"]}, "oracle_command": "id"}"#),
        ("POST", "/api/v1/execute", json, r#"{"plan": {"instruction": "x", "seeds": ["a"]}, "rounds": 11}"#),
        ("POST", "/api/v1/execute", json, r#"{"plan": {"instruction": "x", "seeds": ["a"]}, "editor": "human"}"#),
        ("POST", "/api/v1/context", json, r#"{"task": " "}"#),
        ("POST", "/api/v1/context", json, r#"{"task": "x", "budget": 100}"#),
        ("POST", "/api/v1/context", json, r#"{"task": "x", "tokenizer": "gpt2"}"#),
        ("POST", "/api/v1/map", json, r#"{"budget": 8}"#),
        ("POST", "/api/v1/map", json, r#"{"focus": "login"}"#),
        ("POST", "/api/v1/map", json, r#"{"focus": ["no/such/place"]}"#),
        ("POST", "/api/v1/ask", json, r#"{"question": " "}"#),
        ("POST", "/api/v1/ask", json, r#"{"question": "x", "k": 0}"#),
        ("POST", "/api/v1/ask", json, r#"{"question": "x", "max_tokens": 100000}"#),
        ("POST", "/api/v1/ask", json, r#"{"question": "x", "budget_tokens": 1}"#),
        ("POST", "/api/v1/ask", json, r#"{"question": "x", "retrieval": "psychic"}"#),
        ("POST", "/api/v1/ask", json, r#"{"query": "x"}"#),
        ("POST", "/api/v1/plan-search", json, r#"{"request": " "}"#),
        ("POST", "/api/v1/plan-search", json, r#"{"request": "x", "expansions": 33}"#),
        ("POST", "/api/v1/plan-search", json, r#"{"request": "x", "max_steps": 0}"#),
        ("POST", "/api/v1/plan-search", json, r#"{"query": "x"}"#),
        ("POST", "/api/v1/search", json, r#"{"query": "x", "query_expansion": "psychic"}"#),
        ("POST", "/api/v1/hybrid-search", json, r#"{"query": "x", "titles": "poetic"}"#),
        ("POST", "/api/v1/index", json, r#"{"intents": "yes"}"#),
        ("GET", "/api/v1/symbols?name=", None, ""),
        ("GET", "/api/v1/symbols?name=login&limit=0", None, ""),
        ("GET", "/api/v1/symbols?name=login&limit=lots", None, ""),
        ("GET", "/api/v1/symbols?name=login&kind=gizmo", None, ""),
        ("GET", "/api/v1/symbols?nmae=login", None, ""),
        ("GET", "/api/v1/symbol?symbol=no_such_symbol", None, ""),
        ("GET", "/api/v1/graph/callers?symbol=login&depth=0", None, ""),
        ("GET", "/api/v1/graph/ancestors?symbol=login", None, ""),
        ("GET", "/api/v1/graph/callers", None, ""),
        ("GET", "/api/v1/graph/overrides?symbol=auth.users.User", None, ""),
        ("GET", "/api/v1/path?from=login", None, ""),
        ("GET", "/api/v1/path?from=login&to=sign&max_depth=99", None, ""),
        ("GET", "/api/v1/path?from=login&to=no_such_symbol", None, ""),
        ("GET", "/api/v1/untested?limit=0", None, ""),
        ("POST", "/api/v1/eval", json, r#"{"queries": 0}"#),
        ("POST", "/api/v1/eval", json, r#"{"compare": ["rrf_k = -1"]}"#),
        ("POST", "/api/v1/eval", json, r#"{"lsp": true}"#),
        ("GET", "/api/v1/untested?limt=5", None, ""),
        ("POST", "/api/v1/index", json, r#"{"rebuild": "yes"}"#),
        ("GET", "/api/v1/hybrid-search", None, ""),
        ("DELETE", "/api/v1/status", None, ""),
        ("GET", "/api/v2/everything", None, ""),
    ];
    let mut out = String::new();
    for (method, path, content_type, body) in cases {
        let (status, v) = server.call(method, path, *content_type, body);
        let e = &v["error"];
        let shown = if body.len() > 60 { format!("{}…", &body[..40]) } else { body.to_string() };
        out.push_str(&format!(
            "{method} {path} {shown}\n  {status} {} {}\n",
            e["code"].as_str().unwrap_or("?"),
            e["field"].as_str().unwrap_or("-")
        ));
    }
    expect![[r#"
        POST /api/v1/hybrid-search {"query": "x", "top_k": 0}
          400 invalid_field top_k
        POST /api/v1/hybrid-search {"query": "x", "top_k": 101}
          400 invalid_field top_k
        POST /api/v1/hybrid-search {"query": "x", "top_k": -3}
          400 invalid_field top_k
        POST /api/v1/hybrid-search {"query": "x", "top_k": "ten"}
          400 invalid_field top_k
        POST /api/v1/hybrid-search {"query": "x", "surprise": 1}
          400 invalid_field surprise
        POST /api/v1/hybrid-search {"query": "x", "config_overrides": {"ran…
          400 invalid_field config_overrides.ranking_weights.w1
        POST /api/v1/hybrid-search {"query": "x", "config_overrides": {"ran…
          400 invalid_field config_overrides.ranking_weights
        POST /api/v1/hybrid-search {"query": "x", "config_overrides": {"ran…
          400 invalid_json -
        POST /api/v1/hybrid-search {"query": "x", "config_overrides": {"ran…
          400 invalid_field config_overrides.ranking_weights.w2
        POST /api/v1/hybrid-search {"query": "x", "config_overrides": {"max_graph_depth": 6}}
          400 invalid_field config_overrides.max_graph_depth
        POST /api/v1/hybrid-search {"query": "x", "config_overrides": {"clu…
          400 invalid_field config_overrides.clustering_resolution
        POST /api/v1/hybrid-search {"query": "x", "config_overrides": {"clu…
          400 invalid_field config_overrides.clustering_resolution
        POST /api/v1/hybrid-search {"query": "x", "config_overrides": {"expansion": "psychic"}}
          400 invalid_field config_overrides.expansion
        POST /api/v1/hybrid-search {"query": "x", "config_overrides": {"depth": 1}}
          400 invalid_field config_overrides.depth
        POST /api/v1/hybrid-search {"query": "x", "languages": ["klingon"]}
          400 invalid_field languages
        POST /api/v1/hybrid-search {"query": "   "}
          400 invalid_field query
        POST /api/v1/hybrid-search {"query": "the of and"}
          400 invalid_field query
        POST /api/v1/hybrid-search {"top_k": 3}
          400 invalid_field query
        POST /api/v1/hybrid-search {"query": "x"
          400 invalid_json -
        POST /api/v1/hybrid-search [1, 2]
          400 invalid_field [0]
        POST /api/v1/hybrid-search {"query": "x"} trailing
          400 invalid_json -
        POST /api/v1/hybrid-search {"query": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxx…
          413 too_large -
        POST /api/v1/hybrid-search {"query": "x"}
          415 unsupported_media_type -
        POST /api/v1/hybrid-search {"query": "x"}
          415 unsupported_media_type -
        POST /api/v1/search {"query": "x", "k": 0}
          400 invalid_field k
        POST /api/v1/search {"query": "x", "mode": "psychic"}
          400 invalid_field mode
        POST /api/v1/search {"query": "x", "path": "[z-a]"}
          400 invalid_field path
        POST /api/v1/search {"query": "x", "ranking": {"file_decay": 1.5}}
          400 invalid_field ranking.file_decay
        POST /api/v1/locate {"report": "  "}
          400 invalid_field report
        POST /api/v1/locate {"report": "x", "k": 0}
          400 invalid_field k
        POST /api/v1/locate {"report": "x", "weights": {"title": -1}}
          400 invalid_field weights.title
        POST /api/v1/locate {"report": "x", "weights": {"lanes": 2}}
          400 invalid_field weights.lanes
        POST /api/v1/locate {"query": "x"}
          400 invalid_field query
        POST /api/v1/locate {"report": "x", "rerank": "gpt"}
          400 invalid_field rerank
        POST /api/v1/impact {"rev": "--output=x"}
          400 invalid_field rev
        POST /api/v1/impact {"paths": ["../outside.py"]}
          400 invalid_field paths
        POST /api/v1/impact {"depth": 9}
          400 invalid_field depth
        POST /api/v1/impact {"staged": true, "files": [{"path": "a.p…
          400 invalid_field files
        POST /api/v1/impact {"files": [{"path": "a.py", "before": ""}]}
          400 invalid_field files[0].after
        POST /api/v1/plan {"instruction": "x"}
          400 invalid_field seeds
        POST /api/v1/plan {"instruction": " ", "seeds": ["a"]}
          400 invalid_field instruction
        POST /api/v1/plan {"instruction": "x", "seeds": ["a"], "assume": "ZZ"}
          400 invalid_field assume
        POST /api/v1/plan {"instruction": "x", "seed_diff": {"depth": 0}}
          400 invalid_field depth
        POST /api/v1/execute {"plan": {"instruction": "x", "seeds": […
          400 invalid_field oracle
        POST /api/v1/execute {"plan": {"instruction": "x", "seeds": […
          400 invalid_field oracle_command
        POST /api/v1/execute {"plan": {"instruction": "x", "seeds": ["a"]}, "rounds": 11}
          400 invalid_field rounds
        POST /api/v1/execute {"plan": {"instruction": "x", "seeds": […
          400 invalid_field editor
        POST /api/v1/context {"task": " "}
          400 invalid_field task
        POST /api/v1/context {"task": "x", "budget": 100}
          400 invalid_field budget
        POST /api/v1/context {"task": "x", "tokenizer": "gpt2"}
          400 invalid_field tokenizer
        POST /api/v1/map {"budget": 8}
          400 invalid_field budget
        POST /api/v1/map {"focus": "login"}
          400 invalid_field focus
        POST /api/v1/map {"focus": ["no/such/place"]}
          400 invalid_field focus
        POST /api/v1/ask {"question": " "}
          400 invalid_field question
        POST /api/v1/ask {"question": "x", "k": 0}
          400 invalid_field k
        POST /api/v1/ask {"question": "x", "max_tokens": 100000}
          400 invalid_field max_tokens
        POST /api/v1/ask {"question": "x", "budget_tokens": 1}
          400 invalid_field budget_tokens
        POST /api/v1/ask {"question": "x", "retrieval": "psychic"}
          400 invalid_field retrieval
        POST /api/v1/ask {"query": "x"}
          400 invalid_field query
        POST /api/v1/plan-search {"request": " "}
          400 invalid_field request
        POST /api/v1/plan-search {"request": "x", "expansions": 33}
          400 invalid_field expansions
        POST /api/v1/plan-search {"request": "x", "max_steps": 0}
          400 invalid_field max_steps
        POST /api/v1/plan-search {"query": "x"}
          400 invalid_field query
        POST /api/v1/search {"query": "x", "query_expansion": "psychic"}
          400 invalid_field query_expansion
        POST /api/v1/hybrid-search {"query": "x", "titles": "poetic"}
          400 invalid_field titles
        POST /api/v1/index {"intents": "yes"}
          400 invalid_field intents
        GET /api/v1/symbols?name= 
          400 invalid_field name
        GET /api/v1/symbols?name=login&limit=0 
          400 invalid_field limit
        GET /api/v1/symbols?name=login&limit=lots 
          400 invalid_field limit
        GET /api/v1/symbols?name=login&kind=gizmo 
          400 invalid_field kind
        GET /api/v1/symbols?nmae=login 
          400 invalid_field nmae
        GET /api/v1/symbol?symbol=no_such_symbol 
          404 not_found symbol
        GET /api/v1/graph/callers?symbol=login&depth=0 
          400 invalid_field depth
        GET /api/v1/graph/ancestors?symbol=login 
          404 not_found -
        GET /api/v1/graph/callers 
          400 invalid_field symbol
        GET /api/v1/graph/overrides?symbol=auth.users.User 
          400 invalid_field symbol
        GET /api/v1/path?from=login 
          400 invalid_field to
        GET /api/v1/path?from=login&to=sign&max_depth=99 
          400 invalid_field max_depth
        GET /api/v1/path?from=login&to=no_such_symbol 
          404 not_found to
        GET /api/v1/untested?limit=0 
          400 invalid_field limit
        POST /api/v1/eval {"queries": 0}
          400 invalid_field queries
        POST /api/v1/eval {"compare": ["rrf_k = -1"]}
          400 invalid_field compare
        POST /api/v1/eval {"lsp": true}
          400 invalid_field lsp
        GET /api/v1/untested?limt=5 
          400 invalid_field limt
        POST /api/v1/index {"rebuild": "yes"}
          400 invalid_field rebuild
        GET /api/v1/hybrid-search 
          405 method_not_allowed -
        DELETE /api/v1/status 
          405 method_not_allowed -
        GET /api/v2/everything 
          404 not_found -
    "#]]
    .assert_eq(&out);
    // The server is still fine.
    assert_eq!(server.get("/health").0, 200);
}

/// Mutation fuzzing of request bodies: valid requests cut, spliced and
/// salted with JSON's own characters. Every answer is JSON, with 200 or a
/// 4xx, never a 5xx or a dropped connection.
#[test]
fn mutated_request_bodies_get_json_answers() {
    let repo = shop();
    let server = Server::start(&repo, &[]);
    let valid = [
        (
            "/api/v1/hybrid-search",
            r#"{"query": "user authentication flow", "top_k": 2, "config_overrides": {"ranking_weights": {"w1": 0.5, "w2": 0.3, "w3": 0.2}, "max_graph_depth": 2, "clustering_resolution": 1.0}}"#,
        ),
        (
            "/api/v1/search",
            r#"{"query": "validate token", "k": 3, "mode": "lexical", "languages": ["python"], "kinds": ["function"], "path": "auth/**"}"#,
        ),
    ];
    const SALT: &[&str] =
        &["{", "}", "[", "]", "\"", ":", ",", "-1", "1e400", "null", "true", "\\u0000", "é", "🦀", "…", " ", "0", "99999999999999999999"];
    let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
    let mut next = move |n: usize| rng.below(n);
    let floor = |text: &str, mut at: usize| {
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    let mut answers = std::collections::BTreeMap::new();
    for (path, body) in valid {
        for _ in 0..150 {
            let mut text = body.to_string();
            for _ in 0..1 + next(3) {
                let a = floor(&text, next(text.len() + 1));
                let b = floor(&text, next(text.len() + 1));
                let (lo, hi) = (a.min(b), a.max(b));
                text = match next(3) {
                    0 => format!("{}{}", &text[..lo], &text[hi..]),
                    1 => format!("{}{}{}", &text[..hi], &text[lo..hi], &text[hi..]),
                    _ => format!("{}{}{}", &text[..a], SALT[next(SALT.len())], &text[a..]),
                };
            }
            // `post` fails the test on a body that is not JSON.
            let (status, v) = server.post(path, &text);
            assert!(status == 200 || (400..500).contains(&status), "{status} for {text}: {v}");
            *answers.entry(status).or_insert(0) += 1;
        }
    }
    assert!(answers.keys().any(|&s| s >= 400), "{answers:?}");
}

#[test]
fn symbols_graph_status_and_openapi() {
    let repo = shop();
    let server = Server::start(&repo, &[]);
    let (status, v) = server.get("/api/v1/symbols?name=token&limit=3");
    assert_eq!(status, 200);
    let names: Vec<&str> = v.as_array().unwrap().iter().map(|s| s["qualified_name"].as_str().unwrap()).collect();
    expect!["auth.handler.token_subject auth.tokens auth.tokens.issue_token"].assert_eq(&names.join(" "));

    let (status, v) = server.get("/api/v1/symbol?symbol=auth.tokens.issue_token");
    assert_eq!(status, 200);
    expect![[r#"
        def issue_token(user):
            """A signed session token for a user."""
            body = f"{user.name}.{user.id}"
            return body + "." + sign(body)"#]]
    .assert_eq(v["code"].as_str().unwrap());

    let (status, v) = server.get("/api/v1/graph/callers?symbol=auth.tokens.sign&depth=2");
    assert_eq!(status, 200);
    let callers: Vec<String> = v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| format!("{} {}", h["depth"], h["symbol"]["qualified_name"].as_str().unwrap()))
        .collect();
    expect![[r#"
        1 auth.tokens.validate_token
        1 auth.tokens.issue_token
        2 auth.handler.authenticate
        2 auth.handler.login"#]]
    .assert_eq(&callers.join("\n"));

    let (status, v) = server.get("/api/v1/path?from=auth.handler.login&to=sign");
    assert_eq!(status, 200, "{v}");
    let hops: Vec<String> = v["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| format!("{} {}", h["relation"].as_str().unwrap(), h["symbol"]["qualified_name"].as_str().unwrap()))
        .collect();
    expect![[r#"
        Calls auth.tokens.issue_token
        Calls auth.tokens.sign"#]]
    .assert_eq(&hops.join("\n"));
    let (status, v) = server.get("/api/v1/path?from=auth.tokens.sign&to=login");
    assert_eq!((status, &v["path"]), (200, &serde_json::Value::Null), "sign does not reach login: {v}");
    let (status, v) = server.get("/api/v1/untested?limit=2");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["symbols"].as_array().unwrap().len(), 2, "{v}");
    assert!(v["total"].as_u64().unwrap() >= 2, "{v}");

    let (status, v) = server.get("/api/v1/status");
    assert_eq!(status, 200);
    assert_eq!(v["stats"]["files"], 5);
    assert_eq!(server.get("/ready").0, 200);

    let (status, doc) = server.get("/openapi.json");
    assert_eq!(status, 200);
    assert_eq!(doc["openapi"], "3.1.0");
    let paths: Vec<&str> = doc["paths"].as_object().unwrap().keys().map(String::as_str).collect();
    expect![[r#"
        /health
        /mcp
        /ready
        /openapi.json
        /api/v1/hybrid-search
        /api/v1/search
        /api/v1/locate
        /api/v1/impact
        /api/v1/plan
        /api/v1/execute
        /api/v1/context
        /api/v1/map
        /api/v1/ask
        /api/v1/eval
        /api/v1/plan-search
        /api/v1/symbols
        /api/v1/symbol
        /api/v1/graph/{relation}
        /api/v1/path
        /api/v1/untested
        /api/v1/status
        /api/v1/index
        /api/v1/index/cancel"#]]
    .assert_eq(&paths.join("\n"));
    // Every schema reference resolves.
    let text = doc.to_string();
    for reference in text.split("\"$ref\":\"#/components/schemas/").skip(1) {
        let name = reference.split('"').next().unwrap();
        assert!(doc["components"]["schemas"].get(name).is_some(), "dangling $ref {name}");
    }
}

/// The server's `/mcp`: the same tools as `ken mcp`, over streamable HTTP,
/// for the official Python SDK's client.
#[test]
fn the_server_answers_mcp_over_http() {
    let repo = shop();
    let server = Server::start(&repo, &[]);
    let calls = serde_json::json!({
        "search": {"query": "issue_token", "k": 3},
        "callers": {"symbol": "auth.tokens.sign"},
        "outline": {"path": "auth/users.py"},
    });
    let report = support::mcp_http_client(&format!("{}/mcp", server.base), None, &calls);
    assert_eq!(report["server"], "kenning", "{report}");
    assert!(report["tools"].as_object().unwrap().len() > 20, "{report}");
    for (name, holds) in [("search", "auth.tokens.issue_token"), ("callers", "validate_token"), ("outline", "auth.users.UserStore")] {
        let call = &report["calls"][name];
        assert_eq!(call["is_error"], false, "{name}: {call}");
        assert!(call["text"].as_str().unwrap().contains(holds), "{name} answered without `{holds}`: {call}");
    }
}

#[test]
fn reindex_through_the_server() {
    let repo = shop();
    let server = Server::start(&repo, &[]);
    repo.write(
        "auth/audit.py",
        "def record_login_attempt(user):\n    \"\"\"Write a login attempt to the audit log.\"\"\"\n    return user\n",
    );
    let (status, v) = server.post("/api/v1/index", r#"{"no_embed": true}"#);
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["changes"]["added"], 1, "{v}");
    let (status, v) = server.post("/api/v1/search", r#"{"query": "record_login_attempt", "k": 1}"#);
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["hits"][0]["qualified_name"], "auth.audit.record_login_attempt");
}

#[test]
fn serve_without_an_index_says_what_to_do() {
    let repo = Repo::new("//- a.py\nx = 1\n");
    let out = ken_command(repo.path(), &["serve", "--addr", "127.0.0.1:0"]).output().unwrap();
    assert!(!out.status.success());
    let message = String::from_utf8_lossy(&out.stderr).replace(&repo.path().display().to_string(), "$REPO");
    expect!["error: no index in $REPO/.kenning; run `ken index` in the repository first (or pass --index-dir)"].assert_eq(message.trim());
    stdout(&repo.ken(&["index", "--quiet"]));
    let out = ken_command(repo.path(), &["serve", "--addr", "not-an-address"]).output().unwrap();
    expect!["error: --addr must be an address with a port, e.g. 127.0.0.1:7878 (got `not-an-address`)"]
        .assert_eq(String::from_utf8_lossy(&out.stderr).trim());
}

/// A copy of a pinned PyPI package to change files in.
fn copy_of(corpus: &std::path::Path) -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("cp").arg("-r").arg(format!("{}/.", corpus.display())).arg(copy.path()).status().unwrap();
    assert!(status.success());
    copy
}

/// The server reindexes in its own process: searches during the reindex
/// keep the dense and BM25 lanes (no names-only answers, no waiting for a
/// lock), and the change is found afterwards. A search counts as "during"
/// when the server said it was reindexing both before and after it; rounds
/// of changes repeat until twenty such searches were made, so the test
/// asks nothing of the machine's speed.
#[test]
fn searches_during_a_reindex_keep_every_lane() {
    let repo = copy_of(&pypi_corpus("requests", "2.32.3"));
    let summary = json(&ken_embed_in(repo.path(), &["index", ".", "--json"]));
    assert!(summary["vectors"]["embed"]["embedded"].as_u64().unwrap() > 0, "{summary}");
    let server = std::sync::Arc::new(Server::start_in(repo.path(), &[], true));
    let reindexing = |server: &Server| server.get("/api/v1/status").1["reindexing"] == true;
    let mut during = 0;
    for round in 0..50 {
        if during >= 20 {
            break;
        }
        // Every module changes, so the run mines, links and embeds again.
        for entry in std::fs::read_dir(repo.path().join("requests")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "py") {
                let text = std::fs::read_to_string(&path).unwrap();
                std::fs::write(&path, format!("# round {round}\n{text}")).unwrap();
            }
        }
        let writer = server.clone();
        let reindex = std::thread::spawn(move || writer.post("/api/v1/index", "{}"));
        while !reindex.is_finished() {
            let before = reindexing(&server);
            let (status, v) = server.post("/api/v1/search", r#"{"query": "how are redirects resolved", "k": 10}"#);
            let after = reindexing(&server);
            assert_eq!(status, 200, "{v}");
            if !(before && after) {
                continue;
            }
            during += 1;
            let hits = v["hits"].as_array().unwrap();
            assert!(hits.iter().any(|h| h["lanes"]["dense"].is_u64()), "no dense lane during the reindex: {v}");
            assert!(hits.iter().any(|h| h["lanes"]["sparse"].is_u64()), "no BM25 lane during the reindex: {v}");
            // Progress notes ("embeddings are 48% done") are fine; a lane
            // switched off or a wait for a lock is not.
            let notes = v["notes"].to_string();
            assert!(!notes.contains("lane off") && !notes.contains("names") && !notes.contains("wait"), "{v}");
        }
        let (status, v) = reindex.join().unwrap();
        assert_eq!(status, 200, "{v}");
    }
    assert!(during >= 20, "only {during} searches ran during reindexes");

    std::fs::write(
        repo.path().join("requests/audit.py"),
        "def record_redirect_hop(url):\n    \"\"\"Remember one hop of a redirect chain.\"\"\"\n    return url\n",
    )
    .unwrap();
    let (status, v) = server.post("/api/v1/index", "{}");
    assert_eq!(status, 200, "{v}");
    let (_, v) = server.post("/api/v1/search", r#"{"query": "record_redirect_hop", "k": 1}"#);
    assert_eq!(v["hits"][0]["qualified_name"], "requests.audit.record_redirect_hop", "{v}");
    assert!(v["hits"][0]["lanes"]["dense"].is_u64(), "the new symbol is embedded: {v}");
}

/// One index, three surfaces. While `ken serve` holds the index, `ken search
/// --json` is answered by it over the local socket: the same hits as the
/// HTTP API, scores and lanes included, with the dense lane and no note of
/// a lane off (a second process would wait for the shard the server holds).
/// A killed server leaves a stale socket, which the next search removes
/// before opening the index itself. Then `ken mcp` holds the index: its
/// search tool, and the CLI through it, rank as the HTTP API did.
#[test]
fn every_surface_gives_the_same_answer() {
    let repo = copy_of(&pypi_corpus("requests", "2.32.3"));
    stdout(&ken_embed_in(repo.path(), &["index", ".", "-q"]));
    let queries = [
        "how are redirects resolved",
        "Session.send",
        "parse proxy settings from the environment",
        "HTTPAdapter",
        "what happens when a request times out",
        "merge cookies into a cookie jar",
        "get_encoding_from_headers",
        "basic authentication header",
        "retry on connection errors",
        "encode files for a multipart body",
    ];
    let ranking = |v: &serde_json::Value| -> Vec<String> {
        let hits = v["hits"].as_array().unwrap_or_else(|| panic!("no hits: {v}"));
        hits.iter().map(|h| format!("{} {}:{}", h["qualified_name"], h["path"], h["start_line"])).collect()
    };
    let cli = |query: &str| {
        let out = ken_embed_in(repo.path(), &["search", query, "--json", "-k", "10"]);
        (json(&out), String::from_utf8_lossy(&out.stderr).to_string())
    };
    let socket = repo.path().join(".kenning/ken.sock");

    let server = Server::start_in(repo.path(), &[], true);
    assert!(socket.exists(), "ken serve makes its socket before it listens");
    let mut served = Vec::new();
    for query in queries {
        let (status, http) = server.post("/api/v1/search", &serde_json::json!({"query": query, "k": 10}).to_string());
        assert_eq!(status, 200, "{http}");
        let (answer, stderr) = cli(query);
        assert_eq!(answer["hits"], http["hits"], "{query}");
        assert!(answer["hits"].as_array().unwrap().iter().any(|h| h["lanes"]["dense"].is_u64()), "{query}: {answer}");
        assert!(!stderr.contains("lane off") && !stderr.contains("names only"), "{query}: {stderr}");
        served.push(ranking(&http));
    }
    drop(server);
    assert!(socket.exists(), "a killed server cannot remove its socket");
    let (alone, _) = cli(queries[0]);
    assert!(!socket.exists(), "the stale socket is removed");
    assert_eq!(ranking(&alone), served[0]);

    let mut mcp = support::McpSession::start(repo.path(), true);
    assert!(socket.exists(), "ken mcp makes its socket too");
    for (query, expected) in queries.iter().zip(&served) {
        let answer = mcp.answer("search", serde_json::json!({"query": query, "k": 10}));
        assert_eq!(&ranking(&answer), expected, "{query} over MCP");
        let (answer, stderr) = cli(query);
        assert_eq!(&ranking(&answer), expected, "{query} from the CLI through ken mcp");
        assert!(!stderr.contains("lane off"), "{query}: {stderr}");
    }
}

/// A running reindex can be cancelled: it stops after its current batch and
/// answers 409 `cancelled`; the server goes on answering, and the next
/// reindex finishes the job (every point embedded, the dense lane back).
/// Rounds repeat (each a rebuild, so each embeds from scratch) until a
/// cancel lands inside a run, so the test asks nothing of the machine's speed.
#[test]
fn a_reindex_can_be_cancelled_and_the_next_one_finishes() {
    let repo = copy_of(&pypi_corpus("requests", "2.32.3"));
    stdout(&support::ken_in(repo.path(), &["index", ".", "-q"]));
    let server = std::sync::Arc::new(Server::start_in(repo.path(), &[], true));
    let mut cancelled = None;
    for _ in 0..5 {
        let writer = server.clone();
        let reindex = std::thread::spawn(move || writer.post("/api/v1/index", r#"{"rebuild": true}"#));
        while !reindex.is_finished() && server.get("/api/v1/status").1["reindexing"] != true {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let (status, cancel) = server.post("/api/v1/index/cancel", "");
        assert_eq!(status, 200, "{cancel}");
        let answer = reindex.join().unwrap();
        if cancel["cancelled"] == true && answer.0 == 409 {
            cancelled = Some(answer.1);
            break;
        }
    }
    let answer = cancelled.expect("a cancel landed inside a reindex in five rounds");
    assert_eq!(answer["error"]["code"], "cancelled", "{answer}");
    let (status, v) = server.post("/api/v1/search", r#"{"query": "Session.send", "k": 3}"#);
    assert_eq!(status, 200, "the server answers after a cancel: {v}");

    let (status, v) = server.post("/api/v1/index", "{}");
    assert_eq!(status, 200, "{v}");
    let embeddings = &server.get("/api/v1/status").1["embeddings"];
    assert!(embeddings["symbols"].as_u64() > Some(0), "{embeddings}");
    assert_eq!(embeddings["symbols"], embeddings["symbols_embedded"], "{embeddings}");
    assert_eq!(embeddings["chunks"], embeddings["chunks_embedded"], "{embeddings}");
    let (_, v) = server.post("/api/v1/search", r#"{"query": "how are redirects resolved", "k": 5}"#);
    assert!(v["hits"].as_array().unwrap().iter().any(|h| h["lanes"]["dense"].is_u64()), "{v}");
    assert_eq!(server.post("/api/v1/index/cancel", "").1["cancelled"], false, "nothing runs now");
}
