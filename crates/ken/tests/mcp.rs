//! `ken mcp`: a real stdio session with the real binary, speaking MCP's
//! newline-delimited JSON-RPC as an agent would.

mod support;

use expect_test::expect;
use ken_test_support::Rng;
use serde_json::{Value, json};
use support::{McpSession as Session, Repo, SHOP, stdout};

#[test]
fn an_agent_session() {
    let repo = Repo::new(SHOP);
    stdout(&repo.ken(&["index", "--quiet"]));
    let mut mcp = Session::start(repo.path(), false);

    let tools = mcp.request("tools/list", json!({}));
    let mut names: Vec<&str> = tools["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    expect![
        "ask callees callers context eval execute find_symbols grep hybrid_search impact index_status locate map outline overrides path plan plan_search refs reindex search subclasses superclasses symbol tests untested"
    ]
    .assert_eq(&names.join(" "));
    for tool in tools["result"]["tools"].as_array().unwrap() {
        assert!(tool["inputSchema"]["type"] == "object", "{tool}");
        assert!(tool["description"].as_str().is_some_and(|d| d.len() > 20), "{tool}");
    }

    let found = mcp.answer("search", json!({"query": "issue_token", "k": 3}));
    assert_eq!(found["hits"][0]["qualified_name"], "auth.tokens.issue_token", "{found}");

    let clusters = mcp.answer("hybrid_search", json!({"query": "user authentication flow", "top_k": 2, "explain": true}));
    assert_eq!(clusters["results"].as_array().unwrap().len(), 2);
    assert!(clusters["results"][0]["symbols"][0]["explain"]["factors"]["text"].is_f64());

    let located = mcp.answer(
        "locate",
        json!({"report": "Login fails\nTraceback (most recent call last):\n  File \"/srv/auth/tokens.py\", line 9, in sign\nValueError: bad key", "k": 2}),
    );
    assert_eq!(located["files"][0]["path"], "auth/tokens.py", "{located}");
    let bad = mcp.call("locate", json!({"report": ""}));
    assert_eq!(bad["error"]["data"]["field"], "report", "{bad}");

    // The embedded model answers; whatever it says, what it cites it was shown.
    let answer = mcp.answer("ask", json!({"question": "How are tokens signed?", "max_tokens": 48}));
    assert!(answer["model"].as_str().is_some_and(|m| m.starts_with("gguf:")), "{answer}");
    let context = answer["context"].as_array().unwrap();
    assert!(context.iter().any(|c| c["path"] == "auth/tokens.py"), "{answer}");
    for citation in answer["citations"].as_array().unwrap() {
        assert!(context.iter().any(|c| c["path"] == citation["path"]), "{citation} is not in the context: {answer}");
    }
    let bad = mcp.call("ask", json!({"question": "x", "k": 500}));
    assert_eq!(bad["error"]["data"]["field"], "k", "{bad}");

    // Plan search: the model's plans, each step grounded in the index.
    let planned = mcp.answer("plan_search", json!({"request": "issue a signed token at login", "expansions": 0, "branching": 1}));
    assert!(planned["model"].as_str().is_some_and(|m| m.starts_with("gguf:")), "{planned}");
    let steps = planned["plan"]["steps"].as_array().unwrap();
    assert!(!steps.is_empty() && steps.iter().all(|s| s["intent"].as_str().unwrap().starts_with("I want to ")), "{planned}");
    assert!(steps.iter().any(|s| !s["symbols"].as_array().unwrap().is_empty()), "{planned}");
    let bad = mcp.call("plan_search", json!({"request": "x", "branching": 9}));
    assert_eq!(bad["error"]["data"]["field"], "branching", "{bad}");

    let symbol = mcp.answer("symbol", json!({"symbol": "auth.passwords.hash_password"}));
    assert!(symbol["code"].as_str().unwrap().starts_with("def hash_password(password):"), "{symbol}");

    let callers = mcp.answer("callers", json!({"symbol": "auth.tokens.sign"}));
    let names: Vec<&str> = callers["hits"].as_array().unwrap().iter().map(|h| h["symbol"]["name"].as_str().unwrap()).collect();
    expect!["validate_token issue_token"].assert_eq(&names.join(" "));
    let callees = mcp.answer("callees", json!({"symbol": "auth.handler.login"}));
    assert!(callees["hits"].as_array().unwrap().iter().any(|h| h["symbol"]["name"] == "issue_token"), "{callees}");
    let refs = mcp.answer("refs", json!({"symbol": "auth.users.UserStore"}));
    assert!(!refs["hits"].as_array().unwrap().is_empty());
    let subclasses = mcp.answer("subclasses", json!({"symbol": "auth.users.User"}));
    assert!(subclasses["hits"].as_array().unwrap().is_empty());
    let status = mcp.answer("index_status", json!({}));
    assert_eq!(status["stats"]["files"], 5);

    // Bad arguments are JSON-RPC errors naming the field; failures are tool errors.
    let bad = mcp.call("hybrid_search", json!({"query": "x", "top_k": 0}));
    assert_eq!(bad["error"]["data"]["field"], "top_k", "{bad}");
    for (tool, args, field) in [
        ("grep", json!({"pattern": "(unclosed"}), "pattern"),
        ("grep", json!({"pattern": "x", "limit": 0}), "limit"),
        ("map", json!({"budget": 1}), "budget"),
    ] {
        let bad = mcp.call(tool, args);
        assert_eq!(bad["error"]["data"]["field"], field, "{tool}: {bad}");
    }
    let missing = mcp.call("outline", json!({"path": "no/such.py"}));
    assert_eq!(missing["result"]["isError"], true, "{missing}");
    let bad = mcp.call("hybrid_search", json!({"query": "x", "config_overrides": {"ranking_weights": {"w1": -1, "w2": 0, "w3": 0}}}));
    assert_eq!(bad["error"]["data"]["field"], "config_overrides.ranking_weights.w1", "{bad}");
    let bad = mcp.call("search", json!({"query": "x", "colour": "blue"}));
    assert_eq!(bad["result"]["isError"], true, "{bad}");
    assert!(bad["result"]["content"][0]["text"].as_str().unwrap().contains("unknown field `colour`"), "{bad}");
    let missing = mcp.call("symbol", json!({"symbol": "no_such_symbol"}));
    assert_eq!(missing["result"]["isError"], true, "{missing}");
    assert!(missing["result"]["content"][0]["text"].as_str().unwrap().contains("no symbol matches"), "{missing}");
    let unknown = mcp.call("teleport", json!({}));
    assert!(unknown["error"].is_object(), "{unknown}");

    // Reindex picks up a new file.
    repo.write("auth/audit.py", "def record_login_attempt(user):\n    return user\n");
    let summary = mcp.answer("reindex", json!({"no_embed": true}));
    assert_eq!(summary["changes"]["added"], 1, "{summary}");
    let found = mcp.answer("find_symbols", json!({"name": "record_login_attempt"}));
    assert_eq!(found[0]["qualified_name"], "auth.audit.record_login_attempt");
}

