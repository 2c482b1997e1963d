//! Token counts by a named tokenizer, for budgets an agent sets in its own
//! model's tokens: OpenAI's `o200k_base` (GPT-4o, o-series) and
//! `cl100k_base` (GPT-4, GPT-3.5), built into the binary (tiktoken's
//! ranks), so counting needs no network and no model.

use serde::{Deserialize, Serialize};
use std::sync::OnceLock;
use tiktoken_rs::CoreBPE;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TokenizerName {
    /// `o200k_base`.
    #[default]
    O200k,
    /// `cl100k_base`.
    Cl100k,
}

impl TokenizerName {
    pub fn as_str(self) -> &'static str {
        match self {
            TokenizerName::O200k => "o200k",
            TokenizerName::Cl100k => "cl100k",
        }
    }

    pub fn parse(name: &str) -> Option<TokenizerName> {
        match name.trim().to_ascii_lowercase().trim_end_matches("_base") {
            "o200k" => Some(TokenizerName::O200k),
            "cl100k" => Some(TokenizerName::Cl100k),
            _ => None,
        }
    }

    fn bpe(self) -> &'static CoreBPE {
        static O200K: OnceLock<CoreBPE> = OnceLock::new();
        static CL100K: OnceLock<CoreBPE> = OnceLock::new();
        match self {
            TokenizerName::O200k => O200K.get_or_init(|| tiktoken_rs::o200k_base().expect("the built-in o200k ranks load")),
            TokenizerName::Cl100k => CL100K.get_or_init(|| tiktoken_rs::cl100k_base().expect("the built-in cl100k ranks load")),
        }
    }

    /// Tokens `text` takes (special tokens read as plain text).
    pub fn count(self, text: &str) -> usize {
        self.bpe().encode_ordinary(text).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_the_encodings_own() {
        // "hello" and " world" are one token each in both encodings.
        for name in [TokenizerName::O200k, TokenizerName::Cl100k] {
            assert_eq!(name.count("hello world"), 2, "{name:?}");
            assert_eq!(name.count(&" world".repeat(50)), 50, "{name:?}");
            assert_eq!(name.count(""), 0);
        }
        assert_eq!(TokenizerName::parse("cl100k_base"), Some(TokenizerName::Cl100k));
        assert_eq!(TokenizerName::parse("gpt2"), None);
    }
}
