//! Bug localization: a whole report in, the files and functions to change
//! out, each with the evidence that put it there.
//!
//! The report is read as evidence (`report.rs`) and each kind feeds the lane
//! that fits it; every lane ranks files, and the ranks are fused (RRF):
//! - frames: the files a stack trace runs through, nearest the error first;
//! - paths: files the report names (`sqlmigrate.py`, `a/b.py`, a module's
//!   dotted path), and words that are a file's name (`sqlmigrate`);
//! - path words: files whose path holds the report's words (`server`);
//! - names: files that define the names the report spells as code;
//! - phrases: files that hold an error message's words, near each other;
//! - literals: files whose code quotes an option or key the report names
//!   (`"--show-capture"`, `"console_output_style"`): where it is read;
//! - text: BM25 over whole files, with the report's every word;
//! - definitions: BM25 over the words of the names each file defines
//!   ("isinstance" → `find_isinstance_check`);
//! - semantic: the dense lane's best point per file.
//!
//! Within each file, symbols score by the frames whose lines they hold, the
//! names they define, and their own BM25 and dense ranks. `functions` lists
//! them across files, for an agent that edits functions rather than files.

use crate::hybrid::{asks_for_tests, fold_name, in_test_module, is_test_path, qualified_ends_with, without_extension};
use crate::lexical;
use crate::report::{self, Report};
use crate::shard::PointFilter;
use crate::{SearchError, Searcher};
use ken_core::{Family, Language, Relation, SymbolKind};
use ken_store::{SymbolRow, UnitText};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::Instant;

/// Longest report read (characters): far beyond any real one, a bound
/// against a pasted log of megabytes.
pub const MAX_REPORT_CHARS: usize = 200_000;

/// The RRF constant of [`functions_across`]. On our 249 reports (tune split
/// / held out), function Acc@5 read 0.471 / 0.476 with each file's symbols
/// after the previous file's, and 0.522 / 0.561 fused at k = 1, 2 or 3
/// (Acc@1 is the same: the first file's first symbol stays first); a
/// file's rank weighing more or less than a symbol's did worse on one
/// split or the other.
pub const FUNCTION_RRF_K: f32 = 2.0;

/// The symbols of ranked files in one list, best first: a file's rank and
/// a symbol's rank within its file count alike (reciprocal-rank fusion),
/// so the best function of the second file comes before the third of the
/// first. Ties go to the better file. An agent that edits functions reads
/// this list; the files' own lists keep each symbol's evidence.
pub fn functions_across(files: &[FileHit]) -> Vec<FunctionHit> {
    let mut ranked: Vec<(f32, usize, usize)> = files
        .iter()
        .enumerate()
        .flat_map(|(f, file)| {
            (0..file.symbols.len()).map(move |s| (1.0 / (FUNCTION_RRF_K + 1.0 + f as f32) + 1.0 / (FUNCTION_RRF_K + 1.0 + s as f32), f, s))
        })
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    ranked
        .into_iter()
        .map(|(score, f, s)| {
            let (file, symbol) = (&files[f], &files[f].symbols[s]);
            FunctionHit {
                path: file.path.clone(),
                name: symbol.name.clone(),
                qualified_name: symbol.qualified_name.clone(),
                kind: symbol.kind,
                start_line: symbol.start_line,
                end_line: symbol.end_line,
                score,
            }
        })
        .collect()
}

#[derive(Clone, Debug)]
pub struct LocateOptions {
    /// Files to return.
    pub k: usize,
    /// Symbols per file.
    pub symbols: usize,
    pub weights: LocateWeights,
    /// Also each lane's ranking and each file's prior, so that weights can
    /// be tried without running the lanes again.
    pub explain: bool,
}

impl Default for LocateOptions {
    fn default() -> Self {
        LocateOptions { k: 10, symbols: 5, weights: LocateWeights::default(), explain: false }
    }
}

/// Each lane's weight in the fusion of file ranks, and the priors.
/// Chosen on the tuning split of bench/locate (89 reports then; file
/// Acc@5 / MRR@10): all as first written (names 1, text 1.5, title 1)
/// 0.573 / 0.471; title 3 0.674 / 0.495; and names 0.5 0.719 / 0.514;
/// and text 2 0.719 / 0.528. Without the text lane 0.367 / 0.316; without
/// names 0.608 / 0.405; frames changed nothing (few traces reach the code).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LocateWeights {
    /// Files a stack frame runs through. Tuning split, 112 reports, file
    /// Acc@1 / Acc@5 / MRR@10 (from `--explain`'s lanes, every other
    /// weight as it is): 2 and 4 → 0.536 / 0.821 / 0.650, 8 → 0.545 /
    /// 0.821 / 0.654, one report (held out the same): left at 2. Few
    /// reports have frames in the code.
    pub frames: f32,
    pub paths: f32,
    pub names: f32,
    /// Factor on a name found only in example code (a fenced block tagged
    /// with a language): the reporter's use of the API names its entry
    /// points (`CompleteEnv::with_factory`), seldom the code at fault.
    /// Such names make a lane of their own at this share of `names`.
    /// Tuning split, 112 reports, file Acc@1 / Acc@5 / MRR@10: 1 → 0.527
    /// / 0.804 / 0.636, 0.5 → 0.527 / 0.804 / 0.641, 0.25 → 0.527 / 0.812
    /// / 0.642, 0 → 0.518 / 0.812 / 0.638 (held out: 0.525 / 0.814 for
    /// all four). The same factor on BM25's terms found only in example
    /// code costs: tuning split Acc@5 0.812 → 0.795 at 0.5 and at 0.25.
    pub example_names: f32,
    /// Files of what the named functions call or instantiate (the graph).
    /// Tuning split, 112 reports, file Acc@5 / MRR@10: 0 → 0.777 / 0.557,
    /// 0.5 → 0.741 / 0.548, 1 → 0.723 / 0.528. Off for files; within a
    /// file, what a named function reaches still counts.
    pub graph: f32,
    pub phrases: f32,
    /// Files whose code holds an option or key the report names as a
    /// string literal (`"--show-capture"`, `'console_output_style'`),
    /// each key by how few files quote it (at most 3). Measured on all
    /// 209 reports' lanes (stop 56, the tune split, with tests and docs at
    /// 0.1), file Acc@1 / Acc@5 / Acc@10 / MRR@10: 0 → 0.540 / 0.818 /
    /// 0.920 / 0.652, 0.5 → 0.540 / 0.818 / 0.920 / 0.656, 1 → 0.526 /
    /// 0.810 / 0.912 / 0.649, 2 → 0.511 / 0.803 / 0.912 / 0.638 (held
    /// out at 0.5: Acc@1 0.514 → 0.556, MRR 0.641 → 0.671).
    pub literals: f32,
    /// Files that call a message catalogue's function (a generated file's)
    /// that the report names or quotes: where the message is raised.
    /// Tuning split, 112 reports, file Acc@1 / Acc@5 / MRR@10: 0 → 0.518
    /// / 0.812 / 0.638, 0.25 → 0.527 / 0.821 / 0.643, 0.5 → 0.536 / 0.821
    /// / 0.650, 1 → 0.527 / 0.821 / 0.645, 2 → 0.518 / 0.821 / 0.641
    /// (held out: Acc@5 0.814 → 0.831 at any weight).
    pub raisers: f32,
    pub text: f32,
    /// Files by the words of the names they define (`definition_lane`).
    /// All 249 reports' lanes (stop 58), file Acc@1 / Acc@5 / Acc@10 /
    /// MRR@10, tune split: 0 → 0.545 / 0.818 / 0.897 / 0.657, 1 → 0.533 /
    /// 0.830 / 0.915 / 0.663, 1.5 → 0.533 / 0.836 / 0.915 / 0.663, 2 →
    /// 0.558 / 0.836 / 0.909 / 0.678, 2.5 → 0.545 / 0.824 / 0.903 / 0.674
    /// (held out at 2: 0.560 / 0.857 / 0.929 / 0.673 → 0.595 / 0.893 /
    /// 0.917 / 0.715). A coordinate search over every weight with it found
    /// three reports' Acc@1 on the tune split and lost one or two held out:
    /// the others are left as they were.
    pub definitions: f32,
    /// Files whose path's words the report says (`server/visitors`, `css`),
    /// each word by how few paths hold it. Tuning split, 112 reports, file
    /// Acc@1 / Acc@5 / MRR@10: 0 → 0.491 / 0.804 / 0.613, 0.75 → 0.518 /
    /// 0.777 / 0.631, 1 → 0.518 / 0.786 / 0.629, 1.5 → 0.482 / 0.777 /
    /// 0.604. (Files by their best chunk's BM25 as another lane lost
    /// beside it: weight 0.5 → 0.491 / 0.777 / 0.620; BM25's b at 0.3, 0.5
    /// or 0.9 instead of 0.75 lost too; so did weighing each path word also
    /// by how few files' text says it, or dropping the words most files
    /// say: 0.500 / 0.795 / 0.612 at best. The title's path words alone,
    /// without the body's: 0.545 / 0.804 / 0.648 after the written-path
    /// change, within a report or two of the default's 0.536 / 0.795 /
    /// 0.641, and the held-out third's MRR 0.640 → 0.630: left as is.)
    pub path_words: f32,
    /// The semantic lane, when the model's vectors answer it. 30 reports
    /// (clap, ripgrep, undici) on MiniLM int8 indexes, file Acc@1 / Acc@5
    /// / MRR@10: 0 → 0.333 / 0.867 / 0.535, 0.5 → 0.333 / 0.833 / 0.538,
    /// 1 → 0.300 / 0.833 / 0.523, 2 → 0.367 / 0.833 / 0.562: noise at
    /// best, so off until a better model (or more reports) says otherwise.
    pub semantic: f32,
    /// The semantic lane's weight when only static vectors answer it (the
    /// model's are not there). Tuning split, 98 reports, static index:
    /// 0 → Acc@5 0.724, MRR@10 0.520; 1 → 0.684 / 0.503; 2 → 0.643 /
    /// 0.458: a token table cannot read a bug report.
    pub static_semantic: f32,
    /// RRF's k: small, so a lane's first few files stand out.
    pub rrf_k: f32,
    /// Factor on the text lane's terms that the first line (the title) says.
    pub title: f32,
    /// Factor on tests, examples and vendored code unless the report is
    /// about them. A repository with thousands of test and documentation
    /// files (pylint's functional tests and message examples) had them
    /// fill the first 20 at 0.3. All 209 reports' lanes, tests and docs
    /// together, file Acc@1 / Acc@5 / Acc@10 / MRR@10 of the first 20
    /// with tests and docs removed, tune split: 0.3 → 0.533 / 0.796 /
    /// 0.876 / 0.636, 0.2 → 0.540 / 0.818 / 0.912 / 0.650, 0.1 → 0.540 /
    /// 0.818 / 0.920 / 0.652, 0.05 the same (held out: 0.514 / 0.792 /
    /// 0.861 / 0.626 → 0.514 / 0.847 / 0.903 / 0.641 at 0.1).
    pub test_weight: f32,
    /// Factor on documents, configuration and code in a documentation
    /// directory (`doc/data/messages/…/bad.py`) unless the report is about
    /// them: as `test_weight`.
    pub docs_weight: f32,
    /// Factor on translation catalogues (`.po`) and on files whose header
    /// says they are generated ("This file is generated by
    /// scripts/process-messages. Do not edit!"): a message
    /// catalogue says the report's words, but the fix is in the generator's
    /// input or in the code that raises the message. Tuning split, 112
    /// reports, file Acc@1 / MRR@10: 1 → 0.455 / 0.589, 0.3 → 0.491 /
    /// 0.613, 0.1 the same; Acc@5 0.804 throughout.
    pub generated_weight: f32,
}

