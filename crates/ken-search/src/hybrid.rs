//! Hybrid retrieval: dense, BM25 and exact-identifier lanes fused with
//! Reciprocal Rank Fusion, then de-duplicated.
//!
//! Each lane over-retrieves (MutaGReP's NoDuplicates): symbols and the chunks
//! cut from them point at the same code, and only one of each should reach
//! the user. If the query names a symbol that exists, that symbol is first:
//! a code search must never lose to grep.

use crate::lexical::{self, Word};
use crate::shard::{PointFilter, VectorShard};
use crate::sync::chunk_header;
use ken_core::{Family, Language, Relation, SymbolKind};
use ken_embed::Embedder;
use ken_store::{Store, StoreError, SymbolRow, UnitText};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Longest query read; the rest is cut (and the response says so).
pub const MAX_QUERY_CHARS: usize = 2000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Hybrid,
    Semantic,
    Lexical,
    Exact,
    /// Only the intent lane: symbols whose intents match (`ken index --intents`).
    Intents,
}

impl Mode {
    pub fn parse(text: &str) -> Option<Mode> {
        Some(match text {
            "hybrid" => Mode::Hybrid,
            "semantic" | "dense" => Mode::Semantic,
            "lexical" | "bm25" => Mode::Lexical,
            "exact" => Mode::Exact,
            "intents" | "intent" => Mode::Intents,
            _ => return None,
        })
    }
    pub fn uses_dense(self) -> bool {
        matches!(self, Mode::Hybrid | Mode::Semantic)
    }
}

#[derive(Clone, Debug)]
pub struct SearchOptions {
    pub k: usize,
    pub mode: Mode,
    pub languages: Vec<Language>,
    pub kinds: Vec<SymbolKind>,
    pub path_glob: Option<String>,
    pub ranking: Ranking,
    /// Candidates each lane returns, as a multiple of `k` (before de-duplication).
    pub overfetch: usize,
    /// The query's embedding, when the caller already has it (a cache).
    pub query_vector: Option<Vec<f32>>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            k: 10,
            mode: Mode::Hybrid,
            languages: Vec::new(),
            kinds: Vec::new(),
            path_glob: None,
            ranking: Ranking::default(),
            overfetch: 8,
            query_vector: None,
        }
    }
}

/// How the lanes' candidates become one ranking: `[search]` in `ken.toml`,
/// and per request. Each default was chosen on the harness's tuning split
/// (see bench/README.md, "Ranking knobs").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Ranking {
    /// `rrf` (Reciprocal Rank Fusion) or `scores` (each lane's scores
    /// min-max normalised, then summed with the weights).
    pub fusion: FusionMethod,
    /// RRF's k: larger flattens the advantage of top ranks.
    pub rrf_k: f32,
    /// Lane weights (dense, BM25, exact names) for queries that name code:
    /// an identifier (`snake_case`, `CamelCase`, `a.b`) or a kind word ("the
    /// X method").
    pub code_weights: [f32; 3],
    /// Lane weights for queries in plain words. Tuning split (130
    /// questions, five corpora), MiniLM int8 hybrid MRR@10 by the dense
    /// weight, BM25 1: [0.5,1,2] 0.624, [1,1,2] 0.641, [1.5,1,1] 0.649,
    /// [2,1,2] 0.652, [2,1,1] 0.654, [3,1,1] 0.655; identifiers unchanged.
    pub prose_weights: [f32; 3],
    /// The static vectors' lane weighs this share of the dense weight once
    /// the model has embedded every point (before, the share of points the
    /// model has not embedded yet, if that is more).
    /// Tuning split, MiniLM int8 hybrid MRR@10: 0 → 0.636, 0.25 → 0.628,
    /// 0.5 → 0.606, 1 → 0.607: beside the transformer it only adds noise.
    pub static_weight: f32,
    /// A candidate gains this share of the scores of the other candidates
    /// from its file (at most three): evidence that the file is about the
    /// query. MiniLM int8, MRR@10 on the tuning split: 0 → 0.657, 0.05 →
    /// 0.664, 0.1 → 0.672, 0.15 → 0.665, 0.5 → 0.633; but 0.1 lowers the
    /// held-out third from 0.671 to 0.624 (all 200 questions 0.662 →
    /// 0.655): it fits the tuning questions, not questions, so it is off.
    pub file_boost: f32,
    /// Factor on tests, examples, benchmarks, fixtures and vendored code
    /// when the query does not ask about them. The tuning corpora are the
    /// code a package imports, where this measured nothing; in the whole
    /// archives (`harness.tune --trees`: sdists, crates and npm tarballs
    /// with their tests, docs and config, as a repository holds them),
    /// MRR@10 tuning / held out / docs set: static model 1 → 0.633 /
    /// 0.519 / 0.391, 0.75 → 0.670 / 0.557 / 0.421, 0.5 → 0.672 / 0.570 /
    /// 0.423, 0.25 → 0.672 / 0.571 / 0.423; MiniLM int8 1 → 0.642 / 0.575,
    /// 0.75 → 0.687 / 0.647, 0.5 → 0.688 / 0.649, 0.25 the same;
    /// identifiers at rank 1 0.991 → 0.996.
    pub test_weight: f32,
    /// Factor on documents, configuration and text when the query does not
    /// ask about them (see [`asks_about_prose`]).
    pub docs_weight: f32,
    /// Each further hit from a file already shown weighs this factor once
    /// more (1: off), so one file cannot fill the page. It trades the
    /// definition for the file: tuning split, MiniLM int8, 0.75 → MRR@10
    /// 0.637 (off: 0.654), by file 0.811 (off: 0.795); 0.5 → 0.626 / 0.812.
    pub file_decay: f32,
    /// The intent lane (`ken index --intents`) weighs this multiple of the
    /// dense weight, in indexes that have intents. SmolLM2-135M's intents
    /// (written through llama.cpp's server), MiniLM int8, requests and
    /// flask: tuning split (52 questions) MRR@10 0 → 0.756, 0.25 → 0.777,
    /// 0.5 → 0.736, 1 → 0.679, 2 → 0.626; the held-out third (28) 0 →
    /// 0.804, 0.25 → 0.823, 1 → 0.793; requests docstrings (30) 0 → 0.664,
    /// 0.25 → 0.661, 1 → 0.627. A stronger model's intents may bear more.
    pub intent_weight: f32,
    /// Factor on fields, enum variants and constants (and chunks named
    /// after one) when the query is in plain words: a question asks how
    /// code behaves, and a member's doc comment only describes it (tokio's
    /// `MissedTickBehavior::Skip` came before `next_timeout`, which acts on
    /// it). Tuning split (130 questions, five corpora), MRR@10 / prose:
    /// MiniLM int8 1 → 0.654 / 0.581, 0.75 to 0.25 → 0.676 / 0.628; static
    /// 0.648 / 0.556 → 0.669 / 0.598 (fields alone: 0.662 / 0.586).
    /// Held-out third (70): MiniLM 0.646 → 0.655, static 0.566 → 0.573.
    pub member_weight: f32,
    /// A candidate of L lines weighs (L / (L + short_span))^½ (0: off)
    /// when the query asks a question ([`QueryPlan::asks_question`]),
    /// unless it names code and the candidate is that name: a one-line
    /// accessor says a question's words as densely as BM25 and a short
    /// embedding reward, and answers little (tokio's 4-line
    /// `UdpSocket::ready` came before the reactor's `turn`). A description
    /// ("Return the app's config", a docstring's first sentence) may mean a
    /// one-liner: applied to them too, the docstring set (500, static) fell
    /// from 0.482 to 0.429. Tuning split (130), MRR@10 at 0 / 2 / 4 / 8 /
    /// 16: whole archives static 0.674 / 0.689 / 0.690 / 0.707 / 0.700,
    /// MiniLM int8 0.688 / 0.706 / 0.708 / 0.707 / 0.698; src only static
    /// 0.700 / 0.721 / 0.712 / 0.723 / 0.705, MiniLM 0.710 / 0.717 / 0.717
    /// / 0.695 / 0.684; docs set (39, static) 0.433 / 0.426 / 0.434 / 0.422
    /// / 0.419. 4 is the one that lowers none.
    pub short_span: f32,
}

/// Some of [`Ranking`]'s settings, laid over others: `[search.ranking]` in
/// `ken.toml`, or a request's `ranking`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RankingOverrides {
    pub fusion: Option<FusionMethod>,
    pub rrf_k: Option<f32>,
    pub code_weights: Option<[f32; 3]>,
    pub prose_weights: Option<[f32; 3]>,
    pub static_weight: Option<f32>,
    pub file_boost: Option<f32>,
    pub test_weight: Option<f32>,
    pub docs_weight: Option<f32>,
    pub file_decay: Option<f32>,
    pub intent_weight: Option<f32>,
    pub member_weight: Option<f32>,
    pub short_span: Option<f32>,
}

