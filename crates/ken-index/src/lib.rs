//! Keeps an index in step with a repository, incrementally.
//!
//! A run walks the repository, compares each file's size and mtime (then
//! content hash) with the index, and mines only what changed. Renamed files
//! whose content is unchanged are moved, not mined again. Mining runs on all
//! cores; one writer thread commits batches, so a killed run keeps every
//! finished batch and the next run resumes after it.

mod walk;

pub use walk::VENDORED_DIRS;

use crossbeam_channel::bounded;
use ken_core::{ChunkBudget, FileAnalysis, Language};
use ken_mine::Miner;
use ken_store::{FileRecord, FileRow, Store, StoreError};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use walk::{Candidate, WalkOptions};

/// Meta key: "1" once a run included generated files (see
/// [`IndexOptions::include_generated`]).
const INCLUDE_GENERATED: &str = "include_generated";

/// Bump when mining output changes, so existing indexes are mined again.
const MINER_VERSION: &str = "6";
const BATCH_FILES: usize = 512;
const BATCH_TIME: Duration = Duration::from_millis(1500);

#[derive(Clone, Debug)]
pub struct IndexOptions {
    pub root: PathBuf,
    pub index_dir: PathBuf,
    pub max_file_size: u64,
    pub budget: ChunkBudget,
    pub include_vendored: bool,
    /// Also index files that say they are generated (minified bundles,
    /// protobuf output, a `@generated` or "Code generated … DO NOT EDIT"
    /// header). The index remembers it: later runs keep them until a
    /// `rebuild` without it, since an unchanged file is not read again.
    pub include_generated: bool,
    /// Throw the old index away first.
    pub rebuild: bool,
    /// Resolve references into the dependency graph after mining.
    pub graph: bool,
    /// Stops the run between files: what was stored stays, the rest waits for the next run.
    pub cancel: ken_core::Cancel,
}

impl IndexOptions {
    pub fn new(root: PathBuf, index_dir: PathBuf) -> IndexOptions {
        IndexOptions {
            root,
            index_dir,
            max_file_size: 1 << 20,
            budget: ChunkBudget::default(),
            include_vendored: false,
            include_generated: false,
            rebuild: false,
            graph: true,
            cancel: ken_core::Cancel::default(),
        }
    }
}