impl Default for LocateWeights {
    fn default() -> Self {
        LocateWeights {
            frames: 2.0,
            paths: 2.0,
            names: 0.5,
            example_names: 0.25,
            graph: 0.0,
            phrases: 1.0,
            literals: 0.5,
            raisers: 0.5,
            text: 2.0,
            definitions: 2.0,
            path_words: 1.0,
            semantic: 0.0,
            static_semantic: 0.0,
            rrf_k: 10.0,
            title: 3.0,
            test_weight: 0.1,
            docs_weight: 0.1,
            generated_weight: 0.3,
        }
    }
}

impl LocateWeights {
    /// The first setting out of range, as (field, problem).
    pub fn invalid(&self) -> Option<(&'static str, String)> {
        for (field, value, high) in [
            ("frames", self.frames, 100.0),
            ("paths", self.paths, 100.0),
            ("names", self.names, 100.0),
            ("example_names", self.example_names, 1.0),
            ("graph", self.graph, 100.0),
            ("phrases", self.phrases, 100.0),
            ("literals", self.literals, 100.0),
            ("raisers", self.raisers, 100.0),
            ("text", self.text, 100.0),
            ("definitions", self.definitions, 100.0),
            ("path_words", self.path_words, 100.0),
            ("semantic", self.semantic, 100.0),
            ("static_semantic", self.static_semantic, 100.0),
            ("rrf_k", self.rrf_k, 10_000.0),
            ("title", self.title, 100.0),
            ("test_weight", self.test_weight, 1.0),
            ("docs_weight", self.docs_weight, 1.0),
            ("generated_weight", self.generated_weight, 1.0),
        ] {
            if !(value.is_finite() && (0.0..=high).contains(&value)) {
                return Some((field, format!("must be from 0 to {high} (got {value})")));
            }
        }
        None
    }
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct LocateResponse {
    /// Best first.
    pub files: Vec<FileHit>,
    /// The symbols of `files` in one list, best first (see
    /// [`functions_across`]).
    pub functions: Vec<FunctionHit>,
    /// What the report was read as.
    pub evidence: EvidenceSummary,
    pub notes: Vec<String>,
    pub timings: LocateTimings,
    /// With `explain`: how the ranking was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<LocateExplain>,
}

/// How a ranking was made: a file's score is the sum over lanes of
/// `weight / (rrf_k + rank)` (rank from 1), times its prior.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct LocateExplain {
    pub rrf_k: f32,
    pub lanes: Vec<LaneRanking>,
    /// Every ranked file's prior (tests, documents, declarations and
    /// generated files weigh less), for the files that are not 1.
    pub priors: Vec<FilePrior>,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct LaneRanking {
    /// The weight's name in `LocateWeights` (`example_names`' weight is
    /// already multiplied by `names`).
    pub lane: String,
    pub weight: f32,
    /// Best first, at most `EXPLAINED_FILES`.
    pub files: Vec<String>,
    /// The score each file was ranked by (BM25, idf sums), or none when
    /// the lane ranks by order alone (frames, paths).
    pub scores: Vec<f32>,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct FilePrior {
    pub path: String,
    pub prior: f32,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct FileHit {
    pub path: String,
    #[schemars(with = "String")]
    pub language: Language,
    pub score: f32,
    /// Why the file is here, strongest first.
    pub evidence: Vec<Evidence>,
    /// The functions and classes most likely to change, best first.
    pub symbols: Vec<SymbolHit>,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SymbolHit {
    pub name: String,
    pub qualified_name: String,
    #[schemars(with = "String")]
    pub kind: SymbolKind,
    pub start_line: u32,
    pub end_line: u32,
    pub score: f32,
    pub evidence: Vec<Evidence>,
}

/// A function or class of one of the located files, in the list across
/// files; its evidence is under its file's `symbols`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct FunctionHit {
    pub path: String,
    pub name: String,
    pub qualified_name: String,
    #[schemars(with = "String")]
    pub kind: SymbolKind,
    pub start_line: u32,
    pub end_line: u32,
    /// `1 / (k + file's rank) + 1 / (k + rank in its file)`, ranks from 1
    /// and k = [`FUNCTION_RRF_K`].
    pub score: f32,
}

#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Evidence {
    pub kind: EvidenceKind,
    /// What matched: the frame, path, name or phrase as the report has it,
    /// or the lane's rank.
    pub detail: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EvidenceKind {
    Frame,
    Path,
    Name,
    Graph,
    Phrase,
    Text,
    Semantic,
    /// The language model's rerank named the file.
    Model,
}

/// How many of each kind of evidence the report held.
#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct EvidenceSummary {
    pub frames: usize,
    /// Frames that point into this repository.
    pub frames_in_repo: usize,
    pub paths: usize,
    pub names: usize,
    pub phrases: usize,
    pub terms: usize,
    pub characters: usize,
}

#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct LocateTimings {
    pub read_ms: f64,
    pub lanes_ms: f64,
    pub symbols_ms: f64,
    pub total_ms: f64,
}

/// Files the text lane ranks.
const TEXT_LANE_FILES: usize = 200;
/// Files of each lane that `explain` lists: as many as the text lane
/// ranks, so that its ranking can be redone from them.
const EXPLAINED_FILES: usize = TEXT_LANE_FILES;
/// Leading files whose header is read for a generated-file mark.
const GENERATED_CHECKED: usize = 50;
/// Most files that may quote a key for it to count (`literal_lane`).
const LITERAL_FILES: usize = 3;
/// Keys looked up per report: a pasted log can name hundreds.
const MAX_KEYS: usize = 40;
/// A name more files define than this is no evidence for any of them.
const MAX_DEFINING_FILES: usize = 5;
/// Named symbols whose calls are followed, and calls followed from each.
const MAX_GRAPH_SOURCES: usize = 40;
const MAX_GRAPH_EDGES: usize = 50;

/// Files of the index, looked up by name and by path from the end.
struct FileTable {
    files: Vec<(i64, String, u64)>,
    by_id: FxHashMap<i64, usize>,
    by_path: FxHashMap<String, usize>,
    by_name: FxHashMap<String, Vec<usize>>,
    /// File stems, lowercased without `_` and `-` (`sqlmigrate`, `httpclient`).
    by_stem: FxHashMap<String, Vec<usize>>,
    /// Whether a file is generated, once its header has been read.
    generated: RefCell<FxHashMap<usize, bool>>,
}

impl FileTable {
    fn new(mut files: Vec<(i64, String, u64)>) -> FileTable {
        // By path: the order files were indexed in must not show through
        // (it made rankings differ between two indexes of one tree).
        files.sort_by(|a, b| a.1.cmp(&b.1));
        let mut by_name: FxHashMap<String, Vec<usize>> = FxHashMap::default();
        let mut by_stem: FxHashMap<String, Vec<usize>> = FxHashMap::default();
        for (i, (_, path, _)) in files.iter().enumerate() {
            let name = path.rsplit('/').next().unwrap_or(path);
            by_name.entry(name.to_string()).or_default().push(i);
            let stem = name.split('.').next().unwrap_or(name);
            by_stem.entry(fold_name(stem)).or_default().push(i);
        }
        let by_id = files.iter().enumerate().map(|(i, (id, _, _))| (*id, i)).collect();
        let by_path = files.iter().enumerate().map(|(i, (_, path, _))| (path.clone(), i)).collect();
        FileTable { files, by_id, by_path, by_name, by_stem, generated: RefCell::default() }
    }

    /// The order of two files a lane scores alike: the smaller first, as
    /// the more specific (a name two files define, path words a whole
    /// directory shares), then by path. Tuning split, 112 reports, file
    /// Acc@1 / Acc@5 / MRR@10: by path 0.545 / 0.804 / 0.651, larger first
    /// 0.518 / 0.804 / 0.640, by the text lane's rank 0.491 / 0.804 / 0.628,
    /// shallower path first 0.518 / 0.804 / 0.641, smaller first 0.536 /
    /// 0.821 / 0.648. (Before, ties fell to the order files were indexed
    /// in, which differs between two indexes of one tree.)
    fn tie(&self, a: usize, b: usize) -> std::cmp::Ordering {
        self.files[a].2.cmp(&self.files[b].2).then(a.cmp(&b))
    }

