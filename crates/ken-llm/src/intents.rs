//! MutaGReP's intents and its keyword tool, as requests and parsers.
//!
//! - An intent is a first-person sentence ("I want to …") saying what a
//!   developer could want a symbol for, in words a feature request would
//!   use. Five per function, method and class are embedded as their own
//!   lane: a question in plain words meets the intent, not the code.
//! - Keywords: the model proposes the words and identifiers the answering
//!   code likely contains; BM25 searches them (MutaGReP's one-step keyword
//!   search).

use crate::{ChatRequest, Completion, LlmError, Message, Result, Role, list_schema};
use serde_json::json;

/// Intents asked for per symbol (MutaGReP §10 uses five).
pub const PER_SYMBOL: usize = 5;
/// The longest intent kept, in characters.
const MAX_INTENT_CHARS: usize = 70;
/// An intent as the schema allows it: "I want to" and a lowercase clause.
const INTENT_PATTERN: &str = r#"^I want to [a-z][^"\\\n]{8,58}$"#;
/// The head of a symbol's code the model reads: enough for its signature,
/// docstring and the start of its body, while the prompt stays short
/// (a small model's prompt costs more than its answer).
pub const MAX_CODE_CHARS: usize = 1200;
/// Changes whenever the prompt does, so cached intents of an older prompt
/// are not taken for this one's.
pub const PROMPT_VERSION: &str = "intents-3";

const SYSTEM: &str = "You say what a piece of code is for. Write five different things a developer could want to do \
that this code helps with, each a short sentence starting with \"I want to\". Use plain words a feature request would use, \
not the code's own names. Answer with JSON.";

const EXAMPLE_CODE: &str = "function retry_after in http/backoff.py\n```\ndef retry_after(response, default=1.0):\n    \
value = response.headers.get(\"Retry-After\")\n    if value is None:\n        return default\n    try:\n        \
return float(value)\n    except ValueError:\n        return (parsedate(value) - now()).total_seconds()\n```";
const EXAMPLE_ANSWER: &str = r#"{"intents":["I want to know how long to wait before retrying a request","I want to honor the server's Retry-After header","I want to read a retry delay given as seconds or as a date","I want to fall back to a default delay when the server gives none","I want to back off when a server is overloaded"]}"#;

/// The request for one symbol's intents. `code` is cut to its first
/// [`MAX_CODE_CHARS`] characters (at a line end where one is near).
pub fn request(kind: &str, qualified_name: &str, path: &str, code: &str) -> ChatRequest {
    // Each sentence starts as the example's do, then runs a clause at most:
    // a small model that may ramble drifts off the code within a sentence or two.
    let schema = list_schema("intents", json!({"type": "string", "pattern": INTENT_PATTERN}), PER_SYMBOL, PER_SYMBOL);
    let messages = vec![
        Message::system(SYSTEM),
        Message::user(EXAMPLE_CODE),
        Message { role: Role::Assistant, content: EXAMPLE_ANSWER.into() },
        Message::user(format!("{kind} {qualified_name} in {path}\n```\n{}\n```", head(code, MAX_CODE_CHARS))),
    ];
    // Five sentences at their longest, a token per three characters, and the JSON around them.
    ChatRequest::new(messages).max_tokens(PER_SYMBOL * MAX_INTENT_CHARS / 3 + 40).schema(schema)
}

/// The intents of a completion: trimmed, each starting with "I want to",
/// without repeats or empty ones (fewer than five is fine; none is an error).
pub fn parse(completion: &Completion) -> Result<Vec<String>> {
    let mut intents: Vec<String> = Vec::new();
    for item in completion.strings("intents")? {
        let text: String = item.split_whitespace().collect::<Vec<_>>().join(" ");
        // One sentence: what follows the first one is a small model drifting.
        let text = text.split_once(". ").map_or(text.as_str(), |(first, _)| first);
        let text = text.trim_matches(|c: char| c == '"' || c == '\'' || c == '.' || c.is_whitespace());
        if text.len() < 8 {
            continue;
        }
        let text =
            if text.to_ascii_lowercase().starts_with("i want") { text.to_string() } else { format!("I want to {}", lower_first(text)) };
        if !intents.iter().any(|i| i.eq_ignore_ascii_case(&text)) {
            intents.push(text);
        }
    }
    if intents.is_empty() {
        return Err(LlmError::Structure(format!("no intents in {}", completion.text)));
    }
    Ok(intents)
}