impl RankingOverrides {
    pub fn apply(&self, ranking: &Ranking) -> Ranking {
        let mut out = ranking.clone();
        macro_rules! set {
            ($($field:ident),*) => {$(if let Some(v) = self.$field { out.$field = v; })*};
        }
        set!(
            fusion,
            rrf_k,
            code_weights,
            prose_weights,
            static_weight,
            file_boost,
            test_weight,
            docs_weight,
            file_decay,
            intent_weight,
            member_weight,
            short_span
        );
        out
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FusionMethod {
    Rrf,
    Scores,
}

impl Default for Ranking {
    fn default() -> Self {
        Ranking {
            fusion: FusionMethod::Rrf,
            rrf_k: 60.0,
            code_weights: [1.0, 1.0, 2.0],
            prose_weights: [2.0, 1.0, 1.0],
            static_weight: 0.0,
            file_boost: 0.0,
            test_weight: 0.5,
            docs_weight: 0.75,
            file_decay: 1.0,
            intent_weight: 0.25,
            member_weight: 0.5,
            short_span: 4.0,
        }
    }
}

impl Ranking {
    /// The first setting out of range, as (field, problem).
    pub fn invalid(&self) -> Option<(&'static str, String)> {
        let weights = |w: &[f32; 3]| w.iter().all(|x| x.is_finite() && (0.0..=100.0).contains(x));
        if !(self.rrf_k.is_finite() && self.rrf_k > 0.0 && self.rrf_k <= 10_000.0) {
            return Some(("rrf_k", format!("must be above 0 and at most 10000 (got {})", self.rrf_k)));
        }
        if !weights(&self.code_weights) {
            return Some(("code_weights", format!("must be three numbers from 0 to 100 (got {:?})", self.code_weights)));
        }
        if !weights(&self.prose_weights) {
            return Some(("prose_weights", format!("must be three numbers from 0 to 100 (got {:?})", self.prose_weights)));
        }
        for (field, value) in [
            ("static_weight", self.static_weight),
            ("file_boost", self.file_boost),
            ("test_weight", self.test_weight),
            ("docs_weight", self.docs_weight),
            ("file_decay", self.file_decay),
            ("member_weight", self.member_weight),
        ] {
            if !(value.is_finite() && (0.0..=1.0).contains(&value)) {
                return Some((field, format!("must be from 0 to 1 (got {value})")));
            }
        }
        if !(self.intent_weight.is_finite() && (0.0..=10.0).contains(&self.intent_weight)) {
            return Some(("intent_weight", format!("must be from 0 to 10 (got {})", self.intent_weight)));
        }
        if !(self.short_span.is_finite() && (0.0..=1000.0).contains(&self.short_span)) {
            return Some(("short_span", format!("must be from 0 to 1000 lines (got {})", self.short_span)));
        }
        None
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("the query is empty; describe the code you want or give a name, e.g. `ken search \"parse config file\"`")]
    EmptyQuery,
    #[error("the query has only common words ({0}); add a name or more specific words")]
    OnlyStopwords(String),
    #[error("--path `{glob}` is not a valid glob: {detail}")]
    BadGlob { glob: String, detail: String },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Shard(#[from] crate::shard::ShardError),
    #[error(transparent)]
    Embed(#[from] ken_embed::EmbedError),
}

/// Per-symbol scores from the dense (cosine) and BM25 lanes.
#[derive(Clone, Debug, Default)]
pub struct LaneScores {
    pub dense: FxHashMap<i64, f32>,
    pub sparse: FxHashMap<i64, f32>,
}

/// Rank (1-based) of a hit in each lane that found it.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct LaneRanks {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dense: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sparse: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact: Option<usize>,
    /// The static vectors' lane.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub r#static: Option<usize>,
    /// The intent lane.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intent: Option<usize>,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Hit {
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    /// The symbol the hit is (or, for a chunk, is named after).
    pub name: String,
    pub qualified_name: String,
    #[schemars(with = "String")]
    pub kind: SymbolKind,
    /// `symbol` or `chunk`.
    pub unit: &'static str,
    /// The symbol's id in the index (for a chunk: the symbol it is named after).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol_id: Option<i64>,
    #[schemars(with = "String")]
    pub language: Language,
    pub score: f32,
    pub lanes: LaneRanks,
    /// Where the code sits: RepoGPT's header for chunks, kind and name for symbols.
    pub header: String,
    /// The lines most relevant to the query, at most [`SNIPPET_LINES`].
    pub snippet: Snippet,
    /// The symbol's intent nearest to the query, when the intent lane found it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intent: Option<String>,
    /// Other files holding the same code at the same place (a build's
    /// development and production copies, a module copied to try a
    /// variant): one answer, at most [`MAX_ALSO_IN`] paths. The same method
    /// in two classes is two answers.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also_in: Vec<String>,
}

pub const MAX_ALSO_IN: usize = 5;

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Snippet {
    pub start_line: u32,
    pub text: String,
}

pub const SNIPPET_LINES: usize = 8;

#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct Timings {
    pub embed_ms: f64,
    pub dense_ms: f64,
    pub sparse_ms: f64,
    pub exact_ms: f64,
    pub fuse_ms: f64,
    pub total_ms: f64,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SearchResponse {
    pub query: String,
    pub mode: Mode,
    pub hits: Vec<Hit>,
    /// Query words to highlight.
    pub terms: Vec<String>,
    /// What the user should know: a partial semantic lane, a cut query…
    pub notes: Vec<String>,
    pub timings: Timings,
}

/// The query, read: lexical terms and the identifiers it names.
#[derive(Clone, Debug)]
pub struct QueryPlan {
    pub text: String,
    pub truncated: bool,
    pub identifiers: Vec<String>,
    /// Names the query places inside a container ("the `send` method") and
    /// containers ("in the `Session` class"), lowercased.
    pub members: Vec<String>,
    pub containers: Vec<String>,
    /// The member words the query says ("method", "field"), singular.
    pub member_words: Vec<String>,
    /// The query asks for a type's members ("the methods of the `Session`
    /// class"): a plural member word.
    pub wants_members: bool,
    pub terms: Vec<String>,
    /// Some word is spelled as code (`snake_case`, `CamelCase`, `a.b`), or
    /// the query is one word.
    pub spelled_as_code: bool,
    /// Names whose users the query asks for, as written: "what raises
    /// `CookieConflictError`", "where is `merge_setting` called", "the
    /// callers of `send`". Their definitions are not the answer.
    pub used: Vec<String>,
}

/// "what raises X", "who calls X": X's users are asked for.
const USE_VERBS: &[&str] = &[
    "calls",
    "catches",
    "constructs",
    "creates",
    "emits",
    "extends",
    "implements",
    "imports",
    "instantiates",
    "invokes",
    "raises",
    "subclasses",
    "throws",
    "uses",
];
/// "where is X raised", "X is called from" ("where is X implemented" asks
/// for X itself).
const USED_WORDS: &[&str] = &[
    "called",
    "caught",
    "constructed",
    "created",
    "emitted",
    "extended",
    "imported",
    "instantiated",
    "invoked",
    "raised",
    "subclassed",
    "thrown",
    "used",
];
/// "the callers of X", "references to X".
const USER_NOUNS: &[&str] = &["callers", "importers", "implementations", "references", "subclasses", "usages", "users", "uses"];

/// Words after which (or before which) a name is expected: "the `send`
/// method", "in the `Session` class". Plurals count too ("methods").
const MEMBER_WORDS: &[&str] =
    &["attribute", "constant", "constructor", "field", "fn", "func", "function", "macro", "method", "property", "variable"];
const CONTAINER_WORDS: &[&str] = &["class", "enum", "interface", "module", "struct", "trait", "type"];
/// Words that say what kind of member or type, not which: "an async
/// function", "the abstract class", "a static method" name none.
const KIND_MODIFIERS: &[&str] = &[
    "abstract",
    "anonymous",
    "async",
    "asynchronous",
    "const",
    "generic",
    "inner",
    "nested",
    "private",
    "protected",
    "public",
    "static",
    "sync",
    "synchronous",
    "virtual",
];

fn is_kind_word(word: &str) -> bool {
    let known = |w: &str| MEMBER_WORDS.contains(&w) || CONTAINER_WORDS.contains(&w);
    known(word) || word.strip_suffix("es").is_some_and(known) || word.strip_suffix('s').is_some_and(known)
}

pub fn plan_query(raw: &str) -> Result<QueryPlan, SearchError> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err(SearchError::EmptyQuery);
    }
    let truncated = trimmed.chars().count() > MAX_QUERY_CHARS;
    let text: String = trimmed.chars().take(MAX_QUERY_CHARS).collect();
    let words = lexical::words(&text);
    let lower: Vec<String> = words.iter().map(|w| w.text.to_lowercase()).collect();
    let mut identifiers = Vec::new();
    let spelled_as_code = words.len() == 1 || words.iter().any(looks_like_identifier);
    let (mut members, mut containers) = (Vec::new(), Vec::new());
    let member_words: Vec<String> = lower
        .iter()
        .filter_map(|w| {
            [w.as_str(), w.strip_suffix("es").unwrap_or(""), w.strip_suffix('s').unwrap_or("")]
                .into_iter()
                .find(|w| MEMBER_WORDS.contains(w))
        })
        .map(str::to_string)
        .collect();
    for (i, word) in words.iter().enumerate() {
        let next = lower.get(i + 1).map(String::as_str).unwrap_or("");
        let name = word.text.rsplit(['.', ':']).next().unwrap_or(word.text).to_lowercase();
        // Written in lower case: "the Inner type" names tokio's `Inner`.
        let modifier = words.len() > 1 && word.text == lower[i] && KIND_MODIFIERS.contains(&word.text);
        if MEMBER_WORDS.contains(&next) && !modifier {
            members.push(name.clone());
        } else if CONTAINER_WORDS.contains(&next) && !modifier {
            containers.push(name.clone());
        }
        let near_kind_word = |j: Option<usize>| j.and_then(|j| lower.get(j)).is_some_and(|w| is_kind_word(w));
        let kind_word = is_kind_word(&lower[i]);
        let named = looks_like_identifier(word)
            || words.len() == 1
            || (!kind_word
                && !modifier
                && !lexical::is_stopword(&lower[i])
                && (near_kind_word(i.checked_sub(1)) || near_kind_word(Some(i + 1))))
            // A capital in a sentence, but not a lone letter ("Ctrl+C",
            // "plan B": not the field `c`).
            || (i > 0
                && word.text.len() > 1
                && word.text.starts_with(|c: char| c.is_uppercase())
                && !lexical::is_stopword(&lower[i]));
        if named && !identifiers.contains(&word.text.to_string()) {
            identifiers.push(word.text.to_string());
        }
    }
    let used: Vec<String> = (1..words.len())
        .filter(|&i| !lexical::is_stopword(&lower[i]) && !is_kind_word(&lower[i]))
        .filter(|&i| {
            // The words before, past an article ("calls the `send` method"),
            // and after. A passive asks only as a question or a clause
            // ("where is `X` raised", "`X` is called from"): "a `ReadError`
            // raised while reading" says what happened, not what is asked.
            let back = |n: usize| i.checked_sub(n).map_or("", |j| lower[j].as_str());
            let skip = usize::from(matches!(back(1), "a" | "an" | "the"));
            let (before, before_that) = (back(1 + skip), back(2 + skip));
            let ahead = |n: usize| lower.get(i + n).map_or("", String::as_str);
            let is = |w: &str| matches!(w, "is" | "are" | "was" | "were");
            USE_VERBS.contains(&before)
                || (is(before) && USED_WORDS.contains(&ahead(1)))
                || (is(ahead(1)) && USED_WORDS.contains(&ahead(2)))
                || (matches!(before, "of" | "to") && USER_NOUNS.contains(&before_that))
        })
        .map(|i| words[i].text.to_string())
        .collect();
    let wants_members = lower
        .iter()
        .any(|w| w == "members" || w.strip_suffix("es").or_else(|| w.strip_suffix('s')).is_some_and(|one| MEMBER_WORDS.contains(&one)));
    let mut terms = lexical::terms(&text, true);
    if terms.is_empty() && identifiers.is_empty() {
        return Err(SearchError::OnlyStopwords(text));
    }
    if terms.is_empty() {
        terms = lexical::terms(&text, false);
    }
    Ok(QueryPlan { text, truncated, identifiers, members, containers, member_words, wants_members, terms, spelled_as_code, used })
}

impl QueryPlan {
    /// A symbol of `kind` is what the query's member word asks for ("the
    /// `handle` method" is not the `handle` field).
    fn kind_fits(&self, kind: SymbolKind) -> bool {
        let callable = |w: &str| matches!(w, "constructor" | "fn" | "func" | "function" | "macro" | "method");
        self.member_words.is_empty() || self.member_words.iter().any(|w| callable(w) == kind.is_callable())
    }

    /// The query names code rather than describing behaviour in plain
    /// words: some word is spelled as code. Capitalised words do not count:
    /// questions are full of acronyms and proper nouns (HTTP, WSGI, Python).
    pub fn names_code(&self) -> bool {
        self.spelled_as_code
    }

    /// The query asks a question ("how does …", "where is …", "…?")
    /// rather than describing code as its doc comment would ("Return the
    /// tick at which the wheel next fires"). "which" and "when" count only
    /// as the first word: a description says "the tick at which", "called
    /// when". On the harness, 190 of 200 questions ask and 8 of 500
    /// docstrings' first sentences do.
    pub fn asks_question(&self) -> bool {
        let mut words = self.text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_ascii_lowercase);
        let first = words.next().unwrap_or_default();
        self.text.trim_end().ends_with('?')
            || matches!(first.as_str(), "how" | "where" | "why" | "what" | "which" | "when" | "who")
            || words.any(|w| matches!(w.as_str(), "how" | "where" | "why" | "what"))
    }
}

/// `snake_case`, `camelCase`, `PascalCase`, `a.b`, `a::b`, `x2`: code, not prose.
fn looks_like_identifier(word: &Word) -> bool {
    spelled_as_code(word.text)
}

fn spelled_as_code(t: &str) -> bool {
    let inner_upper = t.chars().skip(1).any(|c| c.is_uppercase()) && t.chars().any(|c| c.is_lowercase());
    t.contains('_')
        || t.contains('.')
        || t.contains("::")
        || inner_upper
        || (t.chars().any(|c| c.is_ascii_digit()) && t.chars().any(|c| c.is_alphabetic()))
}

/// One search over an open index.
pub struct Searcher<'a> {
    pub store: &'a Store,
    /// `None` when the shard is unavailable (not yet embedded, or held by
    /// another process): no dense lane; BM25 and names still answer.
    pub shard: Option<&'a VectorShard>,
    /// `None` when no model is loaded: no dense lane.
    pub embedder: Option<&'a dyn Embedder>,
    /// Why there is no shard or model, when the caller knows (else the
    /// answer says nothing is embedded yet).
    pub dense_off: Option<String>,
    /// The static vectors: a semantic lane from the first index run on,
    /// beside (or, until the model's vectors exist, instead of) the model's.
    pub statics: Option<DenseView<'a>>,
    /// The intents' shard (`ken index --intents`), searched with the dense
    /// lane's query vector; `None` when the index has no intents.
    pub intents: Option<&'a VectorShard>,
}

/// A dense lane's shard and the embedder of its queries.
#[derive(Clone, Copy)]
pub struct DenseView<'a> {
    pub shard: &'a VectorShard,
    pub embedder: &'a dyn Embedder,
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Candidate {
    score: f32,
    lanes: LaneRanks,
    /// How the exact lane matched it, if it did.
    exact: Option<ExactMatch>,
}

impl Candidate {
    fn exact_tier(&self) -> Option<u8> {
        self.exact.map(|m| m.tier)
    }
}

/// How a symbol the exact lane found matches the query's name.
#[derive(Clone, Copy, Debug, PartialEq)]
struct ExactMatch {
    tier: u8,
    /// A function declared without its body ([`declaration_only`]).
    declaration: bool,
}

#[derive(Clone, Copy, Debug)]
enum Lane {
    Dense,
    Sparse,
    Exact,
    Static,
    Intent,
}

/// Fusion of the lanes: each lane adds `weight / (k + rank)` (RRF) or
/// `weight × its min-max normalised score` to every point it ranks, and
/// records the rank.
struct Fusion {
    method: FusionMethod,
    rrf_k: f32,
    candidates: FxHashMap<i64, Candidate>,
}

impl Fusion {
    fn new(ranking: &Ranking) -> Fusion {
        Fusion { method: ranking.fusion, rrf_k: ranking.rrf_k, candidates: FxHashMap::default() }
    }