    /// Files a written path can mean: the indexed path is a suffix of it
    /// (`/site-packages/pkg/a.py` is `pkg/a.py`), or it is a suffix of the
    /// indexed path (`a/b.py` is `src/a/b.py`). The longest agreement wins.
    fn resolve(&self, written: &str) -> Vec<usize> {
        let written = written.trim_start_matches("./");
        let name = written.rsplit('/').next().unwrap_or(written);
        let Some(candidates) = self.by_name.get(name) else { return Vec::new() };
        let parts: Vec<&str> = written.split('/').filter(|p| !p.is_empty() && *p != ".").collect();
        let mut best: (usize, Vec<usize>) = (0, Vec::new());
        for &i in candidates {
            let indexed: Vec<&str> = self.files[i].1.split('/').collect();
            let agree = parts.iter().rev().zip(indexed.iter().rev()).take_while(|(a, b)| a == b).count();
            // All of the shorter path must agree.
            if agree < parts.len().min(indexed.len()) {
                continue;
            }
            match agree.cmp(&best.0) {
                std::cmp::Ordering::Greater => best = (agree, vec![i]),
                std::cmp::Ordering::Equal => best.1.push(i),
                std::cmp::Ordering::Less => {}
            }
        }
        best.1
    }
}

/// Words joined by hyphens: `no-dupe-keys`, `object-shorthand`.
static HYPHENATED: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"\b[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+\b").expect("a valid pattern"));

/// One lane's files, best first, each with its evidence.
#[derive(Default)]
struct LaneFiles {
    ranked: Vec<usize>,
    evidence: FxHashMap<usize, Vec<String>>,
    /// The score each file was ranked by, in lanes that have one.
    scores: FxHashMap<usize, f32>,
}

impl LaneFiles {
    fn add(&mut self, file: usize, detail: String) {
        if !self.evidence.contains_key(&file) {
            self.ranked.push(file);
        }
        let details = self.evidence.entry(file).or_default();
        if details.len() < 3 && !details.contains(&detail) {
            details.push(detail);
        }
    }
}

