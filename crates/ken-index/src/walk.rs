//! Finding the files to index: `.gitignore`, `.kenignore`, hidden files,
//! vendored directories, size limits and symlink loops, walked in parallel.

use ken_core::Language;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Directories of dependencies and build output, skipped unless asked for.
pub const VENDORED_DIRS: &[&str] =
    &["node_modules", "target", "dist", "vendor", "third_party", "bower_components", "__pycache__", ".venv", "venv"];

/// Build output that can be all the code a tree has: many npm packages
/// (vue, react-router, swr) ship only `dist/`. The walk enters these and
/// keeps their files only when the code outside them is less than
/// [`BUILD_OUTPUT_SHARE`] of the code inside; otherwise they are compiled
/// copies of the sources beside them, skipped as vendored.
///
/// `dist`, and names made of it (`client-dist`, `dist-esm`, `dist_cjs`):
/// socket.io 4.7.5 ships its server in `dist/` and its client's bundle in
/// `client-dist/`; counted as sources, that bundle made `dist/` look like
/// a build of them, and the server's code was left out.
fn is_build_output_dir(name: &str) -> bool {
    name == "dist"
        || ["dist-", "dist_"].iter().any(|prefix| name.starts_with(prefix))
        || ["-dist", "_dist"].iter().any(|suffix| name.ends_with(suffix))
}

/// Code bytes outside build output, as a share of those inside, under which
/// the build output is indexed: a package's root shims (vue's 3 KB
/// `index.js` beside its 2.6 MB `dist/`) are not its sources, axios's
/// `lib/` (a quarter of its `dist/`) is.
const BUILD_OUTPUT_SHARE: f64 = 0.1;

/// Hidden files and directories people still search: CI pipelines, editor
/// and hook settings, environment templates (never `.env` itself: secrets).
pub const HIDDEN_KEPT: &[&str] = &[
    ".github",
    ".gitlab",
    ".gitlab-ci.yml",
    ".circleci",
    ".travis.yml",
    ".pre-commit-config.yaml",
    ".readthedocs.yaml",
    ".readthedocs.yml",
    ".cargo",
    ".devcontainer",
    ".editorconfig",
    ".env.example",
    ".env.sample",
    ".env.template",
    ".env.dist",
];

/// Directories of packaging metadata, written by build tools.
fn is_generated_dir(name: &str) -> bool {
    name.ends_with(".dist-info") || name.ends_with(".egg-info")
}

/// A file the walk found, with what the incremental check needs.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub abs: PathBuf,
    /// Relative to the root, `/`-separated.
    pub rel: String,
    pub language: Language,
    pub size: u64,
    pub mtime_ns: i64,
}

#[derive(Debug, Default)]
pub struct Walked {
    pub candidates: Vec<Candidate>,
    /// (reason, path) of every file skipped during the walk.
    pub skipped: Vec<(&'static str, String)>,
    /// Files in no language Kenning mines (none since plain text is indexed
    /// as `text`; kept for the summary's shape).
    pub unsupported: u64,
    pub vendored_dirs: u64,
    /// Build output directories (`dist/`) were indexed: they hold the
    /// tree's code (see [`BUILD_OUTPUT_SHARE`]).
    pub build_output_kept: bool,
}

pub struct WalkOptions<'a> {
    pub root: &'a Path,
    pub exclude: Option<&'a Path>,
    pub max_file_size: u64,
    pub include_vendored: bool,
    /// Keep files whose name says they are generated (lockfiles, `.min.js`,
    /// `_pb2.py`…) as candidates of the language their extension says.
    pub include_generated: bool,
}