/// Progress of a run, for a progress bar.
#[derive(Clone, Copy, Debug)]
pub enum Progress {
    Walked {
        files: u64,
    },
    Mining {
        done: u64,
        total: u64,
    },
    /// Resolving references into the dependency graph.
    Linking,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Changes {
    pub added: u64,
    pub modified: u64,
    pub renamed: u64,
    pub deleted: u64,
    pub unchanged: u64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct IndexSummary {
    pub root: String,
    pub index_dir: String,
    /// Files in the index, per language.
    pub files_by_language: BTreeMap<String, u64>,
    pub files: u64,
    pub lines: u64,
    pub symbols: u64,
    pub references: u64,
    pub chunks: u64,
    /// Files left out, per reason: binary, non_utf8, too_large, unreadable,
    /// symlink_loop, generated.
    pub skipped: BTreeMap<String, u64>,
    /// Skipped files with their reason (the first few hundred).
    pub skipped_files: Vec<SkippedFile>,
    pub vendored_dirs_skipped: u64,
    pub unsupported_files: u64,
    pub files_with_parse_errors: u64,
    pub parse_errors: u64,
    pub changes: Changes,
    /// Files mined in this run and their lines.
    pub mined_files: u64,
    pub mined_lines: u64,
    /// Resolution of references into the dependency graph.
    pub graph: ken_graph::LinkSummary,
    /// The run ended by rewriting the database densely (see
    /// [`PhaseSeconds::compact`]).
    pub compacted: bool,
    /// Wall-clock seconds of the whole run, every phase included.
    pub seconds: f64,
    pub phases: PhaseSeconds,
}

/// Where a run's wall-clock time went. Mining and storing overlap (one
/// writer thread commits while the miners work), so they are one phase.
/// The vector phases are filled in by whoever runs them after `index`.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct PhaseSeconds {
    pub walk: f64,
    pub mine_and_store: f64,
    pub link: f64,
    pub lexical: f64,
    pub embed: f64,
    /// Rewriting the database densely ([`Store::compact`](ken_store::Store::compact)),
    /// after runs that changed much of it.
    pub compact: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct SkippedFile {
    pub path: String,
    pub reason: String,
    /// What went wrong, for `internal_error` (a bug in ken, not in the file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

const MAX_SKIPPED_LISTED: usize = 200;

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("{0} does not exist; pass the path of a repository to index")]
    RootMissing(PathBuf),
    #[error("{0} is not a directory; pass the path of a repository to index")]
    RootNotDir(PathBuf),
    #[error("the index run was cancelled; what it stored stays, and the next run resumes")]
    Cancelled,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What happened to one file in this run.
enum Outcome {
    Unchanged,
    Touched { id: i64, size: u64, mtime_ns: i64 },
    Mined { candidate: Candidate, hash: String, text: String, analysis: Box<FileAnalysis>, existed: bool },
    Skipped { reason: &'static str, path: String, detail: Option<String> },
}

/// What this run must do, from the walk compared with the index.
struct Plan<'a> {
    /// Indexed files no longer on disk (renamed ones included).
    gone: Vec<&'a FileRow>,
    /// A new path whose content is a vanished file's: moved, not re-mined.
    renames: Vec<(&'a FileRow, &'a Candidate)>,
    /// Files to check (with their row when indexed) or mine, biggest first.
    work: Vec<(&'a Candidate, Option<&'a FileRow>)>,
    /// The index was mined by another miner version or budget: mine everything.
    remine_all: bool,
    fingerprint: String,
}

/// Walks, mines the changed files on every core and stores them from one
/// writer thread, in batches, then links the graph (unless `opts.graph` is
/// false) and summarises the index.
pub fn index(opts: &IndexOptions, progress: &(dyn Fn(Progress) + Sync)) -> Result<IndexSummary, IndexError> {
    let started = Instant::now();
    if !opts.root.exists() {
        return Err(IndexError::RootMissing(opts.root.clone()));
    }
    if !opts.root.is_dir() {
        return Err(IndexError::RootNotDir(opts.root.clone()));
    }
    let root = opts.root.canonicalize().map_err(|_| IndexError::RootMissing(opts.root.clone()))?;
    let mut store = if opts.rebuild { Store::create_fresh(&opts.index_dir)? } else { Store::open_for_write(&opts.index_dir)? };
    let remembered = store.meta(INCLUDE_GENERATED)?.as_deref() == Some("1");
    let opts = &IndexOptions { include_generated: opts.include_generated || remembered, ..opts.clone() };
    let index_dir = opts.index_dir.canonicalize().unwrap_or_else(|_| opts.index_dir.clone());

    let walked = walk::walk(&WalkOptions {
        root: &root,
        exclude: Some(&index_dir),
        max_file_size: opts.max_file_size,
        include_vendored: opts.include_vendored,
        include_generated: opts.include_generated,
    });
    progress(Progress::Walked { files: walked.candidates.len() as u64 });
    let walk_seconds = started.elapsed().as_secs_f64();

    let stored: FxHashMap<String, FileRow> = store.file_rows()?.into_iter().map(|f| (f.path.clone(), f)).collect();
    let plan = plan(&store, opts, &walked, &stored)?;
    let mut summary = IndexSummary::default();
    let mut skipped: Vec<(&'static str, String, Option<String>)> =
        walked.skipped.iter().map(|(reason, path)| (*reason, path.clone(), None)).collect();
    mine_and_store(&mut store, &plan, &stored, &root, opts, &mut summary, &mut skipped, progress)?;
    if opts.cancel.is_cancelled() {
        return Err(IndexError::Cancelled);
    }
    summary.phases.walk = walk_seconds;
    summary.phases.mine_and_store = started.elapsed().as_secs_f64() - walk_seconds;

    let link_started = Instant::now();
    if opts.graph {
        progress(Progress::Linking);
        summary.graph = ken_graph::link(&mut store)?;
    }
    if summary.mined_files > 0 || summary.changes.deleted > 0 || summary.graph.files_linked > 0 {
        let _ = store.checkpoint();
    }
    summary.phases.link = link_started.elapsed().as_secs_f64();

    summary.root = root.to_string_lossy().into_owned();
    summary.index_dir = index_dir.to_string_lossy().into_owned();
    summary.vendored_dirs_skipped = walked.vendored_dirs;
    summary.unsupported_files = walked.unsupported;
    describe(&store, &mut summary, skipped)?;
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// Compares the walk with the index: what is gone, renamed, to check or new.
fn plan<'a>(
    store: &Store,
    opts: &IndexOptions,
    walked: &'a walk::Walked,
    stored: &'a FxHashMap<String, FileRow>,
) -> Result<Plan<'a>, StoreError> {
    let fingerprint = format!(
        "miner={MINER_VERSION};chars={};lines={};overlap={}",
        opts.budget.max_chars, opts.budget.max_lines, opts.budget.overlap_lines
    );
    let remine_all = store.meta("fingerprint")?.as_deref() != Some(fingerprint.as_str());

    let walked_paths: rustc_hash::FxHashSet<&str> = walked.candidates.iter().map(|c| c.rel.as_str()).collect();
    let gone: Vec<&FileRow> = stored.values().filter(|f| !walked_paths.contains(f.path.as_str())).collect();
    let (known, fresh): (Vec<&Candidate>, Vec<&Candidate>) = walked.candidates.iter().partition(|c| stored.contains_key(&c.rel));

    // Renames: a new path whose content matches a path that disappeared.
    let mut renames: Vec<(&FileRow, &Candidate)> = Vec::new();
    let mut fresh_to_mine: Vec<&Candidate> = fresh.clone();
    if !gone.is_empty() && !fresh.is_empty() && !remine_all {
        let mut by_hash: FxHashMap<&str, Vec<&FileRow>> = FxHashMap::default();
        for f in &gone {
            by_hash.entry(f.hash.as_str()).or_default().push(f);
        }
        let hashes: Vec<Option<String>> = fresh.par_iter().map(|c| std::fs::read(&c.abs).ok().map(|b| hash_bytes(&b))).collect();
        fresh_to_mine.clear();
        for (c, h) in fresh.iter().zip(hashes) {
            match h.and_then(|h| by_hash.get_mut(h.as_str()).and_then(Vec::pop)) {
                Some(row) => renames.push((row, c)),
                None => fresh_to_mine.push(c),
            }
        }
    }
    let mut work: Vec<(&Candidate, Option<&FileRow>)> =
        known.iter().map(|c| (*c, stored.get(&c.rel))).chain(fresh_to_mine.iter().map(|c| (*c, None))).collect();
    // Big files first, so no core idles at the end.
    work.sort_by_key(|(c, _)| std::cmp::Reverse(c.size));
    Ok(Plan { gone, renames, work, remine_all, fingerprint })
}

/// Files mined in parallel before their outcomes go to the writer in order:
/// enough to keep every core busy (the plan puts files of a size together),
/// few enough that a chunk's outcomes are small in memory.
const MINE_CHUNK: usize = 64;

/// Mines the plan's work on every core and writes the outcomes from one
/// writer thread, committing every [`BATCH_FILES`] files or [`BATCH_TIME`]:
/// a killed run keeps every committed batch.
#[allow(clippy::too_many_arguments)]
fn mine_and_store(
    store: &mut Store,
    plan: &Plan,
    stored: &FxHashMap<String, FileRow>,
    root: &Path,
    opts: &IndexOptions,
    summary: &mut IndexSummary,
    skipped: &mut Vec<(&'static str, String, Option<String>)>,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<(), StoreError> {
    let total = plan.work.len() as u64;
    let remine_all = plan.remine_all;
    let renamed_ids: rustc_hash::FxHashSet<i64> = plan.renames.iter().map(|(row, _)| row.id).collect();
    let (tx, rx) = bounded::<Outcome>(256);
    std::thread::scope(|scope| {
        let writer = scope.spawn(|| -> Result<(), StoreError> {
            let mut batch = store.writer()?;
            for id in plan.gone.iter().map(|f| f.id).filter(|id| !renamed_ids.contains(id)) {
                batch.delete_file(id)?;
                summary.changes.deleted += 1;
            }
            for (row, c) in &plan.renames {
                let naming = ken_mine::naming(c.language, &c.rel, row.package.as_deref());
                batch.rename_file(row.id, &record(c, &row.hash), &naming.module, |local| ken_mine::qualify(&naming, local))?;
                summary.changes.renamed += 1;
            }
            if remine_all && !stored.is_empty() {
                // Old rows were mined by another version or budget: replace all.
                batch.delete_all()?;
            }
            let (mut done, mut in_batch, mut since) = (0u64, 0usize, Instant::now());
            for outcome in rx {
                done += 1;
                match outcome {
                    Outcome::Unchanged => summary.changes.unchanged += 1,
                    Outcome::Touched { id, size, mtime_ns } => {
                        batch.touch_file(id, size, mtime_ns)?;
                        summary.changes.unchanged += 1;
                    }
                    Outcome::Skipped { reason, path, detail } => {
                        skipped.push((reason, path.clone(), detail));
                        // A file that became unreadable or binary leaves the index.
                        if let Some(f) = stored.get(&path) {
                            batch.delete_file(f.id)?;
                        }
                    }
                    Outcome::Mined { candidate, hash, text, analysis, existed } => {
                        let language = candidate.language.name();
                        batch.put_file(&record_with(&candidate, language, &hash), &text, &analysis)?;
                        if existed && !remine_all {
                            summary.changes.modified += 1;
                        } else {
                            summary.changes.added += 1;
                        }
                        summary.mined_files += 1;
                        summary.mined_lines += u64::from(analysis.lines);
                        in_batch += 1;
                    }
                }
                if in_batch >= BATCH_FILES || (in_batch > 0 && since.elapsed() > BATCH_TIME) {
                    batch.commit()?;
                    ken_core::failpoint("index.mine_batch");
                    batch = store.writer()?;
                    in_batch = 0;
                    since = Instant::now();
                }
                if done % 64 == 0 || done == total {
                    progress(Progress::Mining { done, total });
                }
            }
            batch.set_meta("fingerprint", &plan.fingerprint)?;
            if opts.include_generated {
                batch.set_meta(INCLUDE_GENERATED, "1")?;
            }
            batch.set_meta("root", &root.to_string_lossy())?;
            batch.commit()?;
            Ok(())
        });
        // Mined in parallel, a chunk at a time, but stored in the plan's
        // order: rows get the same ids on every run, so rankings that tie
        // break the same way, whichever core finished first.
        'chunks: for chunk in plan.work.chunks(MINE_CHUNK) {
            if opts.cancel.is_cancelled() {
                break; // the rest of the plan is left as it was, for the next run
            }
            let outcomes: Vec<Option<Outcome>> = chunk
                .par_iter()
                .map_init(Miner::new, |miner, (candidate, row)| {
                    // Once cancelled, a file is left as it was: the next run looks at it again.
                    (!opts.cancel.is_cancelled()).then(|| process(miner, candidate, *row, opts, remine_all))
                })
                .collect();
            for outcome in outcomes.into_iter().flatten() {
                // The writer only stops early on an error, which is reported below.
                if tx.send(outcome).is_err() {
                    break 'chunks;
                }
            }
        }
        drop(tx);
        writer.join().unwrap_or_else(|_| Ok(()))
    })
}

/// The summary's view of the whole index: counts, languages, and the
/// skipped files with their reasons (internal errors listed first).
fn describe(store: &Store, summary: &mut IndexSummary, mut skipped: Vec<(&'static str, String, Option<String>)>) -> Result<(), StoreError> {
    let stats = store.stats()?;
    summary.files_by_language = store.files_by_language()?.into_iter().collect();
    summary.files = stats.files;
    summary.lines = stats.lines;
    summary.symbols = stats.symbols;
    summary.references = stats.references;
    summary.chunks = stats.chunks;
    summary.files_with_parse_errors = stats.files_with_parse_errors;
    summary.parse_errors = stats.parse_errors;
    skipped.sort_by(|a, b| a.1.cmp(&b.1));
    for (reason, _, _) in &skipped {
        *summary.skipped.entry(reason.to_string()).or_default() += 1;
    }
    skipped.sort_by_key(|(reason, _, _)| *reason != INTERNAL_ERROR);
    summary.skipped_files = skipped
        .into_iter()
        .take(MAX_SKIPPED_LISTED)
        .map(|(reason, path, detail)| SkippedFile { path, reason: reason.to_string(), detail })
        .collect();
    Ok(())
}

fn record<'a>(c: &'a Candidate, hash: &'a str) -> FileRecord<'a> {
    record_with(c, c.language.name(), hash)
}

fn record_with<'a>(c: &'a Candidate, language: &'a str, hash: &'a str) -> FileRecord<'a> {
    FileRecord { path: &c.rel, language, size: c.size, mtime_ns: c.mtime_ns, hash }
}

fn hash_bytes(bytes: &[u8]) -> String {
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes))
}