/// Tool arguments mutated at random, structure-aware: fields dropped, added,
/// or given values of every JSON type and of hostile sizes. Every call gets
/// an answer (a result, a tool error or a JSON-RPC error) and the session
/// lives on to answer a valid call at the end.
#[test]
fn mutated_tool_arguments_get_answers() {
    let repo = Repo::new(SHOP);
    stdout(&repo.ken(&["index", "--quiet"]));
    let mut mcp = Session::start(repo.path(), false);
    let valid = [
        (
            "search",
            json!({"query": "validate token", "k": 3, "mode": "lexical", "languages": ["python"], "kinds": ["function"], "path": "auth/**"}),
        ),
        (
            "hybrid_search",
            json!({"query": "user authentication flow", "top_k": 2, "explain": true, "config_overrides": {"ranking_weights": {"w1": 0.5, "w2": 0.3, "w3": 0.2}, "max_graph_depth": 2}}),
        ),
        ("find_symbols", json!({"name": "token", "limit": 3})),
        ("symbol", json!({"symbol": "auth.tokens.issue_token"})),
        ("callers", json!({"symbol": "auth.tokens.sign"})),
        ("callees", json!({"symbol": "auth.handler.login"})),
        ("refs", json!({"symbol": "auth.users.UserStore"})),
        ("subclasses", json!({"symbol": "auth.users.User"})),
        ("index_status", json!({})),
    ];
    let long = "é".repeat(20_000);
    let values = [
        json!(null),
        json!(true),
        json!(0),
        json!(-1),
        json!(1e300),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(0.5),
        json!(""),
        json!(" "),
        json!("\u{0}"),
        json!("🦀…"),
        json!(long),
        json!("../../etc/passwd"),
        json!("a:b:c"),
        json!("auth/tokens.py:2"),
        json!("**/*"),
        json!("["),
        json!([]),
        json!([1, "x", null]),
        json!({}),
        json!({"w1": "x"}),
        json!(vec!["python"; 500]),
    ];
    let keys = [
        "query",
        "k",
        "top_k",
        "mode",
        "symbol",
        "name",
        "limit",
        "path",
        "languages",
        "kinds",
        "explain",
        "depth",
        "config_overrides",
        "colour",
    ];
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    let mut outcomes = std::collections::BTreeMap::new();
    for round in 0..400 {
        let (tool, arguments) = rng.pick(&valid);
        let mut arguments = arguments.clone();
        for _ in 0..1 + rng.below(3) {
            let object = arguments.as_object_mut().unwrap();
            let present: Vec<String> = object.keys().cloned().collect();
            match rng.below(4) {
                0 if !present.is_empty() => {
                    object.remove(rng.pick(&present));
                }
                1 if !present.is_empty() => {
                    object.insert(rng.pick(&present).clone(), rng.pick(&values).clone());
                }
                2 => {
                    object.insert(rng.pick(&keys).to_string(), rng.pick(&values).clone());
                }
                _ => {
                    // Nested: a value inside an object or array field.
                    if let Some(inner) = object.values_mut().find(|v| v.is_object() || v.is_array()) {
                        match inner {
                            Value::Object(o) => {
                                o.insert(
                                    rng.pick(&["ranking_weights", "w1", "max_graph_depth", "x"]).to_string(),
                                    rng.pick(&values).clone(),
                                );
                            }
                            Value::Array(a) => a.push(rng.pick(&values).clone()),
                            _ => unreachable!(),
                        }
                    }
                }
            }
        }
        let response = mcp.call(tool, arguments.clone());
        let outcome = if response["error"].is_object() {
            assert!(response["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "round {round}: {response}");
            "rpc_error"
        } else if response["result"]["isError"] == json!(true) {
            "tool_error"
        } else {
            let text = response["result"]["content"][0]["text"].as_str();
            assert!(text.is_some_and(|t| serde_json::from_str::<Value>(t).is_ok()), "round {round}, {tool} {arguments}: {response}");
            "ok"
        };
        *outcomes.entry(outcome).or_insert(0) += 1;
    }
    assert!(outcomes.len() == 3, "every kind of answer occurs: {outcomes:?}");
    let found = mcp.answer("search", json!({"query": "issue_token", "k": 3}));
    assert_eq!(found["hits"][0]["qualified_name"], "auth.tokens.issue_token", "{found}");
}

/// The official Python MCP SDK's client (`scripts/test.sh` installs it and
/// names its python in `KEN_TEST_MCP_PYTHON`) lists every tool and calls
/// each one: one line per tool, its arguments and a text its answer holds.
#[test]
fn a_real_mcp_client_lists_and_calls_every_tool() {
    let python =
        std::env::var("KEN_TEST_MCP_PYTHON").expect("KEN_TEST_MCP_PYTHON names a python with the `mcp` SDK; scripts/test.sh installs it");
    let repo = Repo::new(SHOP);
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(repo.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "shop"]);
    stdout(&repo.ken(&["index", "--quiet"]));
    // A change in the working tree, for `impact`.
    let tokens = std::fs::read_to_string(repo.path().join("auth/tokens.py")).unwrap();
    repo.write("auth/tokens.py", tokens.replace("def sign(body):", "def sign(body, key=SECRET):"));
    let cases: &[(&str, Value, &str)] = &[
        ("search", json!({"query": "issue_token", "k": 3}), "auth.tokens.issue_token"),
        ("hybrid_search", json!({"query": "user authentication flow", "top_k": 2}), "auth/"),
        ("locate", json!({"report": "Login fails\n  File \"/srv/auth/tokens.py\", line 9, in sign"}), "auth/tokens.py"),
        ("context", json!({"task": "how are tokens signed", "budget": 1024}), "def sign(body"),
        ("map", json!({"budget": 256, "focus": ["auth/tokens.py"]}), "def issue_token(user)"),
        ("impact", json!({}), "MMS"),
        ("plan", json!({"instruction": "sign with a key", "seeds": ["auth.tokens.sign"], "assume": "MMS"}), "validate_token"),
        ("execute", json!({"plan": {"instruction": "sign with a key", "seeds": ["auth.tokens.sign"], "assume": "MMB"}}), "\"patch\""),
        ("ask", json!({"question": "How are tokens signed?", "max_tokens": 32}), "auth/tokens.py"),
        ("plan_search", json!({"request": "issue a signed token at login", "expansions": 0, "branching": 1}), "I want to "),
        ("find_symbols", json!({"name": "sign"}), "auth.tokens.sign"),
        ("symbol", json!({"symbol": "auth.tokens.sign"}), "def sign(body"),
        ("callers", json!({"symbol": "auth.tokens.sign"}), "validate_token"),
        ("callees", json!({"symbol": "auth.handler.login"}), "issue_token"),
        ("subclasses", json!({"symbol": "auth.users.User"}), "\"hits\""),
        ("refs", json!({"symbol": "auth.users.UserStore"}), "auth/handler.py"),
        ("superclasses", json!({"symbol": "auth.users.User"}), "\"hits\""),
        ("tests", json!({"symbol": "auth.tokens.sign"}), "\"hits\""),
        ("overrides", json!({"symbol": "auth.users.User.check_password"}), "\"hits\""),
        ("path", json!({"from": "auth.handler.login", "to": "auth.tokens.sign"}), "auth.tokens.issue_token"),
        ("untested", json!({"limit": 3}), "\"total\""),
        ("eval", json!({"queries": 3}), "\"docstring\""),
        ("outline", json!({"path": "auth/users.py"}), "auth.users.UserStore"),
        ("grep", json!({"pattern": "def \\w+_token\\(", "path": "auth"}), "\"line\": 16,\n      \"text\": \"def issue_token(user):\""),
        ("index_status", json!({}), "\"files\""),
        ("reindex", json!({"no_embed": true}), "\"files\""),
    ];
    let calls: serde_json::Map<String, Value> = cases.iter().map(|(name, args, _)| (name.to_string(), args.clone())).collect();
    let client = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp_client/client.py");
    let out = std::process::Command::new(&python)
        .args([client, env!("CARGO_BIN_EXE_ken"), repo.path().to_str().unwrap(), &Value::Object(calls).to_string()])
        .env("KEN_CACHE_DIR", support::test_cache_dir())
        .env("KEN_LLM_CACHE_DIR", support::llm_cache_dir())
        .env_remove("KEN_INDEX_DIR")
        .env_remove("KEN_LLM_BASE_URL")
        .output()
        .expect("the MCP client runs");
    assert!(out.status.success(), "the client failed: {}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["server"], "kenning", "{report}");
    let mut listed: Vec<&String> = report["tools"].as_object().unwrap().keys().collect();
    listed.sort();
    let mut called: Vec<String> = cases.iter().map(|c| c.0.to_string()).collect();
    called.sort();
    assert_eq!(listed, called.iter().collect::<Vec<_>>(), "every tool listed has a case here, and no other");
    for (name, tool) in report["tools"].as_object().unwrap() {
        assert!(tool["description"].as_str().unwrap().len() > 40, "{name}: {tool}");
    }
    for (name, _, holds) in cases {
        let call = &report["calls"][*name];
        assert_eq!(call["is_error"], false, "{name}: {call}");
        assert!(call["text"].as_str().unwrap().contains(holds), "{name} answered without `{holds}`: {call}");
    }
}
