//! Reranking a bug report's candidate files (Agentless's localization
//! step): the model reads the report and each candidate's path with the
//! functions and classes in it, and names the files the fix most likely
//! changes, likeliest first. Only candidates can be named: the schema lists
//! their numbers, so the model cannot invent a path.

use crate::{ChatRequest, Completion, LlmError, Message, Result, Role, list_schema};
use serde_json::json;

/// Characters of the report shown: its title and opening, where reports
/// say what is wrong; a small model loses the thread in more.
const MAX_REPORT_CHARS: usize = 3_000;
/// Symbols listed per candidate file.
const MAX_SYMBOLS: usize = 6;
/// Files the model may name.
pub const MAX_PICKS: usize = 3;

/// One candidate file, as the model reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate<'a> {
    pub path: &'a str,
    /// Its likeliest functions and classes (qualified names), best first.
    pub symbols: Vec<&'a str>,
}

const SYSTEM: &str = "You find where a bug must be fixed. Given a bug report and numbered candidate files of a \
repository (each with some of its functions and classes), answer with the numbers of the files whose code the fix \
most likely changes, likeliest first. Answer with JSON.";
const EXAMPLE: &str = "Report:\nRedirect loses the Authorization header\nWhen a request is redirected to the same host, \
the Authorization header is dropped.\n\nCandidates:\n1. docs/quickstart.rst\n2. src/requests/sessions.py: \
SessionRedirectMixin.rebuild_auth, Session.send\n3. tests/test_requests.py: test_auth_is_stripped_on_redirect\n\
4. src/requests/auth.py: HTTPBasicAuth.__call__";
const EXAMPLE_ANSWER: &str = r#"{"files":[2,4]}"#;

pub fn request(report: &str, candidates: &[Candidate<'_>]) -> ChatRequest {
    let report: String = report.trim().chars().take(MAX_REPORT_CHARS).collect();
    let listing: Vec<String> = candidates
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let symbols: Vec<&str> = c.symbols.iter().take(MAX_SYMBOLS).copied().collect();
            if symbols.is_empty() { format!("{}. {}", i + 1, c.path) } else { format!("{}. {}: {}", i + 1, c.path, symbols.join(", ")) }
        })
        .collect();
    let numbers: Vec<usize> = (1..=candidates.len()).collect();
    let schema = list_schema("files", json!({"type": "integer", "enum": numbers}), 1, MAX_PICKS.min(candidates.len().max(1)));
    let messages = vec![
        Message::system(SYSTEM),
        Message::user(EXAMPLE),
        Message { role: Role::Assistant, content: EXAMPLE_ANSWER.into() },
        Message::user(format!("Report:\n{report}\n\nCandidates:\n{}", listing.join("\n"))),
    ];
    ChatRequest::new(messages).max_tokens(8 + 4 * MAX_PICKS).schema(schema)
}

/// The candidates the model named (indices into the request's list), in its
/// order, each once; numbers outside the list are dropped.
pub fn parse(completion: &Completion, candidates: usize) -> Result<Vec<usize>> {
    let value = completion.json()?;
    let items = value.get("files").and_then(|v| v.as_array()).ok_or_else(|| LlmError::Structure(completion.text.clone()))?;
    let mut picks = Vec::new();
    for n in items.iter().filter_map(|i| i.as_u64()) {
        let index = n as usize;
        if (1..=candidates).contains(&index) && !picks.contains(&(index - 1)) {
            picks.push(index - 1);
        }
    }
    if picks.is_empty() {
        return Err(LlmError::Structure(format!("no candidate named in {}", completion.text)));
    }
    Ok(picks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    #[test]
    fn picks_are_candidates_in_the_models_order_each_once() {
        let check = |text: &str| format!("{:?}", parse(&Completion::of_text(text), 4).map_err(|_| "error"));
        let lines = [r#"{"files":[3,1]}"#, r#"{"files":[2,2,9,0]}"#, r#"{"files":[]}"#, r#"{"files":"2"}"#, "not json"]
            .map(|t| format!("{t} => {}", check(t)))
            .join("\n");
        expect![[r#"
            {"files":[3,1]} => Ok([2, 0])
            {"files":[2,2,9,0]} => Ok([1])
            {"files":[]} => Err("error")
            {"files":"2"} => Err("error")
            not json => Err("error")"#]]
        .assert_eq(&lines);
    }

    #[test]
    fn the_request_numbers_candidates_and_allows_only_their_numbers() {
        let candidates = [Candidate { path: "a.py", symbols: vec!["a.f", "a.g"] }, Candidate { path: "README.md", symbols: vec![] }];
        let request = request("Title\nbody", &candidates);
        let last = &request.messages.last().unwrap().content;
        expect![[r#"
            Report:
            Title
            body

            Candidates:
            1. a.py: a.f, a.g
            2. README.md"#]]
        .assert_eq(last);
        let schema = request.schema.unwrap();
        assert_eq!(schema["properties"]["files"]["items"]["enum"], json!([1, 2]));
        assert_eq!(schema["properties"]["files"]["maxItems"], json!(2));
    }
}
