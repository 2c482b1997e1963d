//! MutaGReP's plan search, the model's half: given a feature request and a
//! plan whose steps are grounded in the repository's symbols, propose a
//! successor plan (the steps rewritten, split, merged, added or dropped).
//! The search and the grounding live in the engine.

use crate::{ChatRequest, Completion, LlmError, Message, Result, Role, list_schema};
use serde_json::json;

/// One step of the plan shown to the model, with the symbols retrieval
/// found for it (qualified names) and how well they fit (0 to 1).
#[derive(Clone, Debug, PartialEq)]
pub struct ShownStep<'a> {
    pub intent: &'a str,
    pub symbols: Vec<&'a str>,
    pub score: f32,
}

const SYSTEM: &str = "You plan changes to a code repository. A plan is a list of steps; each step is one thing to do, \
written as \"I want to ...\", small enough that one function of the repository could do it. Given a feature request \
and, when there is one, the current plan with the repository functions found for each step and how well they fit \
(0 to 1), answer with a better plan: keep steps that fit, reword or split steps that fit poorly, add missing steps. \
Answer with JSON.";
const EXAMPLE: &str = "Feature request: retry failed downloads with a delay\nCurrent plan:\n\
1. I want to download a file (fit 0.62: http.fetch, http.Session.get)\n\
2. I want to wait (fit 0.21: cli.progress.Spinner)";
const EXAMPLE_ANSWER: &str = r#"{"steps":["I want to download a file over HTTP","I want to know whether a download failed","I want to wait before trying again","I want to try the download again a limited number of times"]}"#;
const STEP_PATTERN: &str = r#"^I want to [a-z][^"\\\n]{4,90}$"#;

/// The request for a successor of `current` (empty: the first plan).
/// `variant` tells sibling successors apart (their prompts, and so their
/// samples and cache entries, differ).
pub fn request(feature: &str, current: &[ShownStep<'_>], max_steps: usize, variant: usize) -> ChatRequest {
    let schema = list_schema("steps", json!({"type": "string", "pattern": STEP_PATTERN}), 1, max_steps.max(1));
    let mut ask = format!("Feature request: {}\n", feature.trim());
    if current.is_empty() {
        ask.push_str("Current plan: none yet");
    } else {
        ask.push_str("Current plan:");
        for (i, step) in current.iter().enumerate() {
            let found = if step.symbols.is_empty() { "nothing found".to_string() } else { step.symbols.join(", ") };
            ask.push_str(&format!("\n{}. {} (fit {:.2}: {found})", i + 1, step.intent, step.score));
        }
    }
    if variant > 0 {
        ask.push_str(&format!("\nWrite alternative plan number {}.", variant + 1));
    }
    let messages = vec![
        Message::system(SYSTEM),
        Message::user(EXAMPLE),
        Message { role: Role::Assistant, content: EXAMPLE_ANSWER.into() },
        Message::user(ask),
    ];
    let mut request = ChatRequest::new(messages).max_tokens(max_steps.max(1) * 34 + 20).schema(schema);
    // Siblings sample; the first successor is greedy.
    request.temperature = if variant == 0 { 0.0 } else { 0.7 };
    request
}

/// The steps of a completion: trimmed, without repeats.
pub fn parse(completion: &Completion) -> Result<Vec<String>> {
    let mut steps: Vec<String> = Vec::new();
    for text in completion.strings("steps")? {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let text = text.trim_end_matches(['.', ',', ';']).to_string();
        if text.len() > "I want to ".len() + 2 && !steps.iter().any(|s| s.eq_ignore_ascii_case(&text)) {
            steps.push(text);
        }
    }
    if steps.is_empty() {
        return Err(LlmError::Structure(format!("no steps in {}", completion.text)));
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_current_plan_is_shown_with_its_grounding() {
        let current = [
            ShownStep { intent: "I want to read the config", symbols: vec!["cfg.load"], score: 0.71 },
            ShownStep { intent: "I want to fly", symbols: vec![], score: 0.0 },
        ];
        let request = request("reload the config on SIGHUP", &current, 5, 1);
        expect_test::expect![[r#"
            Feature request: reload the config on SIGHUP
            Current plan:
            1. I want to read the config (fit 0.71: cfg.load)
            2. I want to fly (fit 0.00: nothing found)
            Write alternative plan number 2."#]]
        .assert_eq(&request.messages.last().unwrap().content);
        assert_eq!(request.temperature, 0.7);
    }

    #[test]
    fn steps_are_trimmed_and_unique() {
        let completion = Completion::of_text(r#"{"steps":["I want to  read it.","I want to read it","I want to x"]}"#);
        assert_eq!(parse(&completion).unwrap(), vec!["I want to read it"]);
    }
}
