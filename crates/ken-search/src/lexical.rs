//! Code-aware tokenization into BM25 terms, written as FTS5 tokens.
//!
//! `SessionRedirectMixin.resolve_redirects` yields the whole dotted path, each
//! identifier whole (`sessionredirectmixin`, `resolve_redirects`), and each
//! word part, stemmed (`session`, `redirect`, `mixin`, `resolv`), all
//! lowercased. Whole identifiers make exact names score high; parts let
//! `resolveRedirects` and "resolve redirects" meet `resolve_redirects`.

use rust_stemmers::{Algorithm, Stemmer};
use std::sync::LazyLock;

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

thread_local! {
    /// Code repeats its words endlessly; stemming each once per thread
    /// halves the cost of tokenizing a repository.
    static STEMS: std::cell::RefCell<rustc_hash::FxHashMap<String, String>> = Default::default();
}

/// The English stem of a lowercase word.
pub fn stem(word: &str) -> String {
    STEMS.with(|stems| {
        let mut stems = stems.borrow_mut();
        if let Some(s) = stems.get(word) {
            return s.clone();
        }
        let s = STEMMER.stem(word).into_owned();
        // Bounded: a generated file with endless distinct words cannot grow it without end.
        if stems.len() < 1 << 16 {
            stems.insert(word.to_string(), s.clone());
        }
        s
    })
}

/// English words that carry no meaning in a code search query (sorted).
pub const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "all",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "been",
    "by",
    "can",
    "code",
    "could",
    "defined",
    "definition",
    "do",
    "does",
    "find",
    "for",
    "from",
    "has",
    "have",
    "how",
    "i",
    "if",
    "implementation",
    "implemented",
    "in",
    "into",
    "is",
    "it",
    "its",
    "located",
    "me",
    "my",
    "of",
    "on",
    "or",
    "show",
    "so",
    "some",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "this",
    "those",
    "to",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "who",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
];

/// A word without a plural's `s`, so `transitions.js` is about a transition.
pub fn singular(word: &str) -> &str {
    match word.strip_suffix('s') {
        Some(stem) if stem.len() >= 3 && !stem.ends_with('s') => stem,
        _ => word,
    }
}

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
    for piece in ident.split(['_', '.', ':', '$', '-']) {
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
        word_terms(word.text, query, &mut |term| out.push(term.to_string()));
    }
    out
}

/// The lowercased parts of every word and identifier of a text, without
/// whole identifiers (`find_isinstance_check` → find, isinstance, check),
/// and without one-letter parts: the words a name is made of. `query`
/// drops stopwords.
pub fn name_parts(text: &str, query: bool) -> Vec<String> {
    let mut out = Vec::new();
    for word in words(text) {
        for part in split_identifier(word.text) {
            if part.len() > 1 && !(query && is_stopword(&part)) {
                out.push(part);
            }
        }
    }
    out
}

/// [`name_parts`], stemmed (`find_isinstance_check` → find, isinst, check).
pub fn part_stems(text: &str, query: bool) -> Vec<String> {
    name_parts(text, query).iter().map(|part| stem(part)).collect()
}

/// The terms of one word (see [`terms`]), in order.
fn word_terms(word: &str, query: bool, emit: &mut impl FnMut(&str)) {
    let segments: Vec<&str> = word.split(['.', ':']).filter(|s| !s.is_empty()).collect();
    if segments.len() > 1 {
        emit(&word.to_lowercase());
    }
    for segment in segments {
        let lower = segment.to_lowercase();
        if query && is_stopword(&lower) {
            continue;
        }
        let parts = split_identifier(segment);
        if parts.len() > 1 || lower.len() > 1 {
            emit(&lower);
        }
        if parts.len() > 1 {
            for part in parts {
                if part.len() > 1 && !(query && is_stopword(&part)) {
                    emit(&stem(&part));
                }
            }
        } else {
            // A plain word also gets its stem ("redirects" meets "redirect").
            let stem = stem(&lower);
            if stem != lower {
                emit(&stem);
            }
        }
    }
}

/// A term as an FTS5 token, a plain ASCII word whatever the term holds,
/// so the index's tokenizer splits nothing and never disagrees with this
/// one, and no token can be an FTS5 keyword. A short word of lowercase
/// letters and digits (most terms: words, stems, single-word names) is
/// itself behind a `w`: FTS5 stores its sorted terms prefix-compressed, so
/// `wredirect`, `wredirects` and `wredirector` share their heads. Any other
/// term (dots, colons, underscores, other scripts, long words) is its hash,
/// 41 bits in base 36, behind an `x`. A term dictionary is a third of a
/// small repository's BM25 index (requests: 9,700 terms); the hex hash every
/// term had before took 13 bytes each (schema version 9).
fn push_token(out: &mut String, term: &str) {
    if !out.is_empty() {
        out.push(' ');
    }
    if term.len() <= MAX_PLAIN_TOKEN && term.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()) {
        out.push('w');
        out.push_str(term);
        return;
    }
    out.push('x');
    let mut hash = xxhash_rust::xxh3::xxh3_64(term.as_bytes()) >> 23;
    loop {
        out.push(char::from_digit((hash % 36) as u32, 36).expect("a digit below 36"));
        hash /= 36;
        if hash == 0 {
            break;
        }
    }
}