impl Searcher<'_> {
    /// Ranks the files (and, in each, the symbols) a bug report is about.
    pub fn locate(&self, text: &str, options: &LocateOptions) -> Result<LocateResponse, SearchError> {
        let start = Instant::now();
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(SearchError::EmptyQuery);
        }
        let mut notes = Vec::new();
        let text: String = if trimmed.chars().count() > MAX_REPORT_CHARS {
            notes.push(format!("the report was cut to its first {MAX_REPORT_CHARS} characters"));
            trimmed.chars().take(MAX_REPORT_CHARS).collect()
        } else {
            trimmed.to_string()
        };
        let report = report::read(&text);
        let read_ms = ms(start);
        let t = Instant::now();
        let table = FileTable::new(self.store.chunked_files()?);
        let weights = &options.weights;
        let languages = self.store.file_languages()?;
        let family = |file: usize| languages.get(&table.files[file].0).map_or(Family::Code, |l| l.family());
        let implementation =
            |file: usize| family(file) == Family::Code && !in_docs_dir(&table.files[file].1) && !is_test_path(&table.files[file].1);

        let (text_lane, term_hits) = self.text_lane(&report, &table, weights.title, implementation)?;
        let path_words = path_words_lane(&report, &table, weights.title);
        let definitions =
            if weights.definitions > 0.0 { self.definition_lane(&report, &table, weights.title)? } else { LaneFiles::default() };
        let frames = self.frame_lane(&report, &table);
        let paths = path_lane(&report, &table, &term_hits.files_with);
        let in_example = |name: &String| report.example_names.contains(name);
        let (names, mut defined) = self.name_lane(report.names.iter().filter(|n| !in_example(n)), &table)?;
        let (example_names, defined_in_examples) = self.name_lane(report.names.iter().filter(|n| in_example(n)), &table)?;
        for (id, name) in defined_in_examples {
            defined.entry(id).or_insert(name);
        }
        let (graph, reached) = self.graph_lane(&defined, &table, weights.graph > 0.0)?;
        let (phrases, holders) = self.phrase_lane(&report, &table)?;
        let (raisers, raise_sites) = self.raiser_lane(&defined, &holders, &table)?;
        let (semantic, dense_points, semantic_weight) = self.semantic_lane(&report, &table, weights, &mut notes)?;

        let docs_weight = if asks_about_docs(first_line(&text)) { 1.0 } else { weights.docs_weight };
        let code_paths = (0..table.files.len()).filter(|&file| family(file) == Family::Code).map(|file| table.files[file].1.as_str());
        let about_tests = asks_for_tests(first_line(&text), code_paths);
        let about_types = asks_about_types(&text);
        // Tests, documents and declaration files weigh less unless asked for.
        let prior = |file: usize| {
            let path = &table.files[file].1;
            // Declaration files (`index.d.ts`, stubs) restate the API in the
            // report's words, but a fix lives in the implementation.
            if family(file) != Family::Code || in_docs_dir(path) || (!about_types && is_declaration_file(path)) {
                docs_weight
            } else if !about_tests && is_test_path(path) {
                weights.test_weight
            } else {
                1.0
            }
        };
        let literals = self.literal_lane(&report, &table, |file| prior(file) == 1.0)?;
        let lanes_ms = ms(t);

        let lanes = [
            ("frames", EvidenceKind::Frame, &frames, weights.frames),
            ("paths", EvidenceKind::Path, &paths, weights.paths),
            ("names", EvidenceKind::Name, &names, weights.names),
            ("example_names", EvidenceKind::Name, &example_names, weights.names * weights.example_names),
            ("graph", EvidenceKind::Graph, &graph, weights.graph),
            ("phrases", EvidenceKind::Phrase, &phrases, weights.phrases),
            ("literals", EvidenceKind::Phrase, &literals, weights.literals),
            ("raisers", EvidenceKind::Graph, &raisers, weights.raisers),
            ("text", EvidenceKind::Text, &text_lane, weights.text),
            ("definitions", EvidenceKind::Name, &definitions, weights.definitions),
            ("path_words", EvidenceKind::Path, &path_words, weights.path_words),
            ("semantic", EvidenceKind::Semantic, &semantic, semantic_weight),
        ];
        let mut scores: FxHashMap<usize, f32> = FxHashMap::default();
        for (_, _, lane, weight) in &lanes {
            for (rank, &file) in lane.ranked.iter().enumerate() {
                *scores.entry(file).or_default() += weight / (weights.rrf_k + rank as f32 + 1.0);
            }
        }
        for (file, score) in scores.iter_mut() {
            *score *= prior(*file);
        }
        let mut ranked: Vec<(usize, f32)> = scores.into_iter().collect();
        let order = |ranked: &mut Vec<(usize, f32)>| {
            ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(table.files[a.0].1.cmp(&table.files[b.0].1)));
        };
        order(&mut ranked);
        // The files the generated weight was applied to, for `explain`.
        let mut down_weighted: FxHashSet<usize> = FxHashSet::default();
        if weights.generated_weight < 1.0 {
            // Headers are read for the leading files only: a generated file
            // further down cannot rise by others falling.
            for (file, score) in ranked.iter_mut().take(GENERATED_CHECKED.max(options.k * 3)) {
                if self.is_generated(&table, *file)? {
                    *score *= weights.generated_weight;
                    down_weighted.insert(*file);
                }
            }
            order(&mut ranked);
        }
        let explain = if options.explain {
            let mut explained: FxHashSet<usize> = FxHashSet::default();
            let lanes = lanes
                .iter()
                .map(|(name, _, lane, weight)| {
                    let files = &lane.ranked[..lane.ranked.len().min(EXPLAINED_FILES)];
                    explained.extend(files.iter().copied());
                    LaneRanking {
                        lane: name.to_string(),
                        weight: *weight,
                        files: files.iter().map(|&f| table.files[f].1.clone()).collect(),
                        // All or none: a lane scores every file it ranks, or ranks by order alone.
                        scores: files.iter().map(|f| lane.scores.get(f).copied()).collect::<Option<_>>().unwrap_or_default(),
                    }
                })
                .collect();
            let mut priors = Vec::new();
            let mut explained: Vec<usize> = explained.into_iter().collect();
            explained.sort_unstable();
            for file in explained {
                let generated = if down_weighted.contains(&file) { weights.generated_weight } else { 1.0 };
                let prior = prior(file) * generated;
                if prior != 1.0 {
                    priors.push(FilePrior { path: table.files[file].1.clone(), prior });
                }
            }
            Some(LocateExplain { rrf_k: weights.rrf_k, lanes, priors })
        } else {
            None
        };
        ranked.truncate(options.k);

        let t = Instant::now();
        let top: Vec<(i64, &str)> = ranked.iter().map(|(f, _)| (table.files[*f].0, table.files[*f].1.as_str())).collect();
        let outlines: Vec<Vec<SymbolRow>> =
            top.iter().map(|(_, path)| Ok(self.store.outline(path)?.unwrap_or_default())).collect::<Result<_, SearchError>>()?;
        let unit_ranks = self.unit_ranks(&term_hits, &top, &outlines, &dense_points)?;
        let mut files = Vec::with_capacity(ranked.len());
        for ((file, score), outline) in ranked.into_iter().zip(&outlines) {
            let (id, path, _) = &table.files[file];
            let mut evidence = Vec::new();
            for (_, kind, lane, _) in &lanes {
                if let Some(details) = lane.evidence.get(&file) {
                    evidence.extend(details.iter().map(|d| Evidence { kind: *kind, detail: d.clone() }));
                }
            }
            let found = Found {
                defined: &defined,
                reached: &reached,
                holders: &holders,
                raise_sites: &raise_sites,
                ranks: &unit_ranks,
                test_weight: if about_tests { 1.0 } else { weights.test_weight },
            };
            let symbols = file_symbols(path, outline, &report, &found, options.symbols);
            files.push(FileHit {
                path: path.clone(),
                language: languages.get(id).copied().unwrap_or(Language::Text),
                score,
                evidence,
                symbols,
            });
        }
        let symbols_ms = ms(t);
        let frames_in_repo = report.frames.iter().filter(|f| !table.resolve(&f.path).is_empty()).count();
        let evidence = EvidenceSummary {
            frames: report.frames.len(),
            frames_in_repo,
            paths: report.paths.len(),
            names: report.names.len(),
            phrases: report.phrases.len(),
            terms: term_hits.weights.len(),
            characters: text.chars().count(),
        };
        Ok(LocateResponse {
            functions: functions_across(&files),
            files,
            evidence,
            notes,
            timings: LocateTimings { read_ms, lanes_ms, symbols_ms, total_ms: ms(start) },
            explain,
        })
    }

    /// Files the frames run through, nearest the error first.
    fn frame_lane(&self, report: &Report, table: &FileTable) -> LaneFiles {
        let mut lane = LaneFiles::default();
        for frame in &report.frames {
            for file in table.resolve(&frame.path) {
                let at = frame.line.map(|l| format!(":{l}")).unwrap_or_default();
                let function = frame.function.as_deref().map(|f| format!(" in {f}")).unwrap_or_default();
                lane.add(file, format!("frame {}: {}{at}{function}", frame.depth, table.files[file].1));
            }
        }
        lane
    }

    /// Files that define the names the report spells as code; a name few
    /// files define weighs more. Also the ids of the symbols found.
    fn name_lane<'a>(
        &self,
        names: impl Iterator<Item = &'a String>,
        table: &FileTable,
    ) -> Result<(LaneFiles, FxHashMap<i64, String>), SearchError> {
        let mut scores: FxHashMap<usize, (f32, Vec<String>)> = FxHashMap::default();
        let mut defined: FxHashMap<i64, String> = FxHashMap::default();
        for name in names {
            let segments: Vec<&str> = name.split(['.', ':']).filter(|s| !s.is_empty()).collect();
            let Some(last) = segments.last() else { continue };
            let rows: Vec<SymbolRow> = self
                .store
                .symbols_by_name(last)?
                .into_iter()
                .filter(|r| r.kind != SymbolKind::Module)
                .filter(|r| segments.len() < 2 || qualified_ends_with(&r.qualified_name, &segments))
                .collect();
            let files: FxHashSet<usize> = rows.iter().filter_map(|r| table.by_path.get(&r.path).copied()).collect();
            // `new`, `parse`, `run`: defined everywhere, they point nowhere.
            if files.is_empty() || files.len() > MAX_DEFINING_FILES {
                continue;
            }
            let weight = 1.0 / files.len() as f32;
            for r in &rows {
                defined.entry(r.id).or_insert_with(|| name.clone());
            }
            for file in files {
                let entry = scores.entry(file).or_default();
                entry.0 += weight;
                if entry.1.len() < 3 {
                    entry.1.push(format!("defines `{name}`"));
                }
            }
        }
        let mut ranked: Vec<(usize, (f32, Vec<String>))> = scores.into_iter().collect();
        ranked.sort_by(|a, b| b.1.0.total_cmp(&a.1.0).then(table.tie(a.0, b.0)));
        let mut lane = LaneFiles::default();
        for (file, (score, details)) in ranked {
            for d in details {
                lane.add(file, d);
            }
            lane.scores.insert(file, score);
        }
        Ok((lane, defined))
    }

    /// What the named functions call or instantiate: the report names the
    /// API it used (`raises`, `approx`), the fix is often in what that
    /// reaches (`RaisesContext`, `ApproxScalar.__eq__`). Files by how many
    /// named symbols reach into them.
    /// `rank_files` false (the lane's weight is 0): only the symbols reached.
    fn graph_lane(
        &self,
        defined: &FxHashMap<i64, String>,
        table: &FileTable,
        rank_files: bool,
    ) -> Result<(LaneFiles, FxHashMap<i64, String>), SearchError> {
        let mut reached: FxHashMap<i64, String> = FxHashMap::default();
        let mut scores: FxHashMap<usize, (usize, String)> = FxHashMap::default();
        let mut named: Vec<(&i64, &String)> = defined.iter().collect();
        named.sort();
        for (&id, name) in named.into_iter().take(MAX_GRAPH_SOURCES) {
            let edges = self.store.edges_from(id, &[Relation::Calls, Relation::Instantiates])?;
            for edge in edges.iter().take(MAX_GRAPH_EDGES) {
                let Some(dst) = edge.dst else { continue };
                if defined.contains_key(&dst) {
                    continue;
                }
                reached.entry(dst).or_insert_with(|| name.clone());
                if rank_files
                    && let Some(row) = self.store.symbol_by_id(dst)?
                    && let Some(&file) = table.by_path.get(&row.path)
                {
                    let entry = scores.entry(file).or_insert((0, format!("reached from `{name}`")));
                    entry.0 += 1;
                }
            }
        }
        let mut ranked: Vec<(usize, (usize, String))> = scores.into_iter().collect();
        ranked.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(table.tie(a.0, b.0)));
        let mut lane = LaneFiles::default();
        for (file, (_, detail)) in ranked {
            lane.add(file, detail);
        }
        Ok((lane, reached))
    }

    /// A file made by a tool: its header says so, or it is a translation
    /// catalogue. Each header is read once per report.
    fn is_generated(&self, table: &FileTable, file: usize) -> Result<bool, SearchError> {
        if let Some(&known) = table.generated.borrow().get(&file) {
            return Ok(known);
        }
        let (id, path, _) = &table.files[file];
        let known = is_translation_catalogue(path) || says_generated(&self.store.file_head(*id, 400)?.unwrap_or_default());
        table.generated.borrow_mut().insert(file, known);
        Ok(known)
    }

    /// The code that raises a message the report names or quotes. A
    /// message catalogue (Svelte's generated `errors.js`, a function per
    /// message) holds the report's words but is not where a fix goes; its
    /// functions' callers are where the message is raised. Files by how
    /// many such calls they hold; also the calling symbols, with the message.
    fn raiser_lane(
        &self,
        defined: &FxHashMap<i64, String>,
        holders: &FxHashMap<i64, String>,
        table: &FileTable,
    ) -> Result<(LaneFiles, FxHashMap<i64, String>), SearchError> {
        let mut messages: Vec<(i64, &String)> = defined.iter().chain(holders.iter()).map(|(&id, m)| (id, m)).collect();
        messages.sort();
        messages.dedup_by_key(|(id, _)| *id);
        let mut sites: FxHashMap<i64, String> = FxHashMap::default();
        let mut scores: FxHashMap<usize, (usize, String)> = FxHashMap::default();
        for (id, message) in messages.into_iter().take(MAX_GRAPH_SOURCES) {
            let Some(row) = self.store.symbol_by_id(id)? else { continue };
            let Some(&file) = table.by_path.get(&row.path) else { continue };
            if !row.kind.is_callable() || !self.is_generated(table, file)? {
                continue;
            }
            for edge in self.store.edges_to(id, &[Relation::Calls])?.iter().take(MAX_GRAPH_EDGES) {
                let Some(&caller_file) = table.by_path.get(&edge.path) else { continue };
                sites.entry(edge.src).or_insert_with(|| message.clone());
                let entry = scores.entry(caller_file).or_insert((0, format!("raises `{}` (line {})", row.name, edge.line)));
                entry.0 += 1;
            }
        }
        let mut ranked: Vec<(usize, (usize, String))> = scores.into_iter().collect();
        ranked.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(table.tie(a.0, b.0)));
        let mut lane = LaneFiles::default();
        for (file, (_, detail)) in ranked {
            lane.add(file, detail);
        }
        Ok((lane, sites))
    }

    /// Files that hold a message's words near each other (FTS5 `NEAR`).
    fn phrase_lane(&self, report: &Report, table: &FileTable) -> Result<(LaneFiles, FxHashMap<i64, String>), SearchError> {
        let mut holders: FxHashMap<i64, String> = FxHashMap::default();
        let mut scores: FxHashMap<usize, (f32, String)> = FxHashMap::default();
        for phrase in &report.phrases {
            let tokens: Vec<String> = phrase.iter().map(|w| lexical::token(w)).collect();
            // Each word is a few tokens in a document (whole, parts, stem).
            let query = format!("NEAR({}, {})", tokens.join(" "), tokens.len() * 3);
            let hits = self.store.lexical_search(&query, 50, &Default::default())?;
            let points: Vec<i64> = hits.iter().map(|(p, _)| *p).collect();
            let files = self.store.files_of_points(&points)?;
            let distinct: FxHashSet<i64> = files.iter().copied().collect();
            if distinct.is_empty() || distinct.len() > 10 {
                continue;
            }
            // A symbol's own point holds its signature and docstring, so a
            // match there names the holder exactly; a chunk (the code) names
            // the definition it is cut from.
            let symbol_points: Vec<i64> = points.iter().copied().filter(|&p| !UnitText::unit_of(p).0).collect();
            let chosen = if symbol_points.is_empty() { &points } else { &symbol_points };
            for symbol in self.store.symbols_of_points(chosen)?.into_iter().flatten() {
                holders.entry(symbol).or_insert_with(|| phrase.join(" "));
            }
            for file_id in distinct {
                if let Some(&file) = table.by_id.get(&file_id) {
                    let entry = scores.entry(file).or_insert((0.0, format!("holds \"{}\"", phrase.join(" "))));
                    entry.0 += 1.0;
                }
            }
        }
        let mut ranked: Vec<(usize, (f32, String))> = scores.into_iter().collect();
        ranked.sort_by(|a, b| b.1.0.total_cmp(&a.1.0).then(table.tie(a.0, b.0)));
        let mut lane = LaneFiles::default();
        for (file, (_, detail)) in ranked {
            lane.add(file, detail);
        }
        Ok((lane, holders))
    }

    /// Files whose code quotes one of the report's options or keys
    /// (`"--show-capture"`), among the files `counts` lets in (the
    /// implementation, not tests or documents); a key quoted in more than
    /// [`LITERAL_FILES`] of them says little. Candidates come from the BM25
    /// index (the key's terms near each other), then the file's text must
    /// hold the key in quotes.
    fn literal_lane(&self, report: &Report, table: &FileTable, counts: impl Fn(usize) -> bool) -> Result<LaneFiles, SearchError> {
        let mut scores: FxHashMap<usize, (f32, String)> = FxHashMap::default();
        let mut texts: FxHashMap<usize, Option<String>> = FxHashMap::default();
        for key in report.keys.iter().take(MAX_KEYS) {
            let tokens: Vec<String> = lexical::terms(key, false).iter().map(|t| lexical::token(t)).collect();
            if tokens.is_empty() {
                continue;
            }
            let query = format!("NEAR({}, {})", tokens.join(" "), tokens.len() * 3);
            let hits = self.store.lexical_search(&query, 200, &Default::default())?;
            let points: Vec<i64> = hits.iter().map(|(p, _)| *p).collect();
            let mut candidates: Vec<usize> =
                self.store.files_of_points(&points)?.iter().filter_map(|id| table.by_id.get(id).copied()).collect();
            candidates.sort_unstable();
            candidates.dedup();
            let quoted = [format!("\"{key}\""), format!("'{key}'")];
            let mut quoting = Vec::new();
            for file in candidates.into_iter().filter(|&f| counts(f)) {
                if let std::collections::hash_map::Entry::Vacant(slot) = texts.entry(file) {
                    slot.insert(self.store.file_text(&table.files[file].1)?);
                }
                if texts[&file].as_deref().is_some_and(|t| quoted.iter().any(|q| t.contains(q.as_str()))) {
                    quoting.push(file);
                }
            }
            if quoting.is_empty() || quoting.len() > LITERAL_FILES {
                continue;
            }
            for &file in &quoting {
                let entry = scores.entry(file).or_insert((0.0, format!("quotes \"{key}\"")));
                entry.0 += 1.0 / quoting.len() as f32;
            }
        }
        let mut ranked: Vec<(usize, (f32, String))> = scores.into_iter().collect();
        ranked.sort_by(|a, b| b.1.0.total_cmp(&a.1.0).then(table.tie(a.0, b.0)));
        let mut lane = LaneFiles::default();
        for (file, (score, detail)) in ranked {
            lane.add(file, detail);
            lane.scores.insert(file, score);
        }
        Ok(lane)
    }

    /// BM25 over whole files with every term of the report (Lucene's idf,
    /// k1 1.2, b 0.75, length in bytes); a term said often weighs more, by
    /// the log of its count. Also each term's weight and where it occurs,
    /// chunk by chunk, for the symbols' own BM25.
    ///
    /// A file's length counts against the average implementation file's
    /// (`implementation`: code outside tests and documentation), not every
    /// file's: where thousands of small tests and documents come with the
    /// code (pylint's functional tests, mypy's test-data), the average over
    /// all made every implementation file look long to BM25. All 249
    /// reports' lanes (stop 57), file Acc@1 / Acc@5 / Acc@10 / MRR@10, tune
    /// split: 0.545 / 0.800 / 0.903 / 0.657 → 0.545 / 0.818 / 0.897 /
    /// 0.657; held out 0.536 / 0.845 / 0.917 / 0.655 → 0.560 / 0.857 /
    /// 0.929 / 0.673 (pylint Acc@5 15 → 19 of 21, mypy 1 → 3 of 9). With
    /// it, b 0.6 or 0.9 and k1 0.9 or 2 lost on the tune split, and so did
    /// document frequencies over implementation files only (0.539 / 0.812
    /// / 0.891 / 0.652).
    fn text_lane(
        &self,
        report: &Report,
        table: &FileTable,
        title_factor: f32,
        implementation: impl Fn(usize) -> bool,
    ) -> Result<(LaneFiles, TermHits), SearchError> {
        let mut counts: FxHashMap<String, u32> = FxHashMap::default();
        for term in lexical::terms(&report.text, true) {
            *counts.entry(term).or_default() += 1;
        }
        let title: FxHashSet<String> = lexical::terms(first_line(&report.text), true).into_iter().collect();
        let n = table.files.len().max(1) as f32;
        let (own_bytes, own) = (0..table.files.len())
            .filter(|&f| implementation(f))
            .fold((0u64, 0usize), |(bytes, count), f| (bytes + table.files[f].2, count + 1));
        let avg_len = match own {
            0 => table.files.iter().map(|f| f.2).sum::<u64>() as f32 / n,
            own => own_bytes as f32 / own as f32,
        }
        .max(1.0);
        let mut scores: FxHashMap<usize, f32> = FxHashMap::default();
        let mut hits = TermHits::default();
        let mut sorted: Vec<(&String, &u32)> = counts.iter().collect();
        sorted.sort();
        for (term, &said) in sorted {
            let per_chunk = self.store.chunk_term_counts(&lexical::token(term))?;
            let mut per_file: FxHashMap<i64, u32> = FxHashMap::default();
            for &(_, file, tf) in &per_chunk {
                *per_file.entry(file).or_default() += tf;
            }
            let df = per_file.len() as f32;
            hits.files_with.insert(term.clone(), per_file.len());
            if df == 0.0 {
                continue;
            }
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            let in_title = if title.contains(term) { title_factor } else { 1.0 };
            let weight = idf * (1.0 + (said as f32).ln()) * in_title;
            hits.index_of.insert(term.clone(), hits.weights.len());
            hits.weights.push(weight);
            for (file_id, tf) in per_file {
                let Some(&file) = table.by_id.get(&file_id) else { continue };
                let len = table.files[file].2.max(1) as f32;
                *scores.entry(file).or_default() += weight * saturate(tf as f32, len / avg_len);
            }
        }
        let mut ranked: Vec<(usize, f32)> = scores.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut lane = LaneFiles::default();
        for (rank, (file, score)) in ranked.into_iter().take(TEXT_LANE_FILES).enumerate() {
            lane.add(file, format!("BM25 rank {}", rank + 1));
            lane.scores.insert(file, score);
        }
        Ok((lane, hits))
    }

    /// BM25 over the words of the names each file defines: a file's
    /// document holds each of its symbols' name parts, stemmed, and a
    /// word's count is how many of its names hold it (structured
    /// retrieval, as BLUiR's). A report says "isinstance doesn't work with
    /// unions"; mypy's `checker.py` defines `find_isinstance_check` but is
    /// 8,000 lines long, so whole-file BM25 ranks it 19th; by its names it
    /// is first. The lane's weight (`LocateWeights::definitions`) holds its
    /// measurements; the report's title words weigh `title_factor` times,
    /// as in the text lane. Within a file, ranking symbols by their names'
    /// words as well lowered function MRR@10 on the tune split (0.416 →
    /// 0.379): the file is found by its names, the function to change by
    /// its code.
    fn definition_lane(&self, report: &Report, table: &FileTable, title_factor: f32) -> Result<LaneFiles, SearchError> {
        let mut said: FxHashMap<String, u32> = FxHashMap::default();
        for term in lexical::part_stems(&report.text, true) {
            *said.entry(term).or_default() += 1;
        }
        let title: FxHashSet<String> = lexical::part_stems(first_line(&report.text), true).into_iter().collect();
        let terms: Vec<&String> = {
            let mut terms: Vec<&String> = said.keys().collect();
            terms.sort();
            terms
        };
        let index_of: FxHashMap<&str, usize> = terms.iter().enumerate().map(|(i, t)| (t.as_str(), i)).collect();
        // Stemming changes a word's ending only (bar a few irregular words:
        // dying → die), so a part whose first two bytes begin none of the
        // report's words cannot stem to one: most of a repository's names
        // are never split or stemmed.
        let heads: FxHashSet<[u8; 2]> = terms.iter().filter_map(|t| first_two_bytes(t)).collect();
        // Which of the report's words each distinct name is made of.
        let mut words_of_name: FxHashMap<String, Vec<usize>> = FxHashMap::default();
        // (file, word) → how many of the file's names hold the word, and the
        // first; ordered, so that a file's sum below does not depend on a
        // hash map's order.
        let mut holders: BTreeMap<(usize, usize), (u32, String)> = BTreeMap::new();
        for (file_id, name) in self.store.defined_names()? {
            let Some(&file) = table.by_id.get(&file_id) else { continue };
            if !may_hold_part(&name, &heads) {
                continue;
            }
            if !words_of_name.contains_key(&name) {
                let mut words: Vec<usize> = lexical::name_parts(&name, false)
                    .iter()
                    .filter(|part| first_two_bytes(part).is_some_and(|head| heads.contains(&head)))
                    .filter_map(|part| index_of.get(lexical::stem(part).as_str()).copied())
                    .collect();
                words.sort_unstable();
                words.dedup();
                words_of_name.insert(name.clone(), words);
            }
            for &word in &words_of_name[&name] {
                holders.entry((file, word)).or_insert_with(|| (0, name.clone())).0 += 1;
            }
        }
        let mut files_with = vec![0u32; terms.len()];
        for &(_, word) in holders.keys() {
            files_with[word] += 1;
        }
        let n = table.files.len().max(1) as f32;
        let weight: Vec<f32> = terms
            .iter()
            .zip(&files_with)
            .map(|(term, &df)| {
                let idf = (1.0 + (n - df as f32 + 0.5) / (df as f32 + 0.5)).ln();
                let in_title = if title.contains(*term) { title_factor } else { 1.0 };
                idf * (1.0 + (said[*term] as f32).ln()) * in_title
            })
            .collect();
        let mut scores: FxHashMap<usize, FileByNames> = FxHashMap::default();
        for ((file, word), (count, name)) in holders {
            let score = weight[word] * saturate(count as f32, 1.0);
            let entry = scores.entry(file).or_default();
            entry.score += score;
            entry.names.push((score, name));
        }
        let mut ranked: Vec<(usize, FileByNames)> = scores.into_iter().collect();
        ranked.sort_by(|a, b| b.1.score.total_cmp(&a.1.score).then(table.tie(a.0, b.0)));
        let mut lane = LaneFiles::default();
        for (file, mut by_names) in ranked.into_iter().take(TEXT_LANE_FILES) {
            by_names.names.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            for (_, name) in by_names.names.into_iter().take(2) {
                lane.add(file, format!("defines `{name}` (the report's words)"));
            }
            lane.scores.insert(file, by_names.score);
        }
        Ok(lane)
    }

    /// The dense lane (the model's vectors, else the static ones), over
    /// windows of the report: each file by its best point. Also each
    /// point's best similarity, for the symbols, and the lane's weight.
    fn semantic_lane(
        &self,
        report: &Report,
        table: &FileTable,
        weights: &LocateWeights,
        notes: &mut Vec<String>,
    ) -> Result<(LaneFiles, FxHashMap<i64, f32>, f32), SearchError> {
        let mut lane = LaneFiles::default();
        let mut best: FxHashMap<i64, f32> = FxHashMap::default();
        let view = match (self.shard, self.embedder) {
            (Some(shard), Some(embedder)) => Some((shard, embedder, weights.semantic)),
            _ => self.statics.map(|s| (s.shard, s.embedder, weights.static_semantic)),
        };
        let Some((shard, embedder, weight)) = view else {
            notes.push("semantic lane off: no vectors in this index (BM25, names, paths and frames answer)".into());
            return Ok((lane, best, 0.0));
        };
        if weight == 0.0 {
            return Ok((lane, best, 0.0));
        }
        // The model reads a few hundred tokens: the report goes in windows,
        // the title and first paragraphs first.
        for window in windows(&report.text, 1200).into_iter().take(4) {
            let vector = embedder.embed_query(&window)?;
            for (point, score) in shard.search_dense(vector, 100, &PointFilter::default())? {
                let slot = best.entry(point).or_insert(f32::MIN);
                *slot = slot.max(score);
            }
        }
        let points: Vec<(i64, f32)> = best.iter().map(|(p, s)| (*p, *s)).collect();
        let files = self.store.files_of_points(&points.iter().map(|(p, _)| *p).collect::<Vec<_>>())?;
        let mut per_file: FxHashMap<usize, f32> = FxHashMap::default();
        for ((_, score), file_id) in points.iter().zip(files) {
            if let Some(&file) = table.by_id.get(&file_id) {
                let slot = per_file.entry(file).or_insert(f32::MIN);
                *slot = slot.max(*score);
            }
        }
        let mut ranked: Vec<(usize, f32)> = per_file.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        for (rank, (file, _)) in ranked.into_iter().enumerate() {
            lane.add(file, format!("semantic rank {}", rank + 1));
        }
        Ok((lane, best, weight))
    }

    /// Each symbol's BM25 and dense rank among the units of the top files.
    fn unit_ranks(
        &self,
        hits: &TermHits,
        files: &[(i64, &str)],
        outlines: &[Vec<SymbolRow>],
        dense: &FxHashMap<i64, f32>,
    ) -> Result<UnitRanks, SearchError> {
        let mut out = UnitRanks::default();
        if files.is_empty() {
            return Ok(out);
        }
        out.text = self.symbol_text_ranks(hits, files, outlines)?;
        if !dense.is_empty() {
            let mut ranked: Vec<(i64, f32)> = dense.iter().map(|(p, s)| (*p, *s)).collect();
            ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            let points: Vec<i64> = ranked.iter().map(|(p, _)| *p).collect();
            let in_files = self.store.files_of_points(&points)?;
            let symbols = self.store.symbols_of_points(&points)?;
            let files: FxHashSet<i64> = files.iter().map(|(id, _)| *id).collect();
            let kept = symbols.into_iter().zip(in_files).filter(|(_, f)| files.contains(f)).filter_map(|(s, _)| s);
            for (rank, symbol) in kept.enumerate() {
                out.semantic.entry(symbol).or_insert(rank + 1);
            }
        }
        Ok(out)
    }

    /// Each function and type of these files scored by the report's terms
    /// in the lines it owns (those no inner symbol holds: a class owns its
    /// docstring and fields, not its methods), with the text lane's term
    /// weights, all ranked together (symbol id → rank from 1).
    ///
    /// Before, a symbol took the BM25 rank of its chunk, and a chunk that
    /// merges a file's small symbols spoke for its first one only. On our
    /// 249 reports, function Acc@1 / Acc@5 / Acc@10 / MRR, counting only
    /// functions and methods as hits, tune → held out: chunks 0.280 / 0.459
    /// / 0.529 / 0.361 → 0.232 / 0.488 / 0.610 / 0.346; each symbol's whole
    /// lines, length-normalised as BM25 (b = 0.75), 0.242 / 0.446 / 0.529 /
    /// 0.346 → 0.220 / 0.512 / 0.634 / 0.337 (a class says all its methods'
    /// words and came first); owned lines at b = 0.75 0.255 / 0.446 / 0.529
    /// / 0.352 → 0.220 / 0.500 / 0.634 / 0.342, at b = 0.25 0.299 / 0.490 /
    /// 0.586 / 0.395 → 0.220 / 0.524 / 0.659 / 0.348, and at b = 0, kept,
    /// 0.306 / 0.497 / 0.567 / 0.400 → 0.232 / 0.524 / 0.646 / 0.352. No
    /// length normalisation: a long function is likelier to hold the fault.
    fn symbol_text_ranks(
        &self,
        hits: &TermHits,
        files: &[(i64, &str)],
        outlines: &[Vec<SymbolRow>],
    ) -> Result<FxHashMap<i64, usize>, SearchError> {
        // Each distinct word's weighed terms; a word none of whose parts
        // begins as a weighed term does is not split or stemmed (see
        // `definition_lane`).
        let heads: FxHashSet<[u8; 2]> = hits.index_of.keys().filter_map(|t| first_two_bytes(t)).collect();
        let mut word_terms: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
        let texts: Vec<Option<String>> = files.iter().map(|(_, path)| self.store.file_text(path)).collect::<Result<_, _>>()?;
        let mut scored: Vec<(f32, i64)> = Vec::new();
        for (text, symbols) in texts.iter().zip(outlines) {
            let Some(text) = text else { continue };
            let line_terms: Vec<Vec<usize>> = text
                .lines()
                .map(|line| {
                    let mut said = Vec::new();
                    for word in lexical::words(line) {
                        let weighed = word_terms.entry(word.text).or_insert_with(|| match may_hold_part(word.text, &heads) {
                            true => lexical::terms(word.text, false).iter().filter_map(|t| hits.index_of.get(t).copied()).collect(),
                            false => Vec::new(),
                        });
                        said.extend_from_slice(weighed);
                    }
                    said
                })
                .collect();
            // Each line belongs to the innermost symbol that holds it: outer
            // symbols first, inner ones overwrite their lines.
            let mut owners: Vec<&SymbolRow> = symbols.iter().filter(|s| s.kind.is_callable() || s.kind.is_type()).collect();
            owners.sort_by_key(|s| (s.start_line, std::cmp::Reverse(s.end_line)));
            let mut owner_of_line: Vec<Option<usize>> = vec![None; line_terms.len()];
            for (i, s) in owners.iter().enumerate() {
                let start = (s.start_line as usize).saturating_sub(1).min(line_terms.len());
                let end = (s.end_line as usize).min(line_terms.len());
                if start < end {
                    owner_of_line[start..end].fill(Some(i));
                }
            }
            // (owner, term) once per occurrence; sorted, a run is a count.
            let mut said: Vec<(usize, usize)> = owner_of_line
                .into_iter()
                .zip(&line_terms)
                .filter_map(|(owner, terms)| Some((owner?, terms)))
                .flat_map(|(owner, terms)| terms.iter().map(move |&term| (owner, term)))
                .collect();
            said.sort_unstable();
            let mut score = vec![0.0f32; owners.len()];
            for run in said.chunk_by(|a, b| a == b) {
                let (owner, term) = run[0];
                score[owner] += hits.weights[term] * saturate(run.len() as f32, 1.0);
            }
            scored.extend(owners.iter().zip(score).filter(|(_, score)| *score > 0.0).map(|(s, score)| (score, s.id)));
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        Ok(scored.into_iter().enumerate().map(|(rank, (_, id))| (id, rank + 1)).collect())
    }
}