/// Keywords asked for a question, at most.
pub const MAX_KEYWORDS: usize = 8;

const KEYWORD_SYSTEM: &str = "You choose search keywords for a code search engine. Given a developer's question, \
list words and identifiers that the code answering it likely contains: names of functions, classes and variables, \
and words from its comments. Answer with JSON.";
const KEYWORD_EXAMPLE: &str = "how are cookies kept between requests?";
const KEYWORD_ANSWER: &str =
    r#"{"keywords":["cookie","cookiejar","session","persist","set_cookie","extract_cookies","merge_cookies","jar"]}"#;

/// The request for a question's keywords.
pub fn keyword_request(question: &str) -> ChatRequest {
    let schema = list_schema("keywords", json!({"type": "string", "maxLength": 40}), 1, MAX_KEYWORDS);
    let messages = vec![
        Message::system(KEYWORD_SYSTEM),
        Message::user(KEYWORD_EXAMPLE),
        Message { role: Role::Assistant, content: KEYWORD_ANSWER.into() },
        Message::user(question.trim()),
    ];
    ChatRequest::new(messages).max_tokens(MAX_KEYWORDS * 14 + 20).schema(schema)
}

/// The keywords of a completion: single words or identifiers, without repeats.
pub fn parse_keywords(completion: &Completion) -> Result<Vec<String>> {
    let items = completion.strings("keywords")?;
    let mut keywords: Vec<String> = Vec::new();
    for word in items.iter().flat_map(|s| s.split(|c: char| !(c.is_alphanumeric() || c == '_'))) {
        // A number or a single letter finds everything and means nothing.
        let useful = word.chars().count() > 1 && !word.chars().all(|c| c.is_ascii_digit());
        if useful && !keywords.iter().any(|k| k.eq_ignore_ascii_case(word)) {
            keywords.push(word.to_string());
        }
    }
    if keywords.is_empty() {
        return Err(LlmError::Structure(format!("no keywords in {}", completion.text)));
    }
    Ok(keywords)
}

/// The first `max` characters of `code`, ended at a line break when one
/// falls in the last fifth.
pub fn head(code: &str, max: usize) -> &str {
    let Some((cut, _)) = code.char_indices().nth(max) else { return code };
    let head = &code[..cut];
    match head.rfind('\n') {
        Some(line_end) if line_end >= cut * 4 / 5 => &head[..line_end],
        _ => head,
    }
}

fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{Expect, expect};

    fn check(parse: fn(&Completion) -> Result<Vec<String>>, output: &str, expect: Expect) {
        let shown = match parse(&Completion::of_text(output)) {
            Ok(items) => items.join(" | "),
            Err(e) => format!("error: {e}"),
        };
        expect.assert_eq(&shown);
    }

    #[test]
    fn intents_are_first_person_sentences_without_repeats() {
        check(
            parse,
            r#"{"intents":["I want to parse a URL","parse a URL","Split the query string","I want to parse a URL",""]}"#,
            expect![["I want to parse a URL | I want to split the query string"]],
        );
        check(parse, r#"{"intents":["  I   want to\nsend mail "]}"#, expect!["I want to send mail"]);
        check(parse, r#"{"intents":["I want to limit calls. This is a"]}"#, expect!["I want to limit calls"]);
        check(
            parse,
            r#"{"intents":["x"]}"#,
            expect![[r#"error: the model's output is not valid JSON for the schema: no intents in {"intents":["x"]}"#]],
        );
        check(parse, r#"{"other":1}"#, expect![[r#"error: the model's output is not valid JSON for the schema: {"other":1}"#]]);
    }

    #[test]
    fn keywords_are_words_and_identifiers() {
        check(
            parse_keywords,
            r#"{"keywords":["cookie jar","set_cookie","Cookie","session.merge"]}"#,
            expect![["cookie | jar | set_cookie | session | merge"]],
        );
    }

    #[test]
    fn code_is_cut_at_a_line_end_near_the_limit() {
        assert_eq!(head("abc\ndef\nghi", 100), "abc\ndef\nghi");
        assert_eq!(head("abcdefgh\nij", 10), "abcdefgh");
        assert_eq!(head("a\nbcdefghijkl", 10), "a\nbcdefghi");
    }
}