/// Longer words are hashed like other terms: a minified blob's runs of
/// letters are as many distinct terms, and a hash is shorter than each.
const MAX_PLAIN_TOKEN: usize = 16;

/// A term's FTS5 token (see [`push_token`]).
pub fn token(term: &str) -> String {
    let mut out = String::new();
    push_token(&mut out, term);
    out
}

thread_local! {
    /// Each distinct word's tokens, rendered once per thread: code repeats
    /// its words endlessly, so most words of a document are a lookup.
    static WORD_TOKENS: std::cell::RefCell<rustc_hash::FxHashMap<Box<str>, Box<str>>> = Default::default();
}

/// The BM25 document of `text`: its terms as tokens, separated by spaces.
pub fn document_tokens(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    WORD_TOKENS.with(|cache| {
        let mut cache = cache.borrow_mut();
        for word in words(text) {
            let rendered = match cache.get(word.text) {
                Some(tokens) => tokens,
                None => {
                    let mut tokens = String::new();
                    word_terms(word.text, false, &mut |term| push_token(&mut tokens, term));
                    // Bounded: a generated file with endless distinct words cannot grow it without end.
                    if cache.len() >= 1 << 18 {
                        cache.clear();
                    }
                    cache.entry(word.text.into()).or_insert(tokens.into_boxed_str())
                }
            };
            if !rendered.is_empty() {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(rendered);
            }
        }
    });
    out
}

/// The FTS5 query for `text`: any of its distinct terms (`None` when it has
/// none); BM25 weighs each by its rarity.
pub fn query_expression(text: &str) -> Option<String> {
    let mut terms = terms(text, true);
    terms.sort_unstable();
    terms.dedup();
    let mut tokens = Vec::with_capacity(terms.len());
    for term in terms {
        let mut token = String::new();
        push_token(&mut token, &term);
        tokens.push(token);
    }
    (!tokens.is_empty()).then(|| tokens.join(" OR "))
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
        check(
            "parseHTTPResponse2 tokio::net::TcpStream",
            expect!["parsehttpresponse2 pars http respons tokio::net::tcpstream tokio net tcpstream tcp stream"],
        );
        check("the of and", expect![""]);
    }

    #[test]
    fn names_are_the_stems_of_their_parts() {
        let check = |text: &str, query: bool, expect: expect_test::Expect| expect.assert_eq(&part_stems(text, query).join(" "));
        check("find_isinstance_check", false, expect!["find isinst check"]);
        check("TypeChecker.visit_if", false, expect!["type checker visit if"]);
        check("isinstance doesn't narrow unions with None", true, expect!["isinst doesn narrow union none"]);
        check("a b", false, expect![""]);
    }

    #[test]
    fn tokens_are_plain_words_or_hashes() {
        let check = |text: &str, expect: expect_test::Expect| expect.assert_eq(&document_tokens(text));
        check("redirects", expect!["wredirects wredirect"]);
        check("resolve_redirects HTTP2", expect!["x43op1am6 wresolv wredirect whttp2 whttp"]);
        check("a.b ünïcode averyveryverylongword", expect!["xqzfyi496 xbd5qi0pj x830o1bjm"]);
    }

    /// Random text from a palette of code, prose, separators and multi-byte
    /// characters: tokenizing never panics, and every query term of a
    /// document's own text finds a token in it.
    #[test]
    fn random_text_tokenizes() {
        const PALETTE: &[&str] = &[
            "a", "Z", "_", ".", "::", ":", "1", "é", "ß", "İ", "🦀", "…", "-", " ", "\n", "(", ")", "HTTP", "Redirect", "self", "x",
            "\u{0}", "\u{200b}", "ǅ", "ﬁ", "Σ",
        ];
        let mut rng = ken_test_support::Rng::new(0x2545_F491_4F6C_DD1D);
        let mut next = || rng.next_u64();
        for _ in 0..5000 {
            let len = (next() % 40) as usize;
            let text: String = (0..len).map(|_| PALETTE[(next() % PALETTE.len() as u64) as usize]).collect();
            let doc = document_tokens(&text);
            if let Some(query) = query_expression(&text) {
                assert!(query.split(" OR ").all(|t| doc.split(' ').any(|d| d == t)), "{text:?}: {query} not in {doc}");
            }
        }
    }
}
