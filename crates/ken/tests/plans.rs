//! MutaGReP's plan search and CodexLens's cluster titles end to end, with
//! the embedded model (SmolLM2 from PyPI) over a real embedded index.

mod support;

use expect_test::expect;
use support::{Repo, json};

const SIGNUP: &str = r#"
//- accounts/mail.py
def send_welcome_email(user, smtp):
    """Greets a new user by mail."""
    smtp.sendmail("noreply@example.com", [user.email], f"Hello {user.name}")
//- accounts/limits.py
class RateLimiter:
    """Allows at most `rate` calls per second."""

    def acquire(self):
        if self.tokens <= 0:
            return False
        self.tokens -= 1
        return True
//- accounts/signup.py
from accounts.mail import send_welcome_email


def register(form, store, smtp):
    """Creates the account from a sign-up form."""
    user = store.create(form.email, form.name)
    send_welcome_email(user, smtp)
    return user
"#;

fn ken(repo: &Repo, envs: &[(&str, &str)], args: &[&str]) -> std::process::Output {
    support::ken_env(repo.path(), envs, args)
}

#[test]
fn plan_search_grounds_the_models_steps_in_the_code() {
    let repo = Repo::new(SIGNUP);
    assert!(ken(&repo, &[], &["index", "-q"]).status.success());
    let out =
        ken(&repo, &[], &["plan-search", "--json", "--expansions", "1", "welcome new users by email and limit how often they sign up"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let response = json(&out);
    assert!(response["model"].as_str().unwrap().starts_with("gguf:SmolLM2-135M-Instruct"), "{response:#}");
    // Two first plans, then two successors of the best: duplicates are not counted.
    let explored = response["explored"].as_u64().unwrap();
    assert!((1..=4).contains(&explored), "{response:#}");
    let plan = &response["plan"];
    let steps = plan["steps"].as_array().unwrap();
    assert!((1..=5).contains(&steps.len()), "{response:#}");
    for step in steps {
        assert!(step["intent"].as_str().unwrap().starts_with("I want to "), "{step:#}");
        let symbols = step["symbols"].as_array().unwrap();
        assert_eq!(symbols.len(), 3, "{step:#}");
        // Best fit first, and the step's score is its best symbol's.
        assert_eq!(step["score"], symbols[0]["score"], "{step:#}");
        assert!(symbols.windows(2).all(|w| w[0]["score"].as_f64() >= w[1]["score"].as_f64()), "{step:#}");
    }
    let mean = steps.iter().map(|s| s["score"].as_f64().unwrap()).sum::<f64>() / steps.len() as f64;
    assert!((plan["score"].as_f64().unwrap() - mean).abs() < 1e-4, "{response:#}");
    let grounded: Vec<&str> = steps.iter().flat_map(|s| s["symbols"].as_array().unwrap()).map(|s| s["path"].as_str().unwrap()).collect();
    assert!(grounded.contains(&"accounts/mail.py"), "{response:#}");

    // The text form: steps, their fit, their symbols.
    let out = ken(&repo, &[], &["plan-search", "--expansions", "1", "welcome new users by email and limit how often they sign up"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("plan for: welcome new users by email"), "{text}");
    assert!(text.contains("\n1. I want to "), "{text}");

    // Without a model: the request itself, grounded, and a note.
    let out = ken(&repo, &[("KEN_LLM", "off")], &["plan-search", "--json", "-k", "2", "send a welcome email"]);
    let response = json(&out);
    assert_eq!(response["plan"]["steps"][0]["intent"], "I want to send a welcome email", "{response:#}");
    assert_eq!(response["plan"]["steps"][0]["symbols"][0]["qualified_name"], "accounts.mail.send_welcome_email", "{response:#}");
    assert!(response["notes"][0].as_str().unwrap().starts_with("no language model:"), "{response:#}");

    // Bad input names the flag's field.
    let out = ken(&repo, &[], &["plan-search", "x", "--branching", "0"]);
    expect![[r#"
        error: `branching` must be between 1 and 4 (got 0)
    "#]]
    .assert_eq(&String::from_utf8(out.stderr).unwrap());
}

#[test]
fn clusters_get_titles_by_the_model_when_asked() {
    let repo = Repo::new(SIGNUP);
    assert!(ken(&repo, &[("KEN_NO_EMBED", "1")], &["index", "-q"]).status.success());
    let envs = [("KEN_NO_EMBED", "1")];
    // Structural titles only, unless asked (no [llm] names a model here).
    let out = ken(&repo, &envs, &["search", "--pipeline", "--json", "register a user"]);
    let response = json(&out);
    assert!(response["results"].as_array().unwrap().iter().all(|c| c.get("llm_title").is_none()), "{response:#}");

    let out = ken(&repo, &envs, &["search", "--titles", "llm", "--json", "register a user"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let response = json(&out);
    let clusters = response["results"].as_array().unwrap();
    assert!(!clusters.is_empty(), "{response:#}");
    for cluster in clusters {
        let title = cluster["llm_title"].as_str().unwrap_or_else(|| panic!("{response:#}"));
        assert!(!title.is_empty() && title.len() <= 60 && !title.contains('\n'), "{title:?}");
        assert!(!cluster["title"].as_str().unwrap().is_empty());
    }
    // The second time from the cache of model calls, and in the text form.
    let out = ken(&repo, &envs, &["search", "--titles", "llm", "register a user"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(&format!("  \"{}\"\n", clusters[0]["llm_title"].as_str().unwrap())), "{text}");

    // Without a model, the structural titles and a note.
    let out = ken(&repo, &[("KEN_NO_EMBED", "1"), ("KEN_LLM", "off")], &["search", "--titles", "llm", "--json", "register a user"]);
    let response = json(&out);
    assert!(response["notes"].to_string().contains("cluster titles by the language model skipped"), "{response:#}");
}