    /// `ranked`: best first, with the lane's own score.
    fn add(&mut self, ranked: &[(i64, f32)], lane: Lane, weight: f32) {
        let (low, high) = ranked.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &(_, s)| (lo.min(s), hi.max(s)));
        for (rank, &(id, score)) in ranked.iter().enumerate() {
            let c = self.candidates.entry(id).or_default();
            c.score += match self.method {
                FusionMethod::Rrf => weight / (self.rrf_k + rank as f32 + 1.0),
                // A lane whose scores are all equal (or have no scale, like
                // the exact lane's ranks) counts its top as 1.
                FusionMethod::Scores if high > low => weight * (score - low) / (high - low),
                FusionMethod::Scores => weight / (rank as f32 + 1.0),
            };
            let slot = match lane {
                Lane::Dense => &mut c.lanes.dense,
                Lane::Sparse => &mut c.lanes.sparse,
                Lane::Exact => &mut c.lanes.exact,
                Lane::Static => &mut c.lanes.r#static,
                Lane::Intent => &mut c.lanes.intent,
            };
            *slot = Some(rank + 1);
        }
    }

    /// Best first (ties by point id). `tiers` are the exact lane's match
    /// tiers: a strong name match goes first whatever the other lanes say,
    /// and takes the top score so scores stay in order.
    fn ranked(mut self, tiers: &FxHashMap<i64, ExactMatch>, by_name_alone: bool) -> Vec<(i64, Candidate)> {
        for (id, m) in tiers {
            if let Some(c) = self.candidates.get_mut(id) {
                c.exact = Some(*m);
            }
        }
        let mut ranked: Vec<(i64, Candidate)> = self.candidates.into_iter().collect();
        ranked.sort_by(|a, b| b.1.score.total_cmp(&a.1.score).then(a.0.cmp(&b.0)));
        let best_tier = ranked.iter().filter_map(|(_, c)| c.exact_tier()).filter(|&t| t <= STRONG_TIER).min();
        // Of the names that match best: for a bare name, the exact lane's
        // first (its order knows definitions from declarations and the
        // important from the rest; the other lanes only find the name
        // again); in a sentence, the first by fused score that has a body.
        let first_of = |best: u8| {
            let matching = |c: &Candidate| c.exact_tier() == Some(best);
            if by_name_alone {
                let matching = ranked.iter().enumerate().filter(|(_, (_, c))| matching(c));
                return matching.min_by_key(|(_, (_, c))| c.lanes.exact.unwrap_or(usize::MAX)).map(|(pos, _)| pos);
            }
            (ranked.iter().position(|(_, c)| matching(c) && c.exact.is_some_and(|m| !m.declaration)))
                .or_else(|| ranked.iter().position(|(_, c)| matching(c)))
        };
        if let Some(best) = best_tier
            && let Some(pos) = first_of(best)
        {
            let mut pinned = ranked.remove(pos);
            pinned.1.score = pinned.1.score.max(ranked.first().map_or(0.0, |r| r.1.score));
            ranked.insert(0, pinned);
        }
        ranked
    }
}

impl Searcher<'_> {
    pub fn search(&self, raw_query: &str, options: &SearchOptions) -> Result<SearchResponse, SearchError> {
        let start = Instant::now();
        let plan = plan_query(raw_query)?;
        let mut notes = Vec::new();
        let mut timings = Timings::default();
        if plan.truncated {
            notes.push(format!("the query was cut to its first {MAX_QUERY_CHARS} characters"));
        }
        let (filter, paths) = self.filter(options)?;
        let fetch = (options.k * options.overfetch).max(40);
        let ranking = &options.ranking;
        let weights = if plan.names_code() { ranking.code_weights } else { ranking.prose_weights };
        let mut fusion = Fusion::new(ranking);

        // How far the model's vectors are: read once (a scan of the points)
        // for the static lane's weight and the progress note.
        let progress = match (options.mode.uses_dense(), self.shard, self.embedder) {
            (true, Some(_), Some(_)) => Some(self.store.embed_totals()?),
            _ => None,
        };
        let mut intents: FxHashMap<i64, String> = FxHashMap::default();
        if options.mode == Mode::Intents {
            match (self.intents, self.embedder) {
                (Some(shard), Some(embedder)) => {
                    let vector = self.query_vector(embedder, &plan, options, &mut timings)?;
                    intents = self.intent_lane(shard, vector, fetch, &filter, &mut fusion, 1.0)?;
                }
                _ => notes.push(format!(
                    "no intents to search: {}",
                    self.dense_off.as_deref().unwrap_or("run `ken index --intents` to write them")
                )),
            }
        }
        // Dense lane.
        if options.mode.uses_dense() {
            match (self.shard, self.embedder) {
                (Some(shard), Some(embedder)) => {
                    let vector = self.query_vector(embedder, &plan, options, &mut timings)?;
                    let t = Instant::now();
                    let ranked = shard.search_dense(vector.clone(), fetch, &filter)?;
                    timings.dense_ms = ms(t);
                    fusion.add(&ranked, Lane::Dense, weights[0]);
                    if let Some(intent_shard) = self.intents
                        && ranking.intent_weight > 0.0
                    {
                        let t = Instant::now();
                        intents =
                            self.intent_lane(intent_shard, vector, fetch, &filter, &mut fusion, weights[0] * ranking.intent_weight)?;
                        timings.dense_ms += ms(t);
                    }
                }
                _ if self.statics.is_some() => notes.push(format!(
                    "static vectors answer the semantic lane: the model's are not ready ({})",
                    self.dense_off.as_deref().unwrap_or("no embeddings for this index yet; run `ken index`")
                )),
                _ => notes.push(format!(
                    "semantic lane off: {}",
                    self.dense_off.as_deref().unwrap_or("no embeddings for this index yet (run `ken index`)")
                )),
            }
            if let Some(lane) = self.statics {
                // The static lane stands in for the model's missing vectors:
                // at full weight before the model has embedded anything,
                // `static_weight` once it has embedded every point (measured:
                // 0 is best, below), and the missing share in between.
                let missing = progress.map_or(1.0, |p| 1.0 - p.embedded as f32 / p.total.max(1) as f32);
                let weight = weights[0] * missing.max(ranking.static_weight);
                if weight > 0.0 {
                    let t = Instant::now();
                    let vector = lane.embedder.embed_query(&plan.text)?;
                    let ranked = lane.shard.search_dense(vector, fetch, &filter)?;
                    timings.dense_ms += ms(t);
                    fusion.add(&ranked, Lane::Static, weight);
                }
            }
        }
        // BM25 lane.
        if matches!(options.mode, Mode::Hybrid | Mode::Lexical) {
            let t = Instant::now();
            let ranked = match lexical::query_expression(&plan.text) {
                Some(query) => self.store.lexical_search(&query, fetch, &filter)?,
                None => Vec::new(),
            };
            timings.sparse_ms = ms(t);
            fusion.add(&ranked, Lane::Sparse, weights[1]);
        }
        // Exact identifier lane.
        let mut tiers: FxHashMap<i64, ExactMatch> = FxHashMap::default();
        if !matches!(options.mode, Mode::Semantic | Mode::Intents) {
            let t = Instant::now();
            let exact = self.exact_lane(&plan, options, paths.as_ref())?;
            timings.exact_ms = ms(t);
            let ranked: Vec<(i64, f32)> = exact.iter().map(|(id, _)| (*id, 0.0)).collect();
            fusion.add(&ranked, Lane::Exact, weights[2]);
            tiers = exact.into_iter().collect();
        }
        let t = Instant::now();
        let mut ranked = fusion.ranked(&tiers, lexical::words(&plan.text).len() == 1);
        let ids: Vec<i64> = ranked.iter().take(fetch * 2).map(|(id, _)| *id).collect();
        let units = self.store.units_by_points(&ids)?;
        let by_id: FxHashMap<i64, &UnitText> = units.iter().map(|u| (u.point_id, u)).collect();
        let top = ranked.len().min(fetch * 2);
        let pinned = usize::from(ranked.first().is_some_and(|(_, c)| c.exact_tier().is_some_and(|t| t <= STRONG_TIER)));
        adjust(&mut ranked[pinned..top], &by_id, &plan, ranking);
        if pinned == 1 && top > 1 {
            // The named symbol stays first, and scores stay in order.
            ranked[0].1.score = ranked[0].1.score.max(ranked[1].1.score);
        }
        let mut hits = select(&ranked[..top], &by_id, options.k, ranking.file_decay, &plan.terms);
        for hit in &mut hits {
            if hit.unit == "symbol"
                && let Some(intent) = hit.symbol_id.and_then(|id| intents.get(&UnitText::point_id(false, id)))
            {
                hit.intent = Some(intent.clone());
            }
        }
        timings.fuse_ms = ms(t);
        if let Some(progress) = progress
            && !progress.complete()
            && progress.total > 0
        {
            notes.push(format!(
                "embeddings are {}% done ({} of {}); semantic results are partial until `ken index` finishes",
                progress.embedded * 100 / progress.total.max(1),
                progress.embedded,
                progress.total
            ));
        }
        timings.total_ms = ms(start);
        Ok(SearchResponse { query: plan.text, mode: options.mode, hits, terms: plan.terms, notes, timings })
    }

    /// The query's vector: the caller's, or embedded now (timed).
    fn query_vector(
        &self,
        embedder: &dyn Embedder,
        plan: &QueryPlan,
        options: &SearchOptions,
        timings: &mut Timings,
    ) -> Result<Vec<f32>, SearchError> {
        let t = Instant::now();
        let vector = match &options.query_vector {
            Some(v) => v.clone(),
            None => embedder.embed_query(&plan.text)?,
        };
        timings.embed_ms = ms(t);
        Ok(vector)
    }

    /// Adds the intent lane to `fusion`; returns each found symbol's best intent.
    fn intent_lane(
        &self,
        shard: &VectorShard,
        vector: Vec<f32>,
        fetch: usize,
        filter: &PointFilter,
        fusion: &mut Fusion,
        weight: f32,
    ) -> Result<FxHashMap<i64, String>, SearchError> {
        let found = crate::intents::search_intents(self.store, shard, vector, fetch, filter)?;
        let ranked: Vec<(i64, f32)> = found.iter().map(|m| (m.point_id, m.score)).collect();
        fusion.add(&ranked, Lane::Intent, weight);
        Ok(found.into_iter().map(|m| (m.point_id, m.intent)).collect())
    }

    /// How well each of `symbol_ids` matches the query, by lane: cosine
    /// similarity to `query_vector` (when given and the symbol is embedded)
    /// and BM25. Scores a known set (a graph's nodes) inside the shard, so a
    /// symbol far down the global ranking still gets its real score.
    pub fn symbol_relevance(&self, query: &str, query_vector: Option<Vec<f32>>, symbol_ids: &[i64]) -> Result<LaneScores, SearchError> {
        let mut out = LaneScores::default();
        if symbol_ids.is_empty() {
            return Ok(out);
        }
        let points: Vec<i64> = symbol_ids.iter().map(|&id| UnitText::point_id(false, id)).collect();
        let filter = PointFilter { point_ids: Some(points.clone()), ..Default::default() };
        let symbol = |point: i64| UnitText::unit_of(point).1;
        if let (Some(shard), Some(vector)) = (self.shard, query_vector) {
            for (point, score) in shard.search_dense(vector, points.len(), &filter)? {
                out.dense.insert(symbol(point), score);
            }
        }
        if let Some(query) = lexical::query_expression(query) {
            // A symbol's code is indexed in its chunks: its BM25 is its best point's.
            let chunks = self.store.chunk_points_of_symbols(symbol_ids)?;
            let owner: FxHashMap<i64, i64> = chunks.iter().copied().collect();
            let mut scored = points;
            scored.extend(chunks.iter().map(|(point, _)| *point));
            let filter = PointFilter { point_ids: Some(scored.clone()), ..Default::default() };
            for (point, score) in self.store.lexical_search(&query, scored.len(), &filter)? {
                let best = out.sparse.entry(owner.get(&point).copied().unwrap_or_else(|| symbol(point))).or_insert(score);
                *best = best.max(score);
            }
        }
        Ok(out)
    }

    /// The shard filter, and the paths a `--path` glob allows (for the exact lane).
    fn filter(&self, options: &SearchOptions) -> Result<(PointFilter, Option<FxHashSet<String>>), SearchError> {
        let files: Option<Vec<(i64, String)>> = match &options.path_glob {
            Some(glob) => {
                let matcher = globset::GlobBuilder::new(glob)
                    .literal_separator(false)
                    .build()
                    .map_err(|e| SearchError::BadGlob { glob: glob.clone(), detail: e.to_string() })?
                    .compile_matcher();
                let prefix = glob.trim_end_matches(['*', '/']);
                Some(
                    self.store
                        .file_paths()?
                        .into_iter()
                        .filter(|(_, p)| matcher.is_match(p) || (!prefix.is_empty() && !glob.contains('*') && p.starts_with(prefix)))
                        .collect(),
                )
            }
            None => None,
        };
        let file_ids = files.as_ref().map(|f| f.iter().map(|(id, _)| *id).collect());
        let paths = files.map(|f| f.into_iter().map(|(_, p)| p).collect());
        Ok((PointFilter { languages: options.languages.clone(), kinds: options.kinds.clone(), file_ids, point_ids: None }, paths))
    }

    /// Symbols the query names, best first, with their match tier.
    fn exact_lane(
        &self,
        plan: &QueryPlan,
        options: &SearchOptions,
        paths: Option<&FxHashSet<String>>,
    ) -> Result<Vec<(i64, ExactMatch)>, SearchError> {
        let mut found: FxHashMap<i64, (u8, SymbolRow)> = FxHashMap::default();
        let mut keep = |tier: u8, row: SymbolRow| {
            let entry = found.entry(row.id).or_insert((tier, row.clone()));
            entry.0 = entry.0.min(tier);
        };
        let sole_word = lexical::words(&plan.text).len() == 1;
        for ident in plan.identifiers.iter().filter(|i| !plan.used.contains(i)) {
            let segments: Vec<&str> = ident.split(['.', ':']).filter(|s| !s.is_empty()).collect();
            let last = segments.last().copied().unwrap_or(ident);
            let dotted = segments.len() > 1;
            // "the CLI", "an HTTP error": in a sentence, a word in capitals
            // is an acronym; only a name spelled so (`CLI`) is that name,
            // not the `cli` field nor a misspelling of something else.
            let acronym = !sole_word && !dotted && last.len() >= 2 && last.chars().all(|c| c.is_ascii_uppercase());
            let mut any = false;
            for row in self.store.symbols_by_name(last)? {
                if acronym && row.name != last {
                    continue;
                }
                let tier = if dotted {
                    let suffix = segments.join(".").to_lowercase();
                    // `task::yield_now` is `crate::task::yield_now::yield_now`:
                    // a module named after the one item it exports is not a
                    // qualifier a user writes.
                    let q = without_repeats(&row.qualified_name.to_lowercase().replace("::", "."));
                    if q == suffix || q.ends_with(&format!(".{suffix}")) {
                        TIER_QUALIFIED
                    } else if qualified_ends_with(&row.qualified_name, &segments) {
                        // As a user writes it: `tokio::fs::read_to_string` is
                        // `crate::fs::read_to_string::read_to_string`, whose
                        // crate and re-export are not in the written path.
                        TIER_NAME
                    } else {
                        continue;
                    }
                } else if row.name == last {
                    TIER_NAME
                } else {
                    TIER_NAME_NOCASE
                };
                keep(tier, row);
                any = true;
            }
            if any || acronym {
                continue;
            }
            let folded = last.to_lowercase().replace('_', "");
            for row in self.store.symbols_by_folded_name(&folded)? {
                keep(TIER_FOLDED, row);
                any = true;
            }
            if !any && folded.len() >= 5 {
                // A misspelled name: the names fewest edits away, then the most alike.
                let names = self.store.symbol_names()?;
                let mut best: Vec<(usize, f64, i64, String)> = names
                    .into_iter()
                    .filter_map(|(id, name, _)| {
                        let other = name.to_lowercase().replace('_', "");
                        let edits = strsim::damerau_levenshtein(&folded, &other);
                        let similar = strsim::jaro_winkler(&folded, &other);
                        (edits <= (folded.len() / 5).max(1) || similar >= 0.93).then_some((edits, similar, id, other))
                    })
                    .collect();
                best.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
                // One name fewest edits away (within the bound) is what the
                // typo meant; several at one distance are only guesses.
                let fewest = best.first().map(|b| b.0).filter(|&e| e <= (folded.len() / 5).max(1));
                let nearest: FxHashSet<&str> = best.iter().filter(|b| Some(b.0) == fewest).map(|b| b.3.as_str()).collect();
                // Only a word written as a name is surely a name: in a
                // sentence, "named" is not a typo of `name`.
                let written_as_name = sole_word || spelled_as_code(last);
                // The five nearest names, each with all its definitions (the
                // lane's order then picks among them, not the ids' order).
                let mut names: Vec<&str> = Vec::new();
                for b in &best {
                    if names.len() == 5 {
                        break;
                    }
                    if !names.contains(&b.3.as_str()) {
                        names.push(&b.3);
                    }
                }
                let tiers: Vec<(u8, i64)> = best
                    .iter()
                    .filter(|b| names.contains(&b.3.as_str()))
                    .take(MAX_FUZZY_DEFINITIONS)
                    .map(|b| (if written_as_name && nearest.len() == 1 && Some(b.0) == fewest { TIER_NEAREST } else { TIER_FUZZY }, b.2))
                    .collect();
                for (tier, id) in tiers {
                    if let Some(row) = self.store.symbol_by_id(id)? {
                        keep(tier, row);
                    }
                }
            }
        }
        // "what raises X", "who calls X": the code that reaches X, found
        // by the graph (X's own definition is not named at all).
        for name in &plan.used {
            let segments: Vec<&str> = name.split(['.', ':']).filter(|s| !s.is_empty()).collect();
            let Some(last) = segments.last() else { continue };
            // A word written as prose ("who calls merge") names only a definition spelled so.
            let as_code = spelled_as_code(name) || plan.identifiers.contains(name);
            let definitions = self
                .store
                .symbols_by_name(last)?
                .into_iter()
                .filter(|r| qualified_ends_with(&r.qualified_name, &segments) && (as_code || r.name == *last));
            let mut users = 0;
            'definitions: for definition in definitions {
                for edge in self.store.edges_to(definition.id, USER_RELATIONS)? {
                    if users == MAX_USERS {
                        break 'definitions;
                    }
                    if let Some(row) = self.store.symbol_by_id(edge.src)? {
                        keep(TIER_USER, row);
                        users += 1;
                    }
                }
            }
        }
        // "the X method in the Y class": an X inside a Y is the answer.
        let names: Vec<String> = plan.identifiers.iter().map(|i| i.rsplit(['.', ':']).next().unwrap_or(i).to_lowercase()).collect();
        if names.len() > 1 {
            // Where the query says which is which, only that reading counts.
            let (members, containers) =
                if !plan.members.is_empty() || !plan.containers.is_empty() { (&plan.members, &plan.containers) } else { (&names, &names) };
            for (tier, row) in found.values_mut() {
                // The enclosing symbol, or the type a Rust `impl` in another
                // module names (its qualified name's last container).
                let last = |q: &str| q.rsplit(['.', ':']).find(|s| !s.is_empty()).unwrap_or("").to_lowercase();
                let parent = last(row.parent.as_deref().unwrap_or(""));
                let owner = row.qualified_name.rsplit(['.', ':']).filter(|s| !s.is_empty()).nth(1).unwrap_or("").to_lowercase();
                let name = row.name.to_lowercase();
                let member_ok = (members.is_empty() || members.contains(&name)) && plan.kind_fits(row.kind);
                let in_container = |c: &String| c != &name && containers.contains(c);
                if *tier <= TIER_FOLDED && member_ok && (in_container(&parent) || in_container(&owner)) {
                    *tier = TIER_PAIR;
                }
            }
        }
        // "the methods of X", where X's language defines them outside X's
        // span (Rust's `impl` blocks): X's span shows none of them, so its
        // members answer first.
        if plan.wants_members {
            let types: Vec<SymbolRow> = found
                .values()
                .filter(|(tier, row)| *tier <= TIER_FOLDED && row.kind.is_type())
                .filter(|(_, row)| plan.containers.is_empty() || plan.containers.contains(&row.name.to_lowercase()))
                .map(|(_, row)| row.clone())
                .collect();
            // The type may be unmined (declared inside a macro), so its
            // members are found by the owner their qualified names spell.
            let owners: FxHashSet<String> = if plan.containers.is_empty() {
                types.iter().map(|t| t.name.clone()).collect()
            } else {
                plan.identifiers.iter().filter(|i| plan.containers.contains(&i.to_lowercase())).cloned().collect()
            };
            for owner in owners {
                let spans: Vec<&SymbolRow> = types.iter().filter(|t| t.name.eq_ignore_ascii_case(&owner)).collect();
                let outside =
                    |c: &SymbolRow| !spans.iter().any(|t| c.path == t.path && c.start_line >= t.start_line && c.end_line <= t.end_line);
                let members: Vec<SymbolRow> = self.store.members_of(&owner)?.into_iter().filter(|c| c.kind.is_callable()).collect();
                if members.iter().any(outside) {
                    for member in members.into_iter().filter(outside) {
                        found.insert(member.id, (TIER_PAIR, member));
                    }
                }
            }
        }
        let mut rows: Vec<(ExactMatch, SymbolRow)> = found
            .into_values()
            .map(|(tier, row)| (ExactMatch { tier, declaration: declaration_only(&row) }, row))
            .filter(|(_, r)| options.languages.is_empty() || options.languages.contains(&r.language))
            .filter(|(_, r)| options.kinds.is_empty() || options.kinds.contains(&r.kind))
            .collect();
        if let Some(paths) = paths {
            rows.retain(|(_, r)| paths.contains(&r.path));
        }
        let importance = self.store.importance_of(&rows.iter().map(|(_, r)| r.id).collect::<Vec<_>>())?;
        rows.sort_by(|(ma, a), (mb, b)| {
            ma.tier
                .cmp(&mb.tier)
                .then(kind_rank(&a.kind).cmp(&kind_rank(&b.kind)))
                .then(ma.declaration.cmp(&mb.declaration))
                .then(importance.get(&b.id).unwrap_or(&0.0).total_cmp(importance.get(&a.id).unwrap_or(&0.0)))
                .then(a.qualified_name.len().cmp(&b.qualified_name.len()))
                .then(a.qualified_name.cmp(&b.qualified_name))
        });
        Ok(rows.into_iter().take(50).map(|(m, r)| (UnitText::point_id(false, r.id), m)).collect())
    }
}