/// Within a file, how much the report's words in a symbol's own lines
/// count against a name the report says (1.5) or a frame (up to 3): the
/// words are the evidence that most often picks the changed function
/// among its neighbours. Chosen at stop 60 on the tune split (function
/// MRR by overlap 0.458 at 1, 0.461 at 2, 0.465 at 3, 0.465 at 4, 0.461
/// at 5; held out 0.449 → 0.460 at 3).
const SYMBOL_TEXT_WEIGHT: f32 = 3.0;
/// A callee of a function the report names: one hop from the evidence,
/// weaker than the name itself (tune split: 0.5 and 0.25 alike, 1.0
/// lower).
const CALLEE_WEIGHT: f32 = 0.5;

/// The symbols of one file most likely to change, with their evidence.
fn file_symbols(path: &str, symbols: &[SymbolRow], report: &Report, found: &Found, limit: usize) -> Vec<SymbolHit> {
    if limit == 0 {
        return Vec::new();
    }
    let frames: Vec<&report::Frame> = report.frames.iter().filter(|f| same_file(&f.path, path)).collect();
    let mut hits: Vec<(f32, &SymbolRow, Vec<Evidence>)> = Vec::new();
    // What changes is a function or a type: fields and constants are
    // found through them.
    for s in symbols.iter().filter(|s| s.kind.is_callable() || s.kind.is_type()) {
        let mut score = 0.0;
        let mut evidence = Vec::new();
        for frame in &frames {
            let near = 1.0 / (1.0 + frame.depth as f32);
            let holds_line = frame.line.is_some_and(|l| s.start_line <= l && l <= s.end_line);
            let named = frame.function.as_deref() == Some(s.name.as_str());
            if holds_line || named {
                // The innermost symbol that holds the line is the frame's.
                let innermost = holds_line
                    && !symbols.iter().any(|o| {
                        o.id != s.id
                            && o.kind != SymbolKind::Module
                            && frame.line.is_some_and(|l| o.start_line <= l && l <= o.end_line)
                            && o.start_line >= s.start_line
                            && o.end_line <= s.end_line
                            && (o.start_line, o.end_line) != (s.start_line, s.end_line)
                    });
                score += near
                    * if innermost {
                        3.0
                    } else if named {
                        2.0
                    } else {
                        0.5
                    };
                let at = frame.line.map(|l| format!(" line {l}")).unwrap_or_default();
                evidence.push(Evidence { kind: EvidenceKind::Frame, detail: format!("frame {}{at}", frame.depth) });
            }
        }
        if let Some(name) = found.defined.get(&s.id) {
            score += 1.5;
            evidence.push(Evidence { kind: EvidenceKind::Name, detail: format!("the report names `{name}`") });
        }
        if let Some(caller) = found.reached.get(&s.id) {
            score += CALLEE_WEIGHT;
            evidence.push(Evidence { kind: EvidenceKind::Graph, detail: format!("called by `{caller}`") });
        }
        if let Some(message) = found.raise_sites.get(&s.id) {
            score += 2.0;
            evidence.push(Evidence { kind: EvidenceKind::Graph, detail: format!("raises the message of `{message}`") });
        }
        if let Some(phrase) = found.holders.get(&s.id) {
            score += 2.0;
            evidence.push(Evidence { kind: EvidenceKind::Phrase, detail: format!("holds \"{phrase}\"") });
        }
        if let Some(&rank) = found.ranks.text.get(&s.id) {
            score += SYMBOL_TEXT_WEIGHT * 10.0 / (10.0 + rank as f32);
            evidence.push(Evidence { kind: EvidenceKind::Text, detail: format!("BM25 rank {rank}") });
        }
        if let Some(&rank) = found.ranks.semantic.get(&s.id) {
            score += 10.0 / (10.0 + rank as f32);
            evidence.push(Evidence { kind: EvidenceKind::Semantic, detail: format!("semantic rank {rank}") });
        }
        if in_test_module(&s.qualified_name) {
            score *= found.test_weight;
        }
        if score > 0.0 {
            hits.push((score, s, evidence));
        }
    }
    hits.sort_by(|a, b| {
        b.0.total_cmp(&a.0).then((a.1.end_line - a.1.start_line).cmp(&(b.1.end_line - b.1.start_line))).then(a.1.id.cmp(&b.1.id))
    });
    // One symbol per qualified name: a file's repeats of one are
    // overloads (Python's `@overload` stubs, then the body) or a
    // definition per branch of an `if`. The name keeps its best score
    // and evidence, at the lines of its longest definition: the body
    // that a fix changes, not a stub, which often scores higher (short,
    // and all signature). A name said three times no longer takes three
    // of a file's five places.
    let mut longest: FxHashMap<&str, &SymbolRow> = FxHashMap::default();
    for s in symbols.iter().filter(|s| s.kind.is_callable() || s.kind.is_type()) {
        let entry = longest.entry(s.qualified_name.as_str()).or_insert(s);
        if s.end_line - s.start_line > entry.end_line - entry.start_line {
            *entry = s;
        }
    }
    let mut said: FxHashSet<&str> = FxHashSet::default();
    let kept = hits
        .into_iter()
        .filter(|hit| said.insert(hit.1.qualified_name.as_str()))
        .map(|(score, s, evidence)| (score, longest[s.qualified_name.as_str()], evidence));
    kept.take(limit)
        .map(|(score, s, evidence)| SymbolHit {
            name: s.name.clone(),
            qualified_name: s.qualified_name.clone(),
            kind: s.kind,
            start_line: s.start_line,
            end_line: s.end_line,
            score,
            evidence,
        })
        .collect()
}

