//! Code-aware tokenization and BM25 sparse vectors.
//!
//! `SessionRedirectMixin.resolve_redirects` yields the whole dotted path, each
//! identifier whole (`sessionredirectmixin`, `resolve_redirects`), and each
//! word part, stemmed (`session`, `redirect`, `mixin`, `resolv`), all
//! lowercased. Whole identifiers make exact names score high; parts let
//! `resolveRedirects` and "resolve redirects" meet `resolve_redirects`.

use qdrant_edge::SparseVector;
use rust_stemmers::{Algorithm, Stemmer};
use rustc_hash::FxHashMap;
use std::sync::LazyLock;

/// BM25 term-frequency saturation and length normalisation. IDF is applied by
/// Qdrant (the sparse vector has the IDF modifier).
const K1: f32 = 1.2;
const B: f32 = 0.75;
/// Typical unit length in tokens; fixed so a point's weights never depend on
/// the rest of the corpus and never need rewriting.
const AVG_LEN: f32 = 120.0;

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// English words that carry no meaning in a code search query (sorted).
pub const STOPWORDS: &[&str] = &[
    "a", "about", "all", "an", "and", "any", "are", "as", "at", "be", "been", "by", "can", "code", "could",
    "defined", "definition", "do", "does", "find", "for", "from", "has", "have", "how", "i", "if",
    "implementation", "implemented", "in", "into", "is", "it", "its", "located", "me", "my", "of", "on", "or",
    "show", "so", "some", "that", "the", "their", "them", "then", "there", "these", "this", "those", "to",
    "was", "we", "were", "what", "when", "where", "which", "who", "why", "will", "with", "would", "you",
    "your",
];

pub fn is_stopword(word: &str) -> bool {
    STOPWORDS.binary_search(&word).is_ok()
}

/// An identifier-like word of the text, with its parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word<'a> {
    /// As written, possibly dotted (`Session.send`, `a::b`).
    pub text: &'a str,
}

/// Identifier-like words, dotted or `::` paths kept whole.
pub fn words(text: &str) -> Vec<Word<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    while i < bytes.len() {
        if !is_ident(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        loop {
            while i < bytes.len() && is_ident(bytes[i]) {
                i += 1;
            }
            // Continue through `.x` and `::x` when an identifier follows.
            let sep = if bytes.get(i) == Some(&b'.') {
                1
            } else if bytes.get(i) == Some(&b':') && bytes.get(i + 1) == Some(&b':') {
                2
            } else {
                0
            };
            if sep > 0 && bytes.get(i + sep).is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_') {
                i += sep;
            } else {
                break;
            }
        }
        // Never split a multi-byte character.
        while !text.is_char_boundary(i) {
            i += 1;
        }
        out.push(Word { text: &text[start..i] });
    }
    out
}

/// Parts of one identifier: `parseHTTPResponse2` → parse, http, response, 2.
pub fn split_identifier(ident: &str) -> Vec<String> {
    let mut parts = Vec::new();
    for piece in ident.split(|c: char| c == '_' || c == '.' || c == ':' || c == '$' || c == '-') {
        let chars: Vec<char> = piece.chars().collect();
        let mut current = String::new();
        for (i, &c) in chars.iter().enumerate() {
            let prev = i.checked_sub(1).map(|j| chars[j]);
            let next = chars.get(i + 1).copied();
            let boundary = match prev {
                None => false,
                Some(p) => {
                    (p.is_lowercase() && c.is_uppercase())
                        || (p.is_uppercase() && c.is_uppercase() && next.is_some_and(|n| n.is_lowercase()))
                        || (p.is_alphabetic() != c.is_alphabetic() && (p.is_ascii_digit() || c.is_ascii_digit()))
                }
            };
            if boundary && !current.is_empty() {
                parts.push(std::mem::take(&mut current).to_lowercase());
            }
            current.push(c);
        }
        if !current.is_empty() {
            parts.push(current.to_lowercase());
        }
    }
    parts
}

/// Lowercased terms of a text: whole words, whole identifiers of dotted
/// paths, and stemmed parts. `query` drops stopwords.
pub fn terms(text: &str, query: bool) -> Vec<String> {
    let mut out = Vec::new();
    for word in words(text) {
        let whole = word.text.to_lowercase();
        let segments: Vec<&str> = word.text.split(['.', ':']).filter(|s| !s.is_empty()).collect();
        if segments.len() > 1 {
            out.push(whole.clone());
        }
        for segment in segments {
            let lower = segment.to_lowercase();
            if query && is_stopword(&lower) {
                continue;
            }
            let parts = split_identifier(segment);
            if parts.len() > 1 || lower.len() > 1 {
                out.push(lower.clone());
            }
            if parts.len() > 1 {
                for part in parts {
                    if part.len() > 1 && !(query && is_stopword(&part)) {
                        out.push(STEMMER.stem(&part).into_owned());
                    }
                }
            } else {
                // A plain word also gets its stem ("redirects" meets "redirect").
                let stem = STEMMER.stem(&lower);
                if stem != lower {
                    out.push(stem.into_owned());
                }
            }
        }
    }
    out
}

fn term_id(term: &str) -> u32 {
    xxhash_rust::xxh3::xxh3_64(term.as_bytes()) as u32
}

/// The BM25 document vector of `text`; terms of `boosted` count three times
/// (a symbol's name and qualified name).
pub fn document_vector(boosted: &str, text: &str) -> SparseVector {
    let mut tf: FxHashMap<u32, f32> = FxHashMap::default();
    let mut len = 0f32;
    for (source, weight) in [(boosted, 3.0), (text, 1.0)] {
        for term in terms(source, false) {
            *tf.entry(term_id(&term)).or_default() += weight;
            len += 1.0;
        }
    }
    let norm = K1 * (1.0 - B + B * len / AVG_LEN);
    let mut pairs: Vec<(u32, f32)> = tf.into_iter().map(|(id, n)| (id, n * (K1 + 1.0) / (n + norm))).collect();
    pairs.sort_unstable_by_key(|p| p.0);
    SparseVector { indices: pairs.iter().map(|p| p.0).collect(), values: pairs.iter().map(|p| p.1).collect() }
}

/// The BM25 query vector: each distinct term once; Qdrant weighs it by IDF.
pub fn query_vector(text: &str) -> SparseVector {
    let mut ids: Vec<u32> = terms(text, true).iter().map(|t| term_id(t)).collect();
    ids.sort_unstable();
    ids.dedup();
    SparseVector { values: vec![1.0; ids.len()], indices: ids }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    #[test]
    fn tokenizes_code_and_prose() {
        let check = |text: &str, expect: expect_test::Expect| expect.assert_eq(&terms(text, true).join(" "));
        check(
            "SessionRedirectMixin.resolve_redirects",
            expect!["sessionredirectmixin.resolve_redirects sessionredirectmixin session redirect mixin resolve_redirects resolv redirect"],
        );
        check("resolveRedirects", expect!["resolveredirects resolv redirect"]);
        check("how are redirects handled", expect!["redirects redirect handled handl"]);
        check("parseHTTPResponse2 tokio::net::TcpStream", expect!["parsehttpresponse2 pars http respons tokio::net::tcpstream tokio net tcpstream tcp stream"]);
        check("the of and", expect![""]);
    }
}