/// Reads, checks and (if it changed) mines one file. Never fails: a bad file
/// becomes a skip with its reason.
fn process(miner: &mut Miner, c: &Candidate, row: Option<&ken_store::FileRow>, opts: &IndexOptions, remine_all: bool) -> Outcome {
    if let Some(row) = row
        && !remine_all
        && row.size == c.size
        && row.mtime_ns == c.mtime_ns
        && same_language(row, c)
    {
        return Outcome::Unchanged;
    }
    let skip = |reason| Outcome::Skipped { reason, path: c.rel.clone(), detail: None };
    let bytes = match std::fs::read(&c.abs) {
        Ok(b) => b,
        Err(_) => return skip("unreadable"),
    };
    let hash = hash_bytes(&bytes);
    if let Some(row) = row
        && !remine_all
        && row.hash == hash
        && same_language(row, c)
    {
        return Outcome::Touched { id: row.id, size: c.size, mtime_ns: c.mtime_ns };
    }
    if bytes.len() as u64 > c.size.max(1) * 4 {
        // Grew wildly since the walk; re-check next run.
        return skip("too_large");
    }
    let probe = &bytes[..bytes.len().min(8192)];
    if probe.contains(&0) {
        return skip("binary");
    }
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(_) => return skip("non_utf8"),
    };
    let text = match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    };
    if !opts.include_generated && is_generated(c, &text) {
        return skip("generated");
    }
    // A bug in ken that one file triggers costs that file, not the run; the
    // file stays out of the index, so the next run tries it again.
    // A script without an extension says what it is on its first line; a
    // `.m` file or a `.h` header is Objective-C by its content.
    let mut candidate = c.clone();
    let path = std::path::Path::new(&c.rel);
    if (c.language == Language::Text || ken_lang::content_decides(path))
        && let Some(language) = ken_lang::sniff(path, &text)
    {
        candidate.language = language;
    }
    let mined = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| miner.analyze(&c.rel, candidate.language, &text, &opts.budget)));
    let analysis = match mined {
        Ok(analysis) => analysis,
        Err(panic) => {
            *miner = Miner::new();
            return Outcome::Skipped { reason: INTERNAL_ERROR, path: c.rel.clone(), detail: Some(ken_core::panic_message(&*panic)) };
        }
    };
    Outcome::Mined { candidate, hash, text, analysis: Box::new(analysis), existed: row.is_some() }
}