/// The report's terms as the text lane read them: each term's weight
/// (idf × how often the report says it) and its count in each chunk.
#[derive(Default)]
struct TermHits {
    /// How many files say each term of the report.
    files_with: FxHashMap<String, usize>,
    weights: Vec<f32>,
    /// Each weighed term's index in `weights`.
    index_of: FxHashMap<String, usize>,
}

/// BM25's saturating term frequency (k1 1.2, b 0.75), for a document
/// `relative_len` times the average length.
fn saturate(tf: f32, relative_len: f32) -> f32 {
    const K1: f32 = 1.2;
    const B: f32 = 0.75;
    tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * relative_len))
}

/// A file's score in the definition lane, and each name's share of it.
#[derive(Default)]
struct FileByNames {
    score: f32,
    names: Vec<(f32, String)>,
}

/// What the lanes found at the level of symbols.
struct Found<'a> {
    /// Symbols the report names, with the name as written.
    defined: &'a FxHashMap<i64, String>,
    /// Symbols the named ones call or instantiate, with the caller's name.
    reached: &'a FxHashMap<i64, String>,
    /// Symbols that hold a phrase of the report, with the phrase.
    holders: &'a FxHashMap<i64, String>,
    /// Symbols that call a message catalogue's function the report names
    /// or quotes, with the name or phrase.
    raise_sites: &'a FxHashMap<i64, String>,
    ranks: &'a UnitRanks,
    /// What a symbol of a test module inside a code file weighs (Rust's
    /// `mod tests`): a test file's weight, unless the report is about tests.
    test_weight: f32,
}