/// The written path `segments` names `qualified`: the same last name, and
/// at least one of the written qualifiers among the qualified name's, in
/// order. Leading segments may be missing (`tokio::io::Join` is
/// `io::join::Join`: the crate and re-exports are not in it), as may the
/// qualified name's (`Session.send` is `requests.sessions.Session.send`).
pub(crate) fn qualified_ends_with(qualified: &str, segments: &[&str]) -> bool {
    let q: Vec<String> = qualified.split(['.', ':']).filter(|s| !s.is_empty()).map(fold_name).collect();
    let w: Vec<String> = segments.iter().map(|s| fold_name(s)).collect();
    let (Some((last_q, q_rest)), Some((last_w, w_rest))) = (q.split_last(), w.split_last()) else { return false };
    if last_q != last_w {
        return false;
    }
    if w_rest.is_empty() {
        return true;
    }
    // The longest tail of the written qualifiers that is a subsequence of
    // the qualified name's; one is enough.
    let mut at = q_rest.len();
    let mut matched = 0;
    for segment in w_rest.iter().rev() {
        match q_rest[..at].iter().rposition(|s| s == segment) {
            Some(i) => {
                at = i;
                matched += 1;
            }
            None => break,
        }
    }
    matched > 0
}

/// `a.b.b.c` → `a.b.c`: a dotted name without a segment that repeats the one before it.
fn without_repeats(dotted: &str) -> String {
    let mut segments: Vec<&str> = dotted.split('.').collect();
    segments.dedup();
    segments.join(".")
}

/// `sql_migrate`, `SqlMigrate`, `sql-migrate` → `sqlmigrate`.
pub(crate) fn fold_name(word: &str) -> String {
    word.chars().filter(|c| *c != '_' && *c != '-').flat_map(char::to_lowercase).collect()
}

const TIER_PAIR: u8 = 0;
const TIER_QUALIFIED: u8 = 1;
const TIER_NAME: u8 = 2;
const TIER_NAME_NOCASE: u8 = 3;
const TIER_FOLDED: u8 = 4;
/// The one name fewest edits from a misspelled one.
const TIER_NEAREST: u8 = 5;
const TIER_FUZZY: u8 = 6;
/// Code that reaches a name whose users the query asks for: never first by
/// its tier alone.
const TIER_USER: u8 = 7;
/// How code reaches a name it uses (not: imports it, or holds it).
const USER_RELATIONS: &[Relation] =
    &[Relation::Calls, Relation::Instantiates, Relation::DerivedClassOf, Relation::Overrides, Relation::Uses];
/// Users of one name taken into the exact lane.
const MAX_USERS: usize = 100;
/// Definitions a misspelled name's nearest names bring in.
const MAX_FUZZY_DEFINITIONS: usize = 50;
/// Tiers that are surely what the user named (other fuzzy matches are only guesses).
const STRONG_TIER: u8 = TIER_NEAREST;

/// Priors on the fused scores of the top candidates, then their new order:
/// file evidence, tests and vendored code, documents and configuration.
/// What the definition of a name whose users are asked for weighs.
const USED_DEFINITION_WEIGHT: f32 = 0.5;