/// Whether the stored row was mined as the language the walk says now; a
/// file the walk calls text may be stored under its shebang's language, and
/// one whose content decides (a `.h` header) under the language it said.
fn same_language(row: &FileRow, c: &Candidate) -> bool {
    row.language == c.language.name()
        || ((c.language == Language::Text || ken_lang::content_decides(std::path::Path::new(&c.rel)))
            && Language::from_name(&row.language).is_some())
}

/// The skip reason of a file that made ken panic.
pub const INTERNAL_ERROR: &str = "internal_error";

/// Minified bundles and files that say they are generated.
fn is_generated(c: &Candidate, text: &str) -> bool {
    let name = c.rel.rsplit('/').next().unwrap_or(&c.rel);
    if name.contains(".min.") || name.ends_with("_pb2.py") || name.ends_with(".pb.go") {
        return true;
    }
    let head: String = text.lines().take(5).collect::<Vec<_>>().join("\n");
    if (head.contains("Code generated") && head.contains("DO NOT EDIT")) || head.contains("@generated") {
        return true;
    }
    let minifiable = matches!(c.language, Language::JavaScript | Language::TypeScript | Language::Tsx);
    minifiable && text.lines().any(|l| l.len() > 5000)
}

/// The index directory for a repository when none is given: `<root>/.kenning`.
/// The directories under `root` an index run walks (ignored, hidden,
/// generated and vendored ones left out, as [`index`] leaves them), for a
/// file watcher.
pub fn walked_directories(root: &Path, index_dir: &Path, include_vendored: bool) -> Vec<PathBuf> {
    walk::directories(&WalkOptions { root, exclude: Some(index_dir), max_file_size: 0, include_vendored, include_generated: false })
}

pub fn default_index_dir(root: &Path) -> PathBuf {
    root.join(".kenning")
}
