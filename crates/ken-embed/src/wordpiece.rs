//! A static table's token ids, the same as `tokenizers` gives for a BERT
//! pipeline, at a fraction of its cost.
//!
//! A static vector is a sum of table rows, so reading the tokens was most of
//! its cost: the BERT normaliser looks every character up in Unicode tables
//! (`perf` on `ken index --model static` of tokio's crate: a fifth of the
//! samples, and each text was read twice, once more to count it). Code
//! repeats its words, so each word is tokenized once, by the tokenizer
//! itself, and looked up after. Only printable ASCII takes this path; any
//! other whitespace-separated piece (accents, CJK, control characters, an
//! added token such as `[MASK]`) goes to the tokenizer whole. The pipeline
//! works piece by piece (its normaliser character by character, its
//! pre-tokenizer on whitespace and punctuation, WordPiece word by word), so
//! the ids are the tokenizer's: `same_ids_as_the_tokenizer` checks it.

use crate::{EmbedError, Result};
use rustc_hash::FxHashMap;
use std::sync::RwLock;
use tokenizers::{NormalizerWrapper, PreTokenizerWrapper, Tokenizer};

/// Distinct words remembered; past it, new words are tokenized each time
/// (a corpus of generated identifiers cannot grow the map without bound).
const MAX_WORDS: usize = 1 << 18;

pub(crate) struct WordPieces {
    tokenizer: Tokenizer,
    /// Whether the tokenizer is BERT's (normaliser and pre-tokenizer): the
    /// only pipeline whose splitting this reproduces.
    bert: bool,
    /// The added tokens' texts, lowercased: the tokenizer matches them in
    /// the raw text, before splitting.
    added: Vec<String>,
    words: RwLock<FxHashMap<Box<str>, Box<[u32]>>>,
}

impl WordPieces {
    pub(crate) fn new(tokenizer: Tokenizer) -> WordPieces {
        let bert = matches!(tokenizer.get_normalizer(), Some(NormalizerWrapper::BertNormalizer(_)))
            && matches!(tokenizer.get_pre_tokenizer(), Some(PreTokenizerWrapper::BertPreTokenizer(_)));
        let added = tokenizer.get_added_tokens_decoder().values().map(|t| t.content.to_ascii_lowercase()).collect();
        WordPieces { tokenizer, bert, added, words: RwLock::new(FxHashMap::default()) }
    }

    /// The first `max` ids of `text`, without special tokens.
    pub(crate) fn ids(&self, text: &str, max: usize) -> Result<Vec<u32>> {
        if !self.bert {
            return Ok(encode(&self.tokenizer, text)?.into_iter().take(max).collect());
        }
        let mut out = Vec::with_capacity(max.min(text.len() / 3 + 1));
        for piece in text.split([' ', '\t', '\n', '\r']).filter(|p| !p.is_empty()) {
            if out.len() >= max {
                break;
            }
            if !piece.bytes().all(|b| b.is_ascii_graphic()) || self.holds_added_token(piece) {
                out.extend(encode(&self.tokenizer, piece)?);
                continue;
            }
            // Runs of letters and digits are words; any other printable
            // ASCII character is punctuation, a token of its own.
            let bytes = piece.as_bytes();
            let mut start = 0;
            while start < bytes.len() && out.len() < max {
                let end = if bytes[start].is_ascii_alphanumeric() {
                    start + bytes[start..].iter().take_while(|b| b.is_ascii_alphanumeric()).count()
                } else {
                    start + 1
                };
                self.word(&piece[start..end], &mut out)?;
                start = end;
            }
        }
        out.truncate(max);
        Ok(out)
    }

    fn holds_added_token(&self, piece: &str) -> bool {
        // Most pieces hold no added token's first character: no lowercase copy.
        let first = |t: &String| t.as_bytes().first().copied();
        if !self.added.iter().filter_map(first).any(|b| piece.bytes().any(|c| c.to_ascii_lowercase() == b)) {
            return false;
        }
        let piece = piece.to_ascii_lowercase();
        self.added.iter().any(|t| piece.contains(t.as_str()))
    }

    fn word(&self, word: &str, out: &mut Vec<u32>) -> Result<()> {
        if let Some(ids) = self.words.read().unwrap_or_else(|e| e.into_inner()).get(word) {
            out.extend_from_slice(ids);
            return Ok(());
        }
        let ids = encode(&self.tokenizer, word)?;
        out.extend_from_slice(&ids);
        let mut words = self.words.write().unwrap_or_else(|e| e.into_inner());
        if words.len() < MAX_WORDS {
            words.insert(word.into(), ids.into_boxed_slice());
        }
        Ok(())
    }
}

fn encode(tokenizer: &Tokenizer, text: &str) -> Result<Vec<u32>> {
    let encoding = tokenizer.encode(text, false).map_err(|e| EmbedError::Inference(format!("tokenizing: {e}")))?;
    Ok(encoding.get_ids().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundled() -> WordPieces {
        WordPieces::new(crate::distilled::bundled_tokenizer().unwrap())
    }

    /// Ids of each text, by the tokenizer and by the word cache, with no cap.
    fn both(pieces: &WordPieces, text: &str) -> (Vec<u32>, Vec<u32>) {
        (encode(&pieces.tokenizer, text).unwrap(), pieces.ids(text, usize::MAX).unwrap())
    }

    #[test]
    fn same_ids_as_the_tokenizer() {
        let pieces = bundled();
        assert!(pieces.bert);
        // Every case twice: once tokenized, once from the cache.
        let cases = [
            "def parse_header_links(value: str) -> list[dict]:",
            "fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), E>>",
            "naïve café Ünïcode — “quoted” 変数名 ＡＢＣ ﬁle",
            "tab\there\r\nnew\u{b}line\u{c}feed\u{7f}del\u{0}nul\u{1}soh",
            "[CLS] a [MASK] token [sep]ed and [UNK]s; x[0] [1, 2]",
            "HTTPServer.max_retries 0x1F 3.14e-10 $var @decorator #[derive(Debug)]",
            "averyveryveryveryveryveryveryveryveryveryveryveryveryveryveryveryveryveryveryveryveryveryveryverylongword",
            "\u{a0}non-breaking\u{2003}em space\u{200b}zero width",
            "",
            "   \n\t  ",
        ];
        for text in cases.iter().chain(&cases) {
            let (expected, fast) = both(&pieces, text);
            assert_eq!(fast, expected, "{text:?}");
        }
        // Real code: this crate's sources.
        for source in [include_str!("lib.rs"), include_str!("distilled.rs"), include_str!("local.rs"), include_str!("wordpiece.rs")] {
            let (expected, fast) = both(&pieces, source);
            assert_eq!(fast, expected);
        }
    }

    #[test]
    fn stops_at_the_cap() {
        let pieces = bundled();
        let text = "one two three four five six";
        let all = encode(&pieces.tokenizer, text).unwrap();
        for max in [0, 1, 3, 6, 10] {
            assert_eq!(pieces.ids(text, max).unwrap(), all[..max.min(all.len())]);
        }
    }
}
