//! CoUnit's query DSL: the model turns a question into three searches —
//! the question in English (translated when it was asked in another
//! language), the original wording (comments in that language match it),
//! and a hypothetical code snippet that would answer it (HyDE, after
//! bloop). Each is retrieved separately and the lists are fused.

use crate::{ChatRequest, Completion, LlmError, Message, Result, Role};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueryDsl {
    pub english_query: String,
    pub origin_language_query: String,
    pub hypothetical_document: String,
}

const SYSTEM: &str = "You turn a developer's question about a code repository into searches. Answer with JSON: \
englishQuery is the question in English (translate it if it is in another language); \
originLanguageQuery is the question in its original language, as asked; \
hypotheticalDocument is a code snippet, 5 to 10 lines, that a code search engine could return as the answer.";

/// One worked example: small models follow an example far better than a rule.
const EXAMPLE_QUESTION: &str = "Wo wird festgelegt, wie oft eine Anfrage wiederholt wird?";
const EXAMPLE_ANSWER: &str = r#"{"englishQuery":"where is the number of request retries configured","originLanguageQuery":"Wo wird festgelegt, wie oft eine Anfrage wiederholt wird?","hypotheticalDocument":"class RetryPolicy:\n    def __init__(self, max_retries=3, backoff=0.5):\n        self.max_retries = max_retries\n        self.backoff = backoff\n\n    def should_retry(self, attempt):\n        return attempt < self.max_retries"}"#;

/// Enough for every field at its longest (750 characters, a token each at
/// worst, when a small model counts "1. 2. 3.") and the braces and keys:
/// the JSON always closes.
const MAX_TOKENS: usize = 800;

/// The request that expands `question` (greedy: the same question always
/// expands the same way, and is cached so).
pub fn request(question: &str) -> ChatRequest {
    let schema = json!({
        "type": "object",
        "properties": {
            "englishQuery": {"type": "string", "maxLength": 150},
            "originLanguageQuery": {"type": "string", "maxLength": 150},
            "hypotheticalDocument": {"type": "string", "maxLength": 450},
        },
        "required": ["englishQuery", "originLanguageQuery", "hypotheticalDocument"],
        "additionalProperties": false,
    });
    let messages = vec![
        Message::system(SYSTEM),
        Message::user(EXAMPLE_QUESTION),
        Message { role: Role::Assistant, content: EXAMPLE_ANSWER.into() },
        Message::user(question.trim()),
    ];
    ChatRequest::new(messages).max_tokens(MAX_TOKENS).schema(schema)
}

pub fn parse(completion: &Completion) -> Result<QueryDsl> {
    serde_json::from_value(completion.json()?).map_err(|e| LlmError::Structure(format!("{e}: {}", completion.text)))
}