#[derive(Default)]
struct UnitRanks {
    /// Symbol id → its best unit's rank (1-based).
    text: FxHashMap<i64, usize>,
    semantic: FxHashMap<i64, usize>,
}

/// Files the report names: paths, dotted module paths, and words that
/// are a file's stem. A word most files say (`command` in a CLI
/// parser) names none of them; the rarer the word, the surer.
fn path_lane(report: &Report, table: &FileTable, files_with: &FxHashMap<String, usize>) -> LaneFiles {
    let mut lane = LaneFiles::default();
    for (path, _) in &report.paths {
        let found = table.resolve(path);
        if found.len() <= 5 {
            for file in found {
                lane.add(file, format!("names the path {path}"));
            }
        }
    }
    // `django.db.models.query` is `django/db/models/query.py`.
    for name in report.names.iter().filter(|n| n.contains('.') || n.contains("::")) {
        let segments: Vec<&str> = name.split(['.', ':']).filter(|s| !s.is_empty()).collect();
        let folded: Vec<String> = segments.iter().map(|s| fold_name(s)).collect();
        for end in (2..=segments.len()).rev() {
            let found: Vec<usize> = table
                .by_stem
                .get(&folded[end - 1])
                .into_iter()
                .flatten()
                .copied()
                .filter(|&i| {
                    // From the end, segment by segment, spelling aside
                    // (`tokio::io::Join` is `src/io/join.rs`): the
                    // file and at least its directory agree, or all of
                    // the file's path does.
                    let parts: Vec<String> = without_extension(&table.files[i].1).split('/').map(fold_name).collect();
                    let agree = folded[..end].iter().rev().zip(parts.iter().rev()).take_while(|(a, b)| a == b).count();
                    agree >= 2 || agree == parts.len()
                })
                .collect();
            if !found.is_empty() && found.len() <= 3 {
                for file in found {
                    lane.add(file, format!("names the module {name}"));
                }
                break;
            }
        }
    }
    // Words that are a file's name, rarest in the repository first.
    // Folded word → (files that say it, the word as the report spells it).
    let mut words: FxHashMap<String, (usize, String)> = FxHashMap::default();
    // A hyphenated name is one word to its file (an ESLint rule
    // `object-shorthand`, a command `sql-migrate`): as specific as a
    // path, whoever else says it; its parts then name no file.
    let mut parts_of_names: FxHashSet<String> = FxHashSet::default();
    for compound in HYPHENATED.find_iter(&report.text) {
        let folded = fold_name(compound.as_str());
        if table.by_stem.contains_key(&folded) {
            parts_of_names.extend(compound.as_str().split('-').map(fold_name));
            words.insert(folded, (0, compound.as_str().to_string()));
        }
    }
    let rare = (table.files.len() / 50).max(3);
    for word in lexical::words(&report.text) {
        for part in word.text.split(['.', ':']) {
            let folded = fold_name(part);
            let said_by = files_with.get(&part.to_lowercase()).copied().unwrap_or(0);
            if folded.len() >= 4
                && !lexical::is_stopword(&folded)
                && said_by <= rare
                && !parts_of_names.contains(&folded)
                && table.by_stem.contains_key(&folded)
            {
                words.entry(folded).or_insert((said_by, part.to_string()));
            }
        }
    }
    let mut words: Vec<(String, (usize, String))> = words.into_iter().collect();
    words.sort_by(|a, b| a.1.0.cmp(&b.1.0).then(a.0.cmp(&b.0)));
    for (folded, (_, word)) in words {
        for &file in &table.by_stem[&folded] {
            lane.add(file, format!("says `{word}`, the file's name"));
        }
    }
    lane
}

/// A text's query terms, plurals folded.
fn singular_terms(text: &str) -> FxHashSet<String> {
    lexical::terms(text, true).iter().map(|t| lexical::singular(t).to_string()).collect()
}