fn adjust(candidates: &mut [(i64, Candidate)], units: &FxHashMap<i64, &UnitText>, plan: &QueryPlan, ranking: &Ranking) {
    if ranking.file_boost > 0.0 {
        // Scores of each file's best candidates, fused before any prior.
        // Names the query matched give and take none: a misspelled name
        // matches many members of one file (an interface's), which would
        // lift each other above the name meant.
        let mut by_file: FxHashMap<&str, Vec<f32>> = FxHashMap::default();
        for (id, c) in candidates.iter().filter(|(_, c)| c.exact.is_none()) {
            if let Some(u) = units.get(id) {
                by_file.entry(u.path.as_str()).or_default().push(c.score);
            }
        }
        for (id, c) in candidates.iter_mut().filter(|(_, c)| c.exact.is_none()) {
            let Some(scores) = units.get(id).and_then(|u| by_file.get(u.path.as_str())) else { continue };
            let mut others: Vec<f32> = scores.iter().copied().filter(|&s| s != c.score).collect();
            others.sort_by(|a, b| b.total_cmp(a));
            c.score += ranking.file_boost * others.iter().take(3).sum::<f32>();
        }
    }
    // Whether the query asks for tests matters only when tests weigh less.
    let code_paths = || units.values().filter(|u| u.language.family() == Family::Code).map(|u| u.path.as_str());
    let test_weight = if ranking.test_weight < 1.0 && !asks_for_tests(&plan.text, code_paths()) { ranking.test_weight } else { 1.0 };
    // Documents and configuration talk about the code in the words of a
    // question, so they would crowd code out of questions about code;
    // they weigh less unless the query asks about what they hold.
    // Measured (docs set: attrs and ripgrep, 39 questions; flask 3.0.3
    // with its sdist's docs, docstring and questions MRR@10):
    //   weight 0.25, no intent: docs 0.067, flask 0.491 / 0.711
    //   intent, else 0.5:       docs 0.331, flask 0.477 / 0.711
    //   intent, else 0.75:      docs 0.463, flask 0.464 / 0.702
    //   weight 1 (none):        docs 0.721, flask 0.393 / 0.599
    // Whole archives of the five tuning corpora (`harness.tune --trees`),
    // tests at 0.5, questions' tuning split / docs set, static model:
    // 0.75 → 0.672 / 0.423, 0.9 → 0.664 / 0.563, 1 → 0.652 / 0.674; MiniLM
    // int8 questions 0.75 → 0.688, 1 → 0.656. Kept at 0.75 for questions
    // about code; the docs set asks in words no rule tells from them.
    let docs_weight = prose_weight(&plan.text, ranking.docs_weight);
    let member_weight = if plan.names_code() { 1.0 } else { ranking.member_weight };
    let short_span = if plan.asks_question() { ranking.short_span } else { 0.0 };
    let used_names: Vec<&str> = plan.used.iter().map(|n| n.rsplit(['.', ':']).next().unwrap_or(n)).collect();
    for (id, c) in candidates.iter_mut() {
        let Some(u) = units.get(id) else { continue };
        // "what raises X": X's own definition matches every word of the
        // name and answers nothing.
        if used_names.contains(&u.name.as_str()) {
            c.score *= USED_DEFINITION_WEIGHT;
        }
        if member_weight < 1.0 && matches!(u.kind, SymbolKind::Field | SymbolKind::Constant) {
            c.score *= member_weight;
        }
        if short_span > 0.0 && !(plan.names_code() && c.exact.is_some()) {
            let lines = u.end_line.saturating_sub(u.start_line) as f32 + 1.0;
            c.score *= (lines / (lines + short_span)).sqrt();
        }
        if u.language.family() != Family::Code {
            c.score *= docs_weight;
            // A test's data (fixtures, expected output) is a test's too;
            // the project's records (license, changelog) speak every
            // question's words and answer only their own.
            if is_test_path(&u.path) {
                c.score *= test_weight;
            } else if docs_weight < 1.0 && is_record_path(&u.path) {
                c.score *= ranking.test_weight;
            }
        } else {
            // A chunk of comments (a module's `//!` docs, a license
            // header) is documentation inside a code file.
            if docs_weight < 1.0 && u.is_chunk && is_comment_block(&u.code, u.language) {
                c.score *= docs_weight;
            }
            if test_weight < 1.0 && (is_test_path(&u.path) || in_test_module(&u.qualified_name)) {
                c.score *= test_weight;
            }
        }
    }
    candidates.sort_by(|a, b| b.1.score.total_cmp(&a.1.score).then(a.0.cmp(&b.0)));
}

/// Whether at least four in five of a code chunk's lines (five or more)
/// are line comments in its language.
fn is_comment_block(code: &str, language: Language) -> bool {
    let markers: &[&str] = match language {
        Language::Python | Language::Ruby | Language::Bash | Language::R | Language::Julia | Language::Elixir => &["#"],
        Language::Lua | Language::Haskell | Language::Sql => &["--"],
        Language::Ocaml | Language::OcamlInterface => &["(*", "*"],
        Language::Php | Language::Hcl => &["//", "/*", "*", "#"],
        _ => &["//", "/*", "*"],
    };
    let (mut lines, mut comments) = (0usize, 0usize);
    for line in code.lines().map(str::trim_start).filter(|l| !l.is_empty()) {
        lines += 1;
        comments += usize::from(markers.iter().any(|m| line.starts_with(m)));
    }
    lines >= 5 && comments * 5 >= lines * 4
}

/// The project's records, not its documentation: licenses, notices,
/// authors, changelogs and release history, and an sdist's `PKG-INFO`
/// (its README again). `LICENSE-MIT`, `CHANGES.rst` and `NEWS` alike. By
/// file name only: ranking weighs documents and text so, not code
/// (`history.py`).
pub fn is_record_path(path: &str) -> bool {
    const STEMS: &[&str] = &[
        "license",
        "licence",
        "licenses",
        "copying",
        "copyright",
        "notice",
        "authors",
        "patents",
        "unlicense",
        "pkg-info",
        "changelog",
        "changes",
        "history",
        "news",
    ];
    let file = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let stem = file.split('.').next().unwrap_or("");
    STEMS.iter().any(|s| stem == *s || stem.strip_prefix(s).is_some_and(|rest| rest.starts_with(['-', '_'])))
}

/// Directories and file names of tests, examples, benchmarks, fixtures and
/// vendored code, in the conventions of the languages Kenning mines.
pub fn is_test_path(path: &str) -> bool {
    const DIRS: &[&str] = &[
        "test",
        "tests",
        "testing",
        "spec",
        "specs",
        "__tests__",
        "__mocks__",
        "testdata",
        "fixtures",
        "example",
        "examples",
        "bench",
        "benches",
        "benchmark",
        "benchmarks",
        "vendor",
        "third_party",
        "thirdparty",
        "node_modules",
        "e2e",
    ];
    let mut parts = path.split('/').peekable();
    while let Some(part) = parts.next() {
        if parts.peek().is_none() {
            let file = part.to_ascii_lowercase();
            let stem = file.split('.').next().unwrap_or("");
            return stem.starts_with("test_")
                || stem.ends_with("_test")
                || stem.ends_with("_tests")
                || stem.ends_with("_spec")
                || stem == "conftest"
                || file.contains(".test.")
                || file.contains(".spec.")
                || (part.ends_with("Test.java") || part.ends_with("Tests.java") || part.ends_with("Test.kt"));
        }
        if DIRS.contains(&part.to_ascii_lowercase().as_str()) {
            return true;
        }
    }
    false
}

/// A symbol inside a test module of a code file, such as Rust's
/// `#[cfg(test)] mod tests` (`crate::printer::tests::max_columns`): its
/// path says nothing, its qualified name does. The name's own last
/// segment does not count: a function may be called `test`.
pub fn in_test_module(qualified_name: &str) -> bool {
    let mut segments: Vec<&str> = qualified_name.split([':', '.']).filter(|s| !s.is_empty()).collect();
    segments.pop();
    segments.iter().any(|s| matches!(*s, "tests" | "test"))
}

/// `a/b/query.py` → `a/b/query`.
pub(crate) fn without_extension(path: &str) -> &str {
    path.rsplit_once('.').map_or(path, |(a, _)| a)
}

/// The query is about tests, examples or benchmarks themselves: it says so,
/// and none of its test words names the project's own code. In a test
/// framework "pytest" and "fixture" are the domain (`src/_pytest/fixtures.py`),
/// and its users say them as a web framework's say "request"; there "tests"
/// beside them means the users' tests ("collects tests from dependencies":
/// locate's tuning split, 112 reports, Acc@10 0.902 → 0.911, MRR@10 0.653 →
/// 0.655, when one such word, not all, was enough to turn this off).
/// `code_paths`: the paths of code files that may be the project's (tests
/// among them are passed over).
pub(crate) fn asks_for_tests<'a>(query: &str, code_paths: impl IntoIterator<Item = &'a str>) -> bool {
    let asked = test_words(query);
    if asked.is_empty() {
        return false;
    }
    let asked: FxHashSet<&str> = asked.iter().map(|w| lexical::singular(w)).collect();
    let mut named_by_code = FxHashSet::default();
    for path in code_paths.into_iter().filter(|p| !is_test_path(p)) {
        for word in without_extension(path).split(|c: char| !c.is_ascii_alphanumeric()) {
            if let Some(&asked_word) = asked.get(lexical::singular(&word.to_ascii_lowercase())) {
                named_by_code.insert(asked_word);
            }
        }
    }
    named_by_code.is_empty()
}

/// The query's words that ask for tests, examples or benchmarks, lowercased.
fn test_words(query: &str) -> Vec<String> {
    const WORDS: &[&str] = &[
        "test",
        "tests",
        "testing",
        "tested",
        "spec",
        "specs",
        "fixture",
        "fixtures",
        "mock",
        "mocks",
        "example",
        "examples",
        "benchmark",
        "benchmarks",
        "bench",
        "vendored",
        "vendor",
        "e2e",
        "conftest",
        "pytest",
    ];
    lexical::words(query).iter().map(|w| w.text.to_lowercase()).filter(|w| WORDS.contains(&w.as_str())).collect()
}

/// A function declared without its body: an overload's signature, an
/// interface's or trait's method, a prototype. Asked for by name, the
/// definition with the body is the better answer. Such a declaration is one
/// line, no longer than its signature and the `;` after it.
fn declaration_only(row: &SymbolRow) -> bool {
    row.kind.is_callable()
        && row.start_line == row.end_line
        && (row.end_col.saturating_sub(row.start_col) as usize) <= row.signature.len() + 1
}

fn kind_rank(kind: &SymbolKind) -> u8 {
    match kind {
        k if k.is_type() => 0,
        k if k.is_callable() => 1,
        _ => 2,
    }
}

/// Words naming what lives in a README, the docs, the changelog, the CI or
/// the build files rather than in code.
const PROSE_TOPICS: &[&str] = &[
    "install",
    "installation",
    "installing",
    "installed",
    "readme",
    "docs",
    "documentation",
    "documented",
    "tutorial",
    "faq",
    "changelog",
    "license",
    "licence",
    "contributing",
    "contribute",
    "contributors",
    "ci",
    "workflow",
    "workflows",
    "deploy",
    "deployment",
    "docker",
    "dockerfile",
    "makefile",
    "release",
    "released",
    "releases",
    "upgrade",
    "upgrading",
    "migrate",
    "migration",
    "deprecated",
    "deprecation",
    "supported",
    "compatibility",
    "compatible",
    "security",
    "vulnerability",
    "pre-commit",
    "tox",
    "nox",
];

/// Phrases of a question about using or working on the project.
const PROSE_PHRASES: &[&str] = &[
    "env var",
    "environment variable",
    "how do i",
    "how can i",
    "how to ",
    "how should i",
    "is it possible",
    "what changed",
    "what's new",
    "what is new",
    "release notes",
    "run the tests",
    "running the tests",
    "test suite",
    "which version",
    "config file",
    "configuration file",
];

/// How much documents and configuration weigh against code for a query:
/// fully when it asks about what they hold (install, CI, versions, how-to),
/// else `otherwise` (they speak a question's words, and would crowd code
/// out of questions about code).
pub fn prose_weight(query: &str, otherwise: f32) -> f32 {
    if asks_about_prose(query) { 1.0 } else { otherwise }
}

/// Whether a query asks about documentation, configuration or the
/// project's workflow rather than about code.
pub fn asks_about_prose(query: &str) -> bool {
    let lower = query.to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '.')).filter(|w| !w.is_empty()).collect();
    // A version number (`2.0`, `v14.1.1`) points at a changelog or a release.
    let version = |w: &&str| {
        let w = w.strip_prefix('v').unwrap_or(w).trim_end_matches('.');
        w.split('.').count() >= 2 && w.split('.').all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
    };
    // So does a number after "version" (`version 14`).
    let numbered_version = words.windows(2).any(|w| w[0] == "version" && w[1].chars().all(|c| c.is_ascii_digit()));
    PROSE_PHRASES.iter().any(|p| lower.contains(p))
        || words.iter().any(|w| PROSE_TOPICS.contains(&w.trim_end_matches('.')))
        || words.iter().any(version)
        || numbered_version
}