/// The walker every pass uses: .gitignore, .ignore and .kenignore rules,
/// hidden and generated directories left out, vendored ones counted.
fn builder(opts: &WalkOptions, enter_build_output: bool) -> (ignore::WalkBuilder, Arc<AtomicU64>) {
    let vendored = Arc::new(AtomicU64::new(0));
    let mut builder = ignore::WalkBuilder::new(opts.root);
    builder
        .hidden(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .follow_links(true)
        .add_custom_ignore_filename(".kenignore");
    let exclude = opts.exclude.map(Path::to_path_buf);
    let include_vendored = opts.include_vendored;
    let counter = Arc::clone(&vendored);
    let enter_build_output = include_vendored || enter_build_output;
    builder.filter_entry(move |entry| {
        if exclude.as_deref().is_some_and(|x| entry.path() == x) {
            return false;
        }
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        let name = entry.file_name().to_str().unwrap_or("");
        if entry.depth() > 0 && name.starts_with('.') && !HIDDEN_KEPT.contains(&name) {
            return false;
        }
        if is_dir && entry.depth() > 0 && is_generated_dir(name) {
            return false;
        }
        if is_dir
            && entry.depth() > 0
            && !include_vendored
            && let Some(name) = entry.file_name().to_str()
            && (VENDORED_DIRS.contains(&name) || is_build_output_dir(name))
            && !(enter_build_output && is_build_output_dir(name))
        {
            counter.fetch_add(1, Ordering::Relaxed);
            return false;
        }
        true
    });
    (builder, vendored)
}

/// The directories a walk enters (the root included): what a watcher
/// watches, so ignored trees (`target/`, `node_modules/`) cost no watch.
pub fn directories(opts: &WalkOptions) -> Vec<std::path::PathBuf> {
    let (builder, _) = builder(opts, walk(opts).build_output_kept);
    builder.build().filter_map(Result::ok).filter(|e| e.file_type().is_some_and(|t| t.is_dir())).map(ignore::DirEntry::into_path).collect()
}

pub fn walk(opts: &WalkOptions) -> Walked {
    let (builder, vendored) = builder(opts, true);

    let out = Mutex::new(Walked::default());
    let root = opts.root;
    let max = opts.max_file_size;
    let include_generated = opts.include_generated;
    builder.build_parallel().run(|| {
        let out = &out;
        Box::new(move |result| {
            let mut local: Option<Result<Candidate, (&'static str, String)>> = None;
            match result {
                Ok(entry) => {
                    if entry.file_type().is_some_and(|t| t.is_file()) {
                        let rel = relative(root, entry.path());
                        local = Some(match ken_lang::classify(entry.path()) {
                            ken_lang::Detected::Index(language) => candidate(entry.path(), rel, language, max),
                            ken_lang::Detected::Skip("generated") if include_generated => {
                                candidate(entry.path(), rel, ken_lang::detect(entry.path()).unwrap_or(Language::Text), max)
                            }
                            ken_lang::Detected::Skip(reason) => Err((reason, rel)),
                        });
                    }
                }
                Err(err) => local = Some(Err(classify_walk_error(root, &err))),
            }
            let mut out = out.lock().unwrap_or_else(|p| p.into_inner());
            match local {
                Some(Ok(c)) => out.candidates.push(c),
                Some(Err(skip)) => out.skipped.push(skip),
                None => {}
            }
            ignore::WalkState::Continue
        })
    });
    let mut walked = out.into_inner().unwrap_or_else(|p| p.into_inner());
    walked.vendored_dirs = vendored.load(Ordering::Relaxed);
    if !opts.include_vendored {
        keep_build_output_if_it_is_the_code(&mut walked);
    }
    walked.candidates.sort_by(|a, b| a.rel.cmp(&b.rel));
    walked
}

/// The build output directory a relative path lies in, if any (the
/// outermost: `dist/esm/dist/x.js` is in `dist`).
fn build_output_dir(rel: &str) -> Option<&str> {
    let dirs = rel.rsplit_once('/')?.0;
    let mut end = 0;
    for part in dirs.split('/') {
        end += part.len();
        if is_build_output_dir(part) {
            return Some(&dirs[..end]);
        }
        end += 1;
    }
    None
}

/// Drops the files of build output directories unless the code outside
/// them is too little to be the tree's sources (see [`BUILD_OUTPUT_SHARE`]);
/// dropped directories count as vendored.
fn keep_build_output_if_it_is_the_code(walked: &mut Walked) {
    let code_bytes = |inside: bool| -> u64 {
        walked
            .candidates
            .iter()
            .filter(|c| c.language.family() == ken_core::Family::Code && build_output_dir(&c.rel).is_some() == inside)
            .map(|c| c.size)
            .sum()
    };
    let (inside, outside) = (code_bytes(true), code_bytes(false));
    if inside > 0 && (outside as f64) < inside as f64 * BUILD_OUTPUT_SHARE {
        walked.build_output_kept = true;
        return;
    }
    let mut dropped: Vec<String> = walked
        .candidates
        .iter()
        .map(|c| c.rel.as_str())
        .chain(walked.skipped.iter().map(|(_, rel)| rel.as_str()))
        .filter_map(build_output_dir)
        .map(str::to_string)
        .collect();
    dropped.sort_unstable();
    dropped.dedup();
    walked.vendored_dirs += dropped.len() as u64;
    walked.candidates.retain(|c| build_output_dir(&c.rel).is_none());
    walked.skipped.retain(|(_, rel)| build_output_dir(rel).is_none());
}

fn candidate(abs: &Path, rel: String, language: Language, max: u64) -> Result<Candidate, (&'static str, String)> {
    let meta = std::fs::metadata(abs).map_err(|_| ("unreadable", rel.clone()))?;
    if meta.len() > max {
        return Err(("too_large", rel));
    }
    let mtime_ns = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos() as i64);
    Ok(Candidate { abs: abs.to_path_buf(), rel, language, size: meta.len(), mtime_ns })
}

fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    parts.join("/")
}

fn classify_walk_error(root: &Path, err: &ignore::Error) -> (&'static str, String) {
    let mut err = err;
    let mut path = None;
    loop {
        match err {
            ignore::Error::Loop { child, .. } => return ("symlink_loop", relative(root, child)),
            ignore::Error::WithPath { path: p, err: inner } => {
                path = Some(relative(root, p));
                err = inner;
            }
            ignore::Error::WithDepth { err: inner, .. } | ignore::Error::WithLineNumber { err: inner, .. } => err = inner,
            ignore::Error::Io(io) if io.raw_os_error() == Some(40) => {
                // ELOOP: a link that resolves to itself.
                return ("symlink_loop", path.unwrap_or_default());
            }
            _ => return ("unreadable", path.unwrap_or_else(|| err.to_string())),
        }
    }
}