/// Files by the report's words that their paths hold, each word weighed by
/// how few paths hold it (BM25's idf; the title's words count `title` times).
fn path_words_lane(report: &Report, table: &FileTable, title: f32) -> LaneFiles {
    let path_terms: Vec<FxHashSet<String>> =
        table.files.iter().map(|(_, path, _)| singular_terms(&without_extension(path).replace(['/', '-'], " "))).collect();
    let mut df: FxHashMap<&str, usize> = FxHashMap::default();
    for terms in &path_terms {
        for t in terms {
            *df.entry(t.as_str()).or_default() += 1;
        }
    }
    let title_terms = singular_terms(first_line(&report.text));
    let n = table.files.len().max(1) as f32;
    let said = singular_terms(&report.text);
    let mut scored: Vec<(usize, f32, Vec<&str>)> = Vec::new();
    for (file, terms) in path_terms.iter().enumerate() {
        let mut score = 0.0;
        let mut matched = Vec::new();
        for t in terms.iter().filter(|t| said.contains(*t)) {
            let d = df[t.as_str()] as f32;
            let idf = (1.0 + (n - d + 0.5) / (d + 0.5)).ln();
            score += idf * if title_terms.contains(t) { title } else { 1.0 };
            matched.push(t.as_str());
        }
        if score > 0.0 {
            matched.sort_unstable();
            scored.push((file, score, matched));
        }
    }
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(table.tie(a.0, b.0)));
    let mut lane = LaneFiles::default();
    for (file, score, matched) in scored.into_iter().take(TEXT_LANE_FILES) {
        lane.add(file, format!("its path says {}", matched.join(", ")));
        lane.scores.insert(file, score);
    }
    lane
}

/// A frame's written path means this indexed path (one ends the other).
fn same_file(written: &str, indexed: &str) -> bool {
    let written = written.trim_start_matches("./");
    written == indexed || written.ends_with(&format!("/{indexed}")) || indexed.ends_with(&format!("/{written}"))
}

/// The report is about the documentation. (Not search's `asks_about_prose`:
/// a bug report names a version in every other title, which there points at
/// a changelog.)
fn asks_about_docs(title: &str) -> bool {
    const WORDS: &[&str] =
        &["doc", "docs", "documentation", "documented", "readme", "changelog", "typo", "tutorial", "guide", "docstring", "docstrings"];
    lexical::words(title).iter().any(|w| WORDS.contains(&w.text.to_lowercase().as_str()))
}

/// A file header that says the file is generated: Go's `Code generated …
/// DO NOT EDIT.`, `@generated`, or "generated" beside "do not edit/modify".
/// Broader than ken-index's test, which leaves the first two out of the
/// index altogether; the prose marks keep their files searchable.
fn says_generated(head: &str) -> bool {
    let head: String = head.lines().take(5).collect::<Vec<_>>().join("\n").to_lowercase();
    head.contains("@generated")
        || (head.contains("generated")
            && ["do not edit", "do not modify", "don't edit", "don't modify", "not to be edited"].iter().any(|w| head.contains(w)))
}

/// A gettext or XLIFF catalogue: every message of the code again, once per
/// language, made by the extraction tools. A report quoting a message
/// matches each copy (Sphinx ships 60), while the fix is in the code.
fn is_translation_catalogue(path: &str) -> bool {
    [".po", ".pot", ".xlf", ".xliff"].iter().any(|ext| path.ends_with(ext))
}

/// A file under a documentation directory: its code is an example
/// (pylint's `doc/data/messages/i/invalid-name/bad.py`), its configuration
/// the docs' own (`docs/conf.py`).
fn in_docs_dir(path: &str) -> bool {
    let mut dirs = path.split('/');
    dirs.next_back();
    dirs.any(|d| matches!(d.to_ascii_lowercase().as_str(), "doc" | "docs" | "documentation"))
}

/// TypeScript declarations and Python stubs.
fn is_declaration_file(path: &str) -> bool {
    [".d.ts", ".d.mts", ".d.cts", ".pyi"].iter().any(|ext| path.ends_with(ext))
}

/// The report is about type declarations themselves.
fn asks_about_types(text: &str) -> bool {
    const WORDS: &[&str] = &["type", "types", "typing", "typings", "typescript", "declaration", "declarations", "stub", "stubs", "d.ts"];
    lexical::words(first_line(text)).iter().any(|w| WORDS.contains(&w.text.to_lowercase().as_str()))
}

fn first_two_bytes(word: &str) -> Option<[u8; 2]> {
    word.as_bytes().first_chunk().copied()
}

/// Whether an identifier may hold a part (lowercased) that begins with
/// one of `heads`: a test cheaper than splitting it. It looks wherever a
/// part can begin (the start, and every byte but a lowercase letter after
/// a lowercase letter: `_name`, `Name`, `issue10743`), so it says yes to
/// every such identifier and to a few more; and to any that is not ASCII.
fn may_hold_part(name: &str, heads: &FxHashSet<[u8; 2]>) -> bool {
    let b = name.as_bytes();
    !name.is_ascii()
        || b.windows(2).enumerate().any(|(i, pair)| {
            let starts = i == 0 || !(b[i - 1].is_ascii_lowercase() && pair[0].is_ascii_lowercase());
            starts && heads.contains(&[pair[0].to_ascii_lowercase(), pair[1].to_ascii_lowercase()])
        })
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// The text in pieces of about `size` characters, cut at line ends.
fn windows(text: &str, size: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        if current.len() + line.len() > size && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        let line: String = line.chars().take(size).collect();
        current.push_str(&line);
        current.push('\n');
    }
    if !current.trim().is_empty() {
        out.push(current);
    }
    out
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files as `path: symbol symbol …`, one per line, best first; the list
    /// across files as `path:symbol`.
    fn check_functions(files: &str, expect: expect_test::Expect) {
        let files: Vec<FileHit> = files
            .lines()
            .filter_map(|line| line.trim().split_once(':'))
            .map(|(path, symbols)| FileHit {
                path: path.to_string(),
                language: Language::Python,
                score: 1.0,
                evidence: Vec::new(),
                symbols: symbols
                    .split_whitespace()
                    .map(|name| SymbolHit {
                        name: name.to_string(),
                        qualified_name: name.to_string(),
                        kind: SymbolKind::Function,
                        start_line: 1,
                        end_line: 1,
                        score: 1.0,
                        evidence: Vec::new(),
                    })
                    .collect(),
            })
            .collect();
        let across: Vec<String> = functions_across(&files).iter().map(|f| format!("{}:{}", f.path, f.name)).collect();
        let across = if across.is_empty() { "none".to_string() } else { across.join(" ") };
        expect.assert_eq(&(across + "\n"));
    }

    #[test]
    fn functions_across_files_weigh_a_files_rank_as_a_symbols() {
        check_functions(
            "a: a1 a2 a3 a4
             b: b1 b2
             c: c1",
            expect_test::expect![[r#"
                a:a1 a:a2 b:b1 a:a3 c:c1 a:a4 b:b2
            "#]],
        );
        check_functions(
            "a:
             b: b1",
            expect_test::expect![[r#"
                b:b1
            "#]],
        );
        check_functions(
            "",
            expect_test::expect![[r#"
                none
            "#]],
        );
    }

    #[test]
    fn generated_headers() {
        for (head, generated) in [
            ("/* This file is generated by scripts/process-messages/index.js. Do not edit! */\n", true),
            ("// Code generated by protoc-gen-go. DO NOT EDIT.\n", true),
            ("/*\n * This file was automatically generated.\n * DO NOT MODIFY BY HAND.\n */\n", true),
            ("# @generated by pants\n", true),
            ("\"\"\"Helpers for generated code: never edit them.\"\"\"\n", false),
            ("# The parser.\nimport re\n", false),
            ("a\nb\nc\nd\ne\n# generated, do not edit\n", false),
        ] {
            assert_eq!(says_generated(head), generated, "{head}");
        }
    }

    #[test]
    fn reports_name_files_by_module_paths() {
        let paths = ["src/io/join.rs", "src/fs/join.rs", "django/db/models/query.py", "src/io/mod.rs"];
        let table = FileTable::new(paths.iter().enumerate().map(|(i, p)| (i as i64, p.to_string(), 100)).collect());
        for (report, expect) in [
            // The module's file first, then every file named `join` (the word).
            ("`tokio::io::Join` should implement AsyncBufRead", "src/io/join.rs src/fs/join.rs"),
            ("a crash in django.db.models.query.QuerySet.filter", "django/db/models/query.py"),
            ("`tokio::fs::Join` leaks", "src/fs/join.rs src/io/join.rs"),
        ] {
            let lane = path_lane(&report::read(report), &table, &FxHashMap::default());
            let found: Vec<&str> = lane.ranked.iter().map(|&f| table.files[f].1.as_str()).collect();
            assert_eq!(found.join(" "), expect, "{report}");
        }
    }

    #[test]
    fn the_cheap_test_of_a_name_misses_none_of_its_parts() {
        // Every part of each name begins where `may_hold_part` looks.
        for name in [
            "find_isinstance_check",
            "parseHTTPResponse2",
            "TestIssue10743",
            "__init__",
            "ATTR_NAME",
            "v2parser",
            "$state",
            "tokio::net::TcpStream",
            "größe_x",
        ] {
            for part in lexical::name_parts(name, false) {
                let heads: FxHashSet<[u8; 2]> = first_two_bytes(&part).into_iter().collect();
                assert!(may_hold_part(name, &heads), "{name}: {part}");
            }
        }
        // And it rules names out: no part of these begins with "is".
        let heads: FxHashSet<[u8; 2]> = [*b"is"].into_iter().collect();
        for name in ["visit_list", "this_is_it", "TypeChecker"] {
            assert_eq!(may_hold_part(name, &heads), name == "this_is_it", "{name}");
        }
    }
}