/// The first `k` candidates that show different code, in order of their
/// scores once each further hit from a file already chosen has weighed
/// `file_decay` once more (semble's saturation). Decay only lowers scores,
/// so the walk stops once no later candidate can enter the page.
fn select(ranked: &[(i64, Candidate)], units: &FxHashMap<i64, &UnitText>, k: usize, file_decay: f32, terms: &[String]) -> Vec<Hit> {
    // Copies among the candidates, by `copy_group`. Another file's piece
    // of a copy (its chunk beside its symbol) shows a hit's code too,
    // whichever of the two ranks first.
    let groups: FxHashMap<i64, CopyGroup> = ranked.iter().filter_map(|(id, _)| Some((*id, copy_group(units.get(id)?)?))).collect();
    let mut copies_of: FxHashMap<CopyGroup, Vec<&UnitText>> = FxHashMap::default();
    for (id, _) in ranked {
        if let (Some(group), Some(unit)) = (groups.get(id), units.get(id)) {
            copies_of.entry(*group).or_default().push(unit);
        }
    }
    let mut hits: Vec<Hit> = Vec::new();
    // Each hit's copy group and its copies.
    let mut hit_copies: Vec<(Option<CopyGroup>, &[&UnitText])> = Vec::new();
    let mut per_file: FxHashMap<&str, i32> = FxHashMap::default();
    for (id, c) in ranked {
        let Some(unit) = units.get(id) else { continue };
        let floor = || hits.iter().map(|h| h.score).fold(f32::INFINITY, f32::min);
        if hits.len() >= k && (file_decay >= 1.0 || c.score <= floor()) {
            break;
        }
        // A piece of a symbol already shown (its doc comment cut into
        // chunks of its own, then its code) widens that hit instead of
        // taking a place of its own.
        if let Some(hit) = hits.iter_mut().find(|h| continues(&Shown::of_hit(h), unit)) {
            hit.start_line = hit.start_line.min(unit.start_line);
            hit.end_line = hit.end_line.max(unit.end_line);
            if hit.unit == "symbol" {
                hit.header = symbol_header(hit.kind, &hit.qualified_name, &hit.path, hit.start_line, hit.end_line);
            }
            continue;
        }
        let group = groups.get(id).copied();
        let shown_already = |(hit, (hit_group, copies)): (&Hit, &(Option<CopyGroup>, &[&UnitText]))| {
            (group.is_some() && *hit_group == group)
                || duplicates(&Shown::of_hit(hit), unit)
                || copies.iter().map(|copy| Shown::of_unit(copy)).any(|copy| continues(&copy, unit) || duplicates(&copy, unit))
        };
        if hits.iter().zip(&hit_copies).any(shown_already) {
            continue;
        }
        let shown = per_file.entry(unit.path.as_str()).or_default();
        let mut hit = to_hit(unit, c, terms);
        hit.score *= file_decay.powi(*shown);
        *shown += 1;
        let copies_here: &[&UnitText] = match group.and_then(|group| copies_of.get(&group)) {
            Some(all) => &all[..all.len().min(MAX_COPIES)],
            None => &[],
        };
        for copy in copies_here {
            if hit.also_in.len() < MAX_ALSO_IN && copy.path != hit.path && !hit.also_in.contains(&copy.path) {
                hit.also_in.push(copy.path.clone());
            }
        }
        hits.push(hit);
        hit_copies.push((group, copies_here));
    }
    if file_decay < 1.0 {
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
        hits.truncate(k);
    }
    hits
}

/// Copies of one hit kept to drop their pieces (see [`select`]).
const MAX_COPIES: usize = 20;

/// Whether `unit` is another piece of the symbol an earlier hit shows, next
/// to it: a chunk named after that symbol, the symbol itself, or a
/// definition of the same name (a property's setter after its getter,
/// TypeScript's overload signatures before the body). A long doc comment
/// is cut into chunks of its own before the code, and each would otherwise
/// be an answer. Modules are left out: a file's chunks are all named after
/// it. A chunk named after a symbol that ends above it is a window of its
/// doc comment, however far above the code it lies.
fn continues(hit: &Shown, unit: &UnitText) -> bool {
    const GAP: u32 = 2;
    let one_symbol = hit.symbol_id.is_some() && hit.symbol_id == unit.symbol_id;
    let same_symbol = one_symbol || hit.qualified_name == unit.qualified_name;
    let doc_window = one_symbol && ((unit.is_chunk && unit.end_line < hit.start_line) || (hit.is_chunk && hit.end_line < unit.start_line));
    hit.path == unit.path
        && same_symbol
        && hit.kind != SymbolKind::Module
        && unit.kind == hit.kind
        && (doc_window || (unit.start_line <= hit.end_line + GAP && hit.start_line <= unit.end_line + GAP))
}

/// Units with the same group are copies of one code: a hash of their doc
/// comment and code with whitespace left out, its length, and the unit's
/// path inside its module (the same method in two classes is two answers).
type CopyGroup<'a> = ((u64, usize), &'a str);

/// The unit's [`CopyGroup`]. Short code without a doc (`return self._x`, a
/// one-line re-export) is the same in many places without being copied, so
/// it has none; a declaration with its doc (`declare function useNavigate():
/// NavigateFunction;` in each of a package's `.d.ts` builds) has one.
fn copy_group(unit: &UnitText) -> Option<CopyGroup<'_>> {
    const MIN_CHARS: usize = 80;
    let mut hasher = rustc_hash::FxHasher::default();
    let mut chars = 0;
    let text = unit.docstring.as_deref().unwrap_or_default().chars().chain(unit.code.chars());
    for c in text.filter(|c| !c.is_whitespace()) {
        std::hash::Hash::hash(&c, &mut hasher);
        chars += 1;
    }
    (chars >= MIN_CHARS).then(|| ((std::hash::Hasher::finish(&hasher), chars), unit.local_path.as_str()))
}

/// What of a shown hit, or of a copy of it, tells whether a unit shows the
/// same code or another piece of it.
struct Shown<'a> {
    path: &'a str,
    symbol_id: Option<i64>,
    start_line: u32,
    end_line: u32,
    kind: SymbolKind,
    is_chunk: bool,
    qualified_name: &'a str,
}

impl<'a> Shown<'a> {
    fn of_hit(hit: &'a Hit) -> Self {
        Shown {
            path: &hit.path,
            symbol_id: hit.symbol_id,
            start_line: hit.start_line,
            end_line: hit.end_line,
            kind: hit.kind,
            is_chunk: hit.unit == "chunk",
            qualified_name: &hit.qualified_name,
        }
    }

    fn of_unit(unit: &'a UnitText) -> Self {
        Shown {
            path: &unit.path,
            symbol_id: unit.symbol_id,
            start_line: unit.start_line,
            end_line: unit.end_line,
            kind: unit.kind,
            is_chunk: unit.is_chunk,
            qualified_name: &unit.qualified_name,
        }
    }
}

/// Whether `unit` shows the same code as an earlier hit.
fn duplicates(hit: &Shown, unit: &UnitText) -> bool {
    if hit.path != unit.path {
        return false;
    }
    let (a0, a1, b0, b1) = (hit.start_line, hit.end_line, unit.start_line, unit.end_line);
    let overlap = a1.min(b1).saturating_add(1).saturating_sub(a0.max(b0)) as f32;
    let len = |s: u32, e: u32| (e + 1).saturating_sub(s).max(1) as f32;
    let is_leaf = |kind: &SymbolKind| !(kind.is_type() || *kind == SymbolKind::Module);
    // An interface (or its chunk) and a declaration inside it: either one
    // shows the other.
    let holds = |outer: &SymbolKind, inner: &SymbolKind, (o0, o1): (u32, u32), (i0, i1): (u32, u32)| {
        *outer == SymbolKind::Interface && !inner.is_type() && o0 <= i0 && i1 <= o1
    };
    let one_interface = holds(&hit.kind, &unit.kind, (a0, a1), (b0, b1)) || holds(&unit.kind, &hit.kind, (b0, b1), (a0, a1));
    match (hit.is_chunk, unit.is_chunk) {
        // Two symbols are two answers, even nested ones (a class and its
        // method), but for an interface and the declarations it holds.
        (false, false) => one_interface,
        // A chunk cut from a symbol already shown, or lying inside a function
        // already shown; an interface's chunk and a declaration in it.
        (false, true) => {
            one_interface
                || (hit.qualified_name == unit.qualified_name && overlap >= 0.5 * len(b0, b1))
                || (is_leaf(&hit.kind) && overlap >= 0.6 * len(b0, b1))
        }
        // A function already shown as the chunk cut from it, or inside that
        // chunk; a class already shown as its own chunk, which holds all of
        // it and little else (a file's one chunk, named after its first
        // class, holds the others too: that class is an answer of its own).
        (true, false) => {
            let named_after = hit.qualified_name == unit.qualified_name;
            (is_leaf(&unit.kind) && ((named_after && overlap >= 0.5 * len(a0, a1)) || overlap >= len(b0, b1)))
                || (named_after && overlap >= len(b0, b1) && len(b0, b1) >= 0.8 * len(a0, a1))
        }
        (true, true) => overlap >= 0.5 * len(a0, a1).min(len(b0, b1)),
    }
}

fn to_hit(unit: &UnitText, c: &Candidate, terms: &[String]) -> Hit {
    let header = if unit.is_chunk {
        chunk_header(unit)
    } else {
        symbol_header(unit.kind, &unit.qualified_name, &unit.path, unit.start_line, unit.end_line)
    };
    Hit {
        path: unit.path.clone(),
        start_line: unit.start_line,
        end_line: unit.end_line,
        name: unit.name.clone(),
        qualified_name: unit.qualified_name.clone(),
        kind: unit.kind,
        unit: if unit.is_chunk { "chunk" } else { "symbol" },
        symbol_id: unit.symbol_id,
        language: unit.language,
        score: c.score,
        lanes: c.lanes,
        header,
        snippet: snippet(&unit.code, unit.start_line, terms),
        intent: None,
        also_in: Vec::new(),
    }
}

fn symbol_header(kind: SymbolKind, qualified_name: &str, path: &str, start_line: u32, end_line: u32) -> String {
    format!("{kind} {qualified_name} in {path}, lines {start_line} to {end_line}")
}

