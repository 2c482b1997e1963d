//! A cluster's title in words (CodexLens): the model reads the cluster's
//! members (kind, name, file, first line of documentation) and names what
//! they do together. The structural title (the best member and its place)
//! stays beside it.

use crate::{ChatRequest, Completion, LlmError, Message, Result, Role};
use serde_json::json;

/// Members shown to the model, strongest first.
const MAX_MEMBERS: usize = 12;
const MAX_TITLE_CHARS: usize = 60;

/// One member of a cluster, as the model reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Member<'a> {
    pub kind: &'a str,
    pub qualified_name: &'a str,
    pub path: &'a str,
    /// The first line of its docstring, or its signature.
    pub summary: &'a str,
}

const SYSTEM: &str = "You name groups of related code. Given the members of a group, answer with a title of three to \
eight words saying what the code does together, in plain words. Answer with JSON.";
const EXAMPLE: &str = "method Session.send (http/session.py): Send a prepared request.\n\
method Session.merge_environment_settings (http/session.py): Merge proxies and certificates from the environment.\n\
function resolve_redirects (http/redirects.py): Follow the redirects of a response.";
const EXAMPLE_ANSWER: &str = r#"{"title":"Sending requests and following redirects"}"#;

pub fn request(members: &[Member<'_>]) -> ChatRequest {
    let schema = json!({
        "type": "object",
        "properties": {"title": {"type": "string", "maxLength": MAX_TITLE_CHARS}},
        "required": ["title"],
    });
    let listing: Vec<String> = members
        .iter()
        .take(MAX_MEMBERS)
        .map(|m| {
            let summary: String = m.summary.lines().next().unwrap_or("").chars().take(120).collect();
            format!(
                "{} {} ({}){}",
                m.kind,
                m.qualified_name,
                m.path,
                if summary.is_empty() { String::new() } else { format!(": {summary}") }
            )
        })
        .collect();
    let messages = vec![
        Message::system(SYSTEM),
        Message::user(EXAMPLE),
        Message { role: Role::Assistant, content: EXAMPLE_ANSWER.into() },
        Message::user(listing.join("\n")),
    ];
    ChatRequest::new(messages).max_tokens(MAX_TITLE_CHARS / 2 + 16).schema(schema)
}

/// The title: one line, trimmed, without closing punctuation.
pub fn parse(completion: &Completion) -> Result<String> {
    let value = completion.json()?;
    let title = value.get("title").and_then(|t| t.as_str()).unwrap_or("");
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    let title = title.trim_end_matches(['.', '!', ',', ';', ':']).trim();
    if title.len() < 3 {
        return Err(LlmError::Structure(format!("no title in {}", completion.text)));
    }
    Ok(title.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_is_one_trimmed_line() {
        assert_eq!(parse(&Completion::of_text(r#"{"title":"  Parsing   the\nconfig file. "}"#)).unwrap(), "Parsing the config file");
        assert!(parse(&Completion::of_text(r#"{"title":"."}"#)).is_err());
    }

    #[test]
    fn members_are_listed_with_their_first_line() {
        let members = [Member { kind: "function", qualified_name: "cfg.load", path: "cfg.py", summary: "Reads the file.\nMore." }];
        let request = request(&members);
        assert_eq!(request.messages.last().unwrap().content, "function cfg.load (cfg.py): Reads the file.");
    }
}