/// The window of lines with the most query terms (the first lines when none match).
fn snippet(code: &str, start_line: u32, terms: &[String]) -> Snippet {
    let lines: Vec<&str> = code.lines().collect();
    if lines.len() <= SNIPPET_LINES {
        return Snippet { start_line, text: lines.join("\n") };
    }
    let score_line = |l: &str| {
        let lower = l.to_lowercase();
        terms.iter().filter(|t| t.len() > 2 && lower.contains(t.as_str())).count()
    };
    let scores: Vec<usize> = lines.iter().map(|l| score_line(l)).collect();
    let mut best = (0, 0);
    let mut window: usize = scores[..SNIPPET_LINES].iter().sum();
    best.1 = window;
    for s in 1..=lines.len() - SNIPPET_LINES {
        window = window + scores[s + SNIPPET_LINES - 1] - scores[s - 1];
        if window > best.1 {
            best = (s, window);
        }
    }
    // Keep the signature in view when the best lines are near the top anyway.
    let from = if best.0 <= 2 { 0 } else { best.0 };
    Snippet { start_line: start_line + from as u32, text: lines[from..from + SNIPPET_LINES].join("\n") }
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    use expect_test::{Expect, expect};

    #[test]
    fn written_paths_name_definitions() {
        for (qualified, written, names) in [
            ("io::join::Join", "tokio::io::Join", true),
            ("io::join::Join", "tokio::fs::Join", false),
            ("requests.sessions.Session.send", "Session.send", true),
            ("requests.sessions.Session.send", "requests.Session.send", true),
            ("a.b.f", "x.f", false),
            ("a.b.f", "f", true),
            ("a.b.f", "a.b.g", false),
        ] {
            let segments: Vec<&str> = written.split(['.', ':']).filter(|s| !s.is_empty()).collect();
            assert_eq!(qualified_ends_with(qualified, &segments), names, "{written} names {qualified}");
        }
    }

    /// Fuses lanes (weight 1, k 60) and prints the ranking: id, score, and
    /// the rank in each lane (dense/BM25/exact).
    fn check_fusion(lanes: &[(&[i64], Lane)], tiers: &[(i64, u8)], expect: Expect) {
        let mut fusion = Fusion::new(&Ranking::default());
        for (ranked, lane) in lanes {
            let scored: Vec<(i64, f32)> = ranked.iter().map(|&id| (id, 0.0)).collect();
            fusion.add(&scored, *lane, 1.0);
        }
        let rank = |r: Option<usize>| r.map_or("-".to_string(), |r| r.to_string());
        let lines: Vec<String> = fusion
            .ranked(&tiers.iter().map(|&(id, tier)| (id, ExactMatch { tier, declaration: false })).collect(), false)
            .iter()
            .map(|(id, c)| format!("{id} {:.5} {}/{}/{}", c.score, rank(c.lanes.dense), rank(c.lanes.sparse), rank(c.lanes.exact)))
            .collect();
        expect.assert_eq(&(lines.join("\n") + "\n"));
    }

    #[test]
    fn rrf_sums_one_over_k_plus_rank_across_lanes() {
        check_fusion(
            &[(&[1, 2, 3], Lane::Dense), (&[3, 1], Lane::Sparse)],
            &[],
            expect![[r#"
                1 0.03252 1/2/-
                3 0.03227 3/1/-
                2 0.01613 2/-/-
            "#]],
        );
    }

    #[test]
    fn equal_scores_break_by_point_id() {
        check_fusion(
            &[(&[5], Lane::Dense), (&[4], Lane::Sparse)],
            &[],
            expect![[r#"
                4 0.01639 -/1/-
                5 0.01639 1/-/-
            "#]],
        );
    }

    #[test]
    fn a_strong_name_match_goes_first_with_the_top_score() {
        let lanes: &[(&[i64], Lane)] = &[(&[1, 2], Lane::Dense), (&[1], Lane::Sparse), (&[2], Lane::Exact)];
        check_fusion(
            lanes,
            &[(2, TIER_NAME)],
            expect![[r#"
                2 0.03279 2/-/1
                1 0.03279 1/1/-
            "#]],
        );
        // A fuzzy match is only a guess: it keeps its fused place.
        check_fusion(
            lanes,
            &[(2, TIER_FUZZY)],
            expect![[r#"
                1 0.03279 1/1/-
                2 0.03252 2/-/1
            "#]],
        );
    }

    #[test]
    fn a_definition_goes_before_a_bare_declaration_of_its_name() {
        // 1 declares the name (and leads the fused order), 2 defines it.
        let mut fusion = Fusion::new(&Ranking::default());
        fusion.add(&[(1, 0.0), (2, 0.0)], Lane::Sparse, 1.0);
        let tiers = [(1, ExactMatch { tier: TIER_NAME, declaration: true }), (2, ExactMatch { tier: TIER_NAME, declaration: false })];
        let order: Vec<i64> = fusion.ranked(&tiers.into_iter().collect(), false).iter().map(|(id, _)| *id).collect();
        assert_eq!(order, [2, 1]);
    }

    /// Which paths weigh as tests or as the project's records.
    #[test]
    fn tests_and_records_by_path() {
        let paths = [
            "src/flask/app.py",
            "tests/test_basic.py",
            "tests/models/whatwg.json",
            "src/runtime/tests/loom_pool.rs",
            "LICENSE",
            "LICENSE-MIT",
            "COPYING.txt",
            "CHANGES.rst",
            "docs/changelog.md",
            "HISTORY.md",
            "PKG-INFO",
            "NEWS",
            "docs/licensing.rst",
            "src/history.py",
            "README.md",
        ];
        let lines: Vec<String> = paths
            .iter()
            .map(|p| {
                let class = match (is_test_path(p), is_record_path(p)) {
                    (true, _) => "test",
                    (_, true) => "record",
                    _ => "-",
                };
                format!("{p}: {class}")
            })
            .collect();
        expect![[r#"
            src/flask/app.py: -
            tests/test_basic.py: test
            tests/models/whatwg.json: test
            src/runtime/tests/loom_pool.rs: test
            LICENSE: record
            LICENSE-MIT: record
            COPYING.txt: record
            CHANGES.rst: record
            docs/changelog.md: record
            HISTORY.md: record
            PKG-INFO: record
            NEWS: record
            docs/licensing.rst: -
            src/history.py: record
            README.md: -
        "#]]
        .assert_eq(&(lines.join("\n") + "\n"));
    }

    #[test]
    fn symbols_of_test_modules() {
        let names = [
            "crate::standard::tests::replacement_max_columns",
            "crate::standard::StandardSink::matched",
            "crate::output::help_template::test::wrap_help_last_word",
            "crate::runner::test",
            "tests.test_basic.test_run",
            "flask.testing.FlaskClient.open",
            "crate::latest::Attest::check",
        ];
        let lines: Vec<String> = names.iter().map(|n| format!("{n}: {}", in_test_module(n))).collect();
        expect![[r#"
            crate::standard::tests::replacement_max_columns: true
            crate::standard::StandardSink::matched: false
            crate::output::help_template::test::wrap_help_last_word: true
            crate::runner::test: false
            tests.test_basic.test_run: true
            flask.testing.FlaskClient.open: false
            crate::latest::Attest::check: false
        "#]]
        .assert_eq(&(lines.join("\n") + "\n"));
    }

    /// Which queries keep documents and configuration at full weight.
    #[test]
    fn questions_about_docs_ci_and_builds_ask_about_prose() {
        let queries = [
            "how do I install it",
            "where is the CI configured",
            "which environment variable sets the port",
            "Dockerfile base image",
            "parse the request body as JSON",
            "Flask.make_response",
            "docstring of the session interface",
            "what changed in 2.1.0",
            "how do I run the tests",
            "per-user settings folder location",
            "what came with version 3",
            "read the version field of the header",
        ];
        let lines: Vec<String> = queries.iter().map(|q| format!("{q}: {}", asks_about_prose(q))).collect();
        expect![[r#"
            how do I install it: true
            where is the CI configured: true
            which environment variable sets the port: true
            Dockerfile base image: true
            parse the request body as JSON: false
            Flask.make_response: false
            docstring of the session interface: false
            what changed in 2.1.0: true
            how do I run the tests: true
            per-user settings folder location: false
            what came with version 3: true
            read the version field of the header: false
        "#]]
        .assert_eq(&(lines.join("\n") + "\n"));
    }

    #[test]
    fn names_read_from_a_query() {
        let lines: Vec<String> = [
            "the send method in the Session class",
            "which async function handles retries",
            "the abstract class of all transports",
            "show the park method in the Inner type",
            "wait until the user presses Ctrl+C",
            "where is T bound",
            "Session",
        ]
        .iter()
        .map(|q| {
            let plan = plan_query(q).unwrap();
            format!("{q}: names {:?} members {:?} containers {:?}", plan.identifiers, plan.members, plan.containers)
        })
        .collect();
        expect![[r#"
            the send method in the Session class: names ["send", "Session"] members ["send"] containers ["session"]
            which async function handles retries: names ["handles"] members [] containers []
            the abstract class of all transports: names [] members [] containers []
            show the park method in the Inner type: names ["park", "Inner"] members ["park"] containers ["inner"]
            wait until the user presses Ctrl+C: names ["Ctrl"] members [] containers []
            where is T bound: names [] members [] containers []
            Session: names ["Session"] members [] containers []
        "#]]
        .assert_eq(&(lines.join("\n") + "\n"));
    }

    #[test]
    fn pieces_of_one_symbol_widen_one_hit() {
        use SymbolKind::*;
        let of = |symbol_id: i64, u: UnitText| UnitText { symbol_id: Some(symbol_id), ..u };
        let cases = [
            (
                "a window of a long doc comment far above its function",
                of(7, unit(Function, true, "m.f", (1, 20))),
                of(7, unit(Function, false, "m.f", (40, 44))),
            ),
            ("its function, then the window", of(7, unit(Function, false, "m.f", (40, 44))), of(7, unit(Function, true, "m.f", (1, 20)))),
            (
                "another definition's window above",
                of(7, unit(Function, true, "m.f", (1, 20))),
                of(8, unit(Function, false, "m.f", (40, 44))),
            ),
            ("a function after its doc comment's chunk", unit(Function, true, "m.f", (1, 30)), unit(Function, false, "m.f", (30, 34))),
            ("a doc comment's chunk after its function", unit(Function, false, "m.f", (30, 34)), unit(Function, true, "m.f", (1, 29))),
            ("the next chunk of one doc comment, past a blank line", unit(Enum, true, "m.E", (1, 20)), unit(Enum, true, "m.E", (22, 40))),
            ("a chunk of the same name further on", unit(Function, true, "m.f", (1, 20)), unit(Function, true, "m.f", (40, 60))),
            ("a property's setter after its getter", unit(Method, false, "m.C.url", (10, 14)), unit(Method, false, "m.C.url", (16, 18))),
            ("two chunks of one file", unit(Module, true, "m", (1, 20)), unit(Module, true, "m", (21, 40))),
            ("the next symbol", unit(Function, false, "m.f", (1, 20)), unit(Function, false, "m.g", (21, 30))),
        ];
        let lines: Vec<String> = cases
            .into_iter()
            .map(|(case, mut shown, mut later)| {
                (shown.point_id, later.point_id) = (1, 2);
                let by_id: FxHashMap<i64, &UnitText> = [(1, &shown), (2, &later)].into_iter().collect();
                let ranked = [(1, Candidate { score: 0.9, ..Default::default() }), (2, Candidate { score: 0.5, ..Default::default() })];
                let hits = select(&ranked, &by_id, 3, 1.0, &[]);
                let shown: Vec<String> = hits.iter().map(|h| format!("{} {}-{}", h.unit, h.start_line, h.end_line)).collect();
                format!("{case}: {}", shown.join(", "))
            })
            .collect();
        expect![[r#"
            a window of a long doc comment far above its function: chunk 1-44
            its function, then the window: symbol 1-44
            another definition's window above: chunk 1-20, symbol 40-44
            a function after its doc comment's chunk: chunk 1-34
            a doc comment's chunk after its function: symbol 1-34
            the next chunk of one doc comment, past a blank line: chunk 1-40
            a chunk of the same name further on: chunk 1-20, chunk 40-60
            a property's setter after its getter: symbol 10-18
            two chunks of one file: chunk 1-20, chunk 21-40
            the next symbol: symbol 1-20, symbol 21-30
        "#]]
        .assert_eq(&(lines.join("\n") + "\n"));
    }

    #[test]
    fn copies_of_one_code_make_one_hit() {
        use SymbolKind::*;
        let body = "function retry(request, attempts) {\n  for (let i = 0; i < attempts; i++) {\n    if (send(request)) return true;\n  }\n  return false;\n}\n";
        let at = |path: &str, qualified_name: &str, code: &str| {
            let mut u = unit(Function, false, qualified_name, (3, 8));
            (u.path, u.code) = (path.into(), code.into());
            u
        };
        let chunk_at = |path: &str, qualified_name: &str, code: &str| UnitText { is_chunk: true, ..at(path, qualified_name, code) };
        let exported = format!("export {body}");
        let doc = "Returns the value the loader of the current route gave, typed as the loader's result.";
        // Each case: units in the order they rank.
        let cases = [
            (
                "the same function in two builds",
                vec![
                    at("dist/production/index.js", "index.retry", body),
                    at("dist/development/index.js", "index.retry", &body.replace("  ", "    ")),
                ],
            ),
            (
                "a copy's chunk, before the copy",
                vec![at("a/x.js", "x.retry", body), chunk_at("b/x.js", "x.retry", &exported), at("b/x.js", "x.retry", body)],
            ),
            (
                "a copy's doc comment chunk, before the copy",
                vec![
                    UnitText { start_line: 8, ..at("a/x.js", "x.retry", body) },
                    chunk_at("b/x.js", "x.retry", &format!("/** Retries. */\n{body}")),
                    UnitText { start_line: 8, ..at("b/x.js", "x.retry", body) },
                ],
            ),
            ("three copies", vec![at("a/x.js", "x.retry", body), at("b/x.js", "x.retry", body), at("c/x.js", "x.retry", body)]),
            ("one line changed", vec![at("a/x.js", "x.retry", body), at("b/x.js", "x.retry", &body.replace("true", "false"))]),
            ("another name", vec![at("a/x.js", "x.retry", body), at("b/x.js", "x.again", body)]),
            (
                "the same method in two classes",
                vec![at("app.py", "app.Flask.retry", body), at("blueprints.py", "blueprints.Blueprint.retry", body)],
            ),
            (
                "short code",
                vec![at("a/x.js", "x.get", "get() { return this.value; }"), at("b/x.js", "x.get", "get() { return this.value; }")],
            ),
            (
                "short code with its doc",
                vec![
                    UnitText { docstring: Some(doc.into()), ..at("a/x.d.ts", "x.get", "declare function get(): Value;") },
                    UnitText { docstring: Some(doc.into()), ..at("b/x.d.ts", "x.get", "declare function get(): Value;") },
                ],
            ),
        ];
        let lines: Vec<String> = cases
            .into_iter()
            .map(|(case, mut ranked_units)| {
                for (i, u) in ranked_units.iter_mut().enumerate() {
                    u.point_id = i as i64 + 1;
                }
                let by_id: FxHashMap<i64, &UnitText> = ranked_units.iter().map(|u| (u.point_id, u)).collect();
                let ranked: Vec<(i64, Candidate)> = ranked_units
                    .iter()
                    .map(|u| (u.point_id, Candidate { score: 1.0 - u.point_id as f32 / 10.0, ..Default::default() }))
                    .collect();
                let hits = select(&ranked, &by_id, 3, 1.0, &[]);
                let shown: Vec<String> = hits.iter().map(|h| format!("{} {} also in {:?}", h.unit, h.path, h.also_in)).collect();
                format!("{case}: {}", shown.join(", "))
            })
            .collect();
        expect![[r#"
            the same function in two builds: symbol dist/production/index.js also in ["dist/development/index.js"]
            a copy's chunk, before the copy: symbol a/x.js also in ["b/x.js"]
            a copy's doc comment chunk, before the copy: symbol a/x.js also in ["b/x.js"]
            three copies: symbol a/x.js also in ["b/x.js", "c/x.js"]
            one line changed: symbol a/x.js also in [], symbol b/x.js also in []
            another name: symbol a/x.js also in [], symbol b/x.js also in []
            the same method in two classes: symbol app.py also in [], symbol blueprints.py also in []
            short code: symbol a/x.js also in [], symbol b/x.js also in []
            short code with its doc: symbol a/x.d.ts also in ["b/x.d.ts"]
        "#]]
        .assert_eq(&(lines.join("\n") + "\n"));
    }

    fn unit(kind: SymbolKind, is_chunk: bool, qualified_name: &str, lines: (u32, u32)) -> UnitText {
        UnitText {
            point_id: 0,
            file_id: 1,
            path: "m.py".into(),
            language: Language::Python,
            kind,
            is_chunk,
            symbol_id: None,
            name: qualified_name.rsplit('.').next().unwrap_or_default().into(),
            qualified_name: qualified_name.into(),
            local_path: qualified_name.split_once('.').map_or("", |(_, local)| local).into(),
            signature: String::new(),
            docstring: None,
            start_line: lines.0,
            end_line: lines.1,
            code: String::new(),
            class: None,
            method: None,
            parent_doc: None,
        }
    }

    /// Reranks candidates written `path:name score [exact tier] [kind]`
    /// (functions unless a kind is given; lines 10 apart, so none
    /// duplicates another) for a question in plain words, and prints the page.
    fn check_rerank(candidates: &str, overrides: RankingOverrides, expect: Expect) {
        check_rerank_for("how are requests retried", candidates, overrides, expect)
    }

    /// `candidates`: one a line, `path:name score [kind] [exact tier] [N lines]`
    /// (5 lines unless said). Spans weigh nothing unless `short_span` is set,
    /// so that each test's figures are its own knob's.
    fn check_rerank_for(query: &str, candidates: &str, overrides: RankingOverrides, expect: Expect) {
        let ranking = overrides.apply(&Ranking { short_span: 0.0, ..Ranking::default() });
        let (mut units, mut ranked) = (Vec::new(), Vec::new());
        for (i, line) in candidates.lines().map(str::trim).filter(|l| !l.is_empty()).enumerate() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (path, name) = fields[0].split_once(':').unwrap();
            let kind = fields[2..].iter().find_map(|f| SymbolKind::parse(f)).unwrap_or(SymbolKind::Function);
            let lines = fields[2..].iter().find_map(|f| f.strip_suffix("lines")?.parse::<u32>().ok()).unwrap_or(5);
            let mut u = unit(kind, false, &format!("m.{name}"), (i as u32 * 1000 + 1, i as u32 * 1000 + lines));
            u.point_id = i as i64;
            u.path = path.into();
            u.language = match path.rsplit_once('.').map(|(_, ext)| ext) {
                Some("py") => Language::Python,
                Some("rs") => Language::Rust,
                Some("json") => Language::Json,
                Some("md") => Language::Markdown,
                _ => Language::Text,
            };
            units.push(u);
            let exact = fields[2..].iter().find_map(|t| t.parse().ok()).map(|tier| ExactMatch { tier, declaration: false });
            ranked.push((i as i64, Candidate { score: fields[1].parse().unwrap(), exact, ..Default::default() }));
        }
        let by_id: FxHashMap<i64, &UnitText> = units.iter().map(|u| (u.point_id, u)).collect();
        adjust(&mut ranked, &by_id, &plan_query(query).unwrap(), &ranking);
        let hits = select(&ranked, &by_id, 3, ranking.file_decay, &[]);
        let lines: Vec<String> = hits.iter().map(|h| format!("{}:{} {:.3}", h.path, h.name, h.score)).collect();
        expect.assert_eq(&(lines.join("\n") + "\n"));
    }

    /// Which code chunks are comments: fixtures after `=== <language>`.
    #[test]
    fn comment_blocks() {
        let fixtures = r#"
=== rust
//! A multi-producer, multi-consumer broadcast queue.
//!
//! Each sent value is seen by all consumers.
//!
//! ```
//! let (tx, rx) = broadcast::channel(16);
//! ```
=== rust
/// Sends a value.
/// Returns an error when every receiver is gone.
#[inline]
pub fn send(&self, value: T) -> Result<usize, SendError<T>> {
    self.shared.send(value)
}
=== rust
// short
// but all comment
=== python
# Copyright the authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
import os
=== typescript
/**
 * Emits the values of the source, each later by `due`.
 *
 * @param due the delay
 * @param scheduler where to wait
 */
=== bash
#!/bin/sh
# Installs the hooks.
set -e
cp hooks/* .git/hooks/
chmod +x .git/hooks/*
"#;
        let verdicts: Vec<String> = fixtures
            .split("=== ")
            .filter(|f| !f.trim().is_empty())
            .map(|f| {
                let (language, code) = f.split_once('\n').unwrap();
                let block = is_comment_block(code, Language::from_name(language).unwrap());
                format!("{language}, {} lines: {}", code.lines().count(), if block { "comments" } else { "code" })
            })
            .collect();
        expect![[r#"
            rust, 7 lines: comments
            rust, 6 lines: code
            rust, 2 lines: code
            python, 6 lines: comments
            typescript, 6 lines: comments
            bash, 5 lines: code"#]]
        .assert_eq(&verdicts.join("\n"));
    }

    /// Tests weigh less unless asked for, their data too; documents less
    /// unless asked about, the project's records (license, changelog) as
    /// little as tests.
    #[test]
    fn tests_docs_and_records_weigh_less_than_code() {
        let candidates = "tests/test_retry.py:test_retry 0.5\n tests/data/retries.json:case 0.5\n LICENSE:LICENSE 0.5\n README.md:Retrying 0.5\n retry.py:retry 0.4";
        let page = |query, expect| check_rerank_for(query, candidates, RankingOverrides::default(), expect);
        page(
            "how are requests retried",
            expect![[r#"
                retry.py:retry 0.400
                README.md:Retrying 0.375
                tests/test_retry.py:test_retry 0.250
            "#]],
        );
        page(
            "which tests cover retries",
            expect![[r#"
                tests/test_retry.py:test_retry 0.500
                retry.py:retry 0.400
                tests/data/retries.json:case 0.375
            "#]],
        );
        page(
            "under which license is it",
            expect![[r#"
                LICENSE:LICENSE 0.500
                README.md:Retrying 0.500
                retry.py:retry 0.400
            "#]],
        );
    }

    /// Short spans weigh less, unless they are the name the query gives.
    #[test]
    fn short_spans_weigh_less() {
        let candidates = "a.rs:ready 0.5 method 1 3lines\n b.rs:turn 0.4 method 48lines\n c.rs:Interest 0.3 struct 12lines";
        let page =
            |query, expect| check_rerank_for(query, candidates, RankingOverrides { short_span: Some(8.0), ..Default::default() }, expect);
        page(
            "where does the reactor wait for events and wake the tasks that are ready",
            expect![[r#"
                b.rs:turn 0.370
                a.rs:ready 0.261
                c.rs:Interest 0.232
            "#]],
        );
        page(
            "wake the tasks that are ready",
            expect![[r#"
                a.rs:ready 0.500
                b.rs:turn 0.400
                c.rs:Interest 0.300
            "#]],
        );
        page(
            "ready",
            expect![[r#"
                a.rs:ready 0.500
                b.rs:turn 0.400
                c.rs:Interest 0.300
            "#]],
        );
    }

    /// A test module inside a code file weighs as a test file.
    #[test]
    fn inline_test_modules_weigh_as_tests() {
        let candidates = "src/util.rs:tests::replace_all_works 0.5\n src/util.rs:Replacer::replace_all 0.4\n src/lib.rs:test 0.3";
        let page = |query, expect| check_rerank_for(query, candidates, RankingOverrides::default(), expect);
        page(
            "replace every match with the captures",
            expect![[r#"
                src/util.rs:Replacer::replace_all 0.400
                src/lib.rs:test 0.300
                src/util.rs:tests::replace_all_works 0.250
            "#]],
        );
        page(
            "which tests check replacing every match",
            expect![[r#"
                src/util.rs:tests::replace_all_works 0.500
                src/util.rs:Replacer::replace_all 0.400
                src/lib.rs:test 0.300
            "#]],
        );
    }

    #[test]
    fn a_file_with_several_candidates_vouches_for_each() {
        let candidates = "a.py:f 0.5\n a.py:g 0.4\n a.py:h 0.3\n b.py:k 0.55";
        let boost = |b| RankingOverrides { file_boost: Some(b), ..Default::default() };
        check_rerank(
            candidates,
            boost(0.0),
            expect![[r#"
                b.py:k 0.550
                a.py:f 0.500
                a.py:g 0.400
            "#]],
        );
        check_rerank(
            candidates,
            boost(0.1),
            expect![[r#"
                a.py:f 0.570
                b.py:k 0.550
                a.py:g 0.480
            "#]],
        );
        // Names the query matched neither give nor take file evidence.
        check_rerank(
            "a.py:f 0.5 5\n a.py:g 0.4 5\n a.py:h 0.3 5\n b.py:k 0.55",
            boost(0.1),
            expect![[r#"
                b.py:k 0.550
                a.py:f 0.500
                a.py:g 0.400
            "#]],
        );
    }

    #[test]
    fn a_question_in_words_prefers_code_to_the_members_that_describe_it() {
        let candidates = "a.rs:Skip 0.5 field\n a.rs:MAX_TICKS 0.45 constant\n a.rs:next_timeout 0.4\n b.rs:Interval 0.3 struct";
        check_rerank(
            candidates,
            RankingOverrides::default(),
            expect![[r#"
                a.rs:next_timeout 0.400
                b.rs:Interval 0.300
                a.rs:Skip 0.250
            "#]],
        );
        check_rerank(
            candidates,
            RankingOverrides { member_weight: Some(1.0), ..Default::default() },
            expect![[r#"
                a.rs:Skip 0.500
                a.rs:MAX_TICKS 0.450
                a.rs:next_timeout 0.400
            "#]],
        );
        // A query that names code keeps the members where its lanes put them.
        check_rerank_for(
            "MissedTickBehavior::Skip",
            candidates,
            RankingOverrides::default(),
            expect![[r#"
                a.rs:Skip 0.500
                a.rs:MAX_TICKS 0.450
                a.rs:next_timeout 0.400
            "#]],
        );
    }

    #[test]
    fn saturation_lets_other_files_onto_the_page() {
        let candidates = "a.py:f 0.5\n a.py:g 0.45\n a.py:h 0.4\n b.py:k 0.3";
        let decay = |d| RankingOverrides { file_boost: Some(0.0), file_decay: Some(d), ..Default::default() };
        check_rerank(
            candidates,
            decay(1.0),
            expect![[r#"
                a.py:f 0.500
                a.py:g 0.450
                a.py:h 0.400
            "#]],
        );
        check_rerank(
            candidates,
            decay(0.5),
            expect![[r#"
                a.py:f 0.500
                b.py:k 0.300
                a.py:g 0.225
            "#]],
        );
    }

    /// Which later results repeat code already shown (the first of each pair).
    #[test]
    fn duplicates_drop_repeated_code_and_keep_nested_answers() {
        use SymbolKind::*;
        let shown_function = unit(Function, false, "m.f", (10, 20));
        let shown_class = unit(Class, false, "m.C", (1, 40));
        let shown_chunk = unit(Module, true, "m", (1, 30));
        let shown_interface = unit(Interface, false, "m.I", (1, 12));
        let cases = [
            ("a method of a shown interface", &shown_interface, unit(Method, false, "m.I.g", (5, 9))),
            ("the interface of a shown method", &unit(Method, false, "m.I.g", (5, 9)), shown_interface.clone()),
            ("a method after a shown interface", &shown_interface, unit(Method, false, "m.J.g", (14, 16))),
            ("the interface's chunk after a shown method", &unit(Method, false, "m.I.g", (5, 9)), unit(Interface, true, "m.I", (1, 12))),
            ("a method of a shown class", &shown_class, unit(Method, false, "m.C.g", (5, 9))),
            ("a chunk cut from a shown class", &shown_class, unit(Class, true, "m.C", (1, 20))),
            ("a chunk overlapping a shown class, named otherwise", &shown_class, unit(Module, true, "m", (30, 45))),
            ("a chunk inside a shown function", &shown_function, unit(Module, true, "m", (12, 18))),
            ("a function inside a shown chunk", &shown_chunk, unit(Function, false, "m.h", (5, 9))),
            ("a class inside a shown chunk", &shown_chunk, unit(Class, false, "m.D", (5, 9))),
            ("a class inside a shown chunk named after it", &unit(Class, true, "m.D", (5, 9)), unit(Class, false, "m.D", (5, 9))),
            ("a class in a shown chunk named after it, that holds more", &shown_chunk, unit(Class, false, "m", (5, 20))),
            ("a chunk mostly overlapping a shown chunk", &shown_chunk, unit(Module, true, "m", (16, 40))),
            ("a chunk barely overlapping a shown chunk", &shown_chunk, unit(Module, true, "m", (28, 60))),
        ];
        let lines: Vec<String> =
            cases.iter().map(|(case, shown, later)| format!("{case}: {}", duplicates(&Shown::of_unit(shown), later))).collect();
        expect![[r#"
            a method of a shown interface: true
            the interface of a shown method: true
            a method after a shown interface: false
            the interface's chunk after a shown method: true
            a method of a shown class: false
            a chunk cut from a shown class: true
            a chunk overlapping a shown class, named otherwise: false
            a chunk inside a shown function: true
            a function inside a shown chunk: true
            a class inside a shown chunk: false
            a class inside a shown chunk named after it: true
            a class in a shown chunk named after it, that holds more: false
            a chunk mostly overlapping a shown chunk: true
            a chunk barely overlapping a shown chunk: false
        "#]]
        .assert_eq(&(lines.join("\n") + "\n"));
    }
}
