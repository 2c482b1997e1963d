//! CodePlan's adaptive plan-and-execute loop (Algorithm 1). The plan's
//! pending blocks are taken in order; each is found in the file as it is
//! now, edited by the editor, merged (a merge that adds a syntax error is
//! rejected), classified, and the obligations its changes derive join the
//! plan. After the plan, the oracle runs; its new errors seed the blocks
//! that hold them, for a bounded number of rounds.
//!
//! Everything happens in a scratch copy of the repository: the user's tree
//! is written only by `apply`, and only where a file is still as it was read.

use crate::api::{
    BlockEdit, EditorKind, ExecuteRequest, ExecuteResponse, FileChange, FileVersions, ImpactReason, OracleRound, PlanStatus, Strategy,
};
use crate::impact::{PlanState, git, split_z, with_rules};
use crate::{Engine, Error};
use ken_change::FileDiff;
use ken_change::diagnostics::{self, Diagnostic};
use ken_change::edit::{self, Param, SignatureDelta};
use ken_core::{ChunkBudget, Language, Symbol, SymbolKind};
use ken_llm::Llm;
use ken_store::{Store, SymbolRow};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long one oracle run may take before it is stopped.
const ORACLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// Oracle output kept in the log, per run.
const LOG_OUTPUT_BYTES: usize = 64 << 10;
/// Times one node is edited (a second cause may reach a completed block).
const MAX_VISITS: u32 = 2;
/// Earlier edits shown to the language model with a block.
const MAX_CONTEXT_EDITS: usize = 4;
/// Largest block given to the language model, in lines.
const MAX_LLM_BLOCK_LINES: usize = 200;

impl Engine {
    pub fn execute(&self, request: &ExecuteRequest) -> Result<ExecuteResponse, Error> {
        request.validate()?;
        let store = self.store()?;
        let derive = request.strategy == Strategy::Plan;
        let (mut state, seed_changes, made) = self.plan_state(&request.plan, &store, derive)?;
        let mut notes = std::mem::take(&mut state.plan.notes);
        notes.retain(|n| !n.starts_with("no obligation is derived before an edit"));
        let scratch = Scratch::create(&self.root, &self.index_dir, &made)?;
        let oracle = self.oracle(request)?;

        // The oracle's errors before the change: the seed files as they were.
        let mut baseline = Vec::new();
        let mut log = Log::default();
        if let Some(oracle) = &oracle {
            for f in &made {
                scratch.write(&f.path, &f.before)?;
            }
            let (found, run) = oracle.run(&scratch.root, "baseline")?;
            log.oracle.push(run);
            baseline = found;
            for f in &made {
                scratch.write(&f.path, &f.after)?;
            }
        }
        let editor: Box<dyn Editor> = match request.editor {
            EditorKind::Structural => Box::new(Structural),
            EditorKind::Llm => {
                Box::new(LlmEditor { llm: self.llm().map_err(|why| Error::invalid("editor", format!("no language model: {why}")))? })
            }
        };
        let mut run = Run {
            store: &store,
            scratch: &scratch,
            state,
            deltas: FxHashMap::default(),
            editor: editor.as_ref(),
            kind: request.editor,
            derive,
            edits: Vec::new(),
            visits: FxHashMap::default(),
            oracle_errors: FxHashMap::default(),
            queue: VecDeque::new(),
            max_edits: request.max_edits.unwrap_or(200) as usize,
            log: &mut log,
            seed_diffs: made.iter().map(|f| unified(&f.path, &f.before, &f.after, 2)).collect(),
            miner: ken_mine::Miner::new(),
        };
        run.learn_seeds(&made, &seed_changes);
        run.queue.extend(run.state.plan.nodes.iter().filter(|n| n.status == PlanStatus::Pending).map(|n| n.id.clone()));
        run.drain()?;

        let mut rounds = Vec::new();
        let mut passed = None;
        if let Some(oracle) = &oracle {
            let last = request.rounds.unwrap_or(3);
            for round in 0..=last {
                let (found, output) = oracle.run(&scratch.root, &format!("round {round}"))?;
                let exit_code = output.exit_code;
                run.log.oracle.push(output);
                let new = diagnostics::new_errors(&baseline, &found);
                let mut report = OracleRound {
                    round,
                    command: oracle.command.clone(),
                    exit_code,
                    errors: new.len(),
                    diagnostics: new.iter().take(50).cloned().collect(),
                    seeded: Vec::new(),
                };
                if new.is_empty() || round == last {
                    passed = Some(new.is_empty());
                    rounds.push(report);
                    break;
                }
                report.seeded = run.seed_from(&new)?;
                let seeded = !report.seeded.is_empty();
                rounds.push(report);
                if !seeded {
                    notes.push(format!("round {round}: the oracle's errors are in no block the editor can take on"));
                    passed = Some(false);
                    break;
                }
                run.drain()?;
            }
        } else {
            notes
                .push("no oracle: the plan was carried out unchecked (pass an oracle: pyright, tsc, cargo, go, mypy, or a command)".into());
        }

        let Run { state, edits, queue, max_edits, .. } = run;
        if !queue.is_empty() {
            notes.push(format!("stopped after {max_edits} edits: {} blocks left pending", queue.len()));
        }
        let (patch, files) = scratch.patch(&self.root)?;
        let mut applied = false;
        if request.apply && !files.is_empty() {
            scratch.apply(&self.root, &files)?;
            applied = true;
        }
        let mut response = ExecuteResponse { plan: state.plan, edits, rounds, passed, patch, files, applied, log: None, notes };
        response.log = self.write_log(&log, &response).map_err(|e| notes_error(&e)).ok();
        Ok(response)
    }

    fn oracle(&self, request: &ExecuteRequest) -> Result<Option<Oracle>, Error> {
        let target = self.index_dir.join("oracle-target");
        let (command, env): (String, Vec<(String, String)>) = match (request.oracle.as_deref(), &request.oracle_command) {
            (None, None) => return Ok(None),
            (_, Some(command)) => (command.clone(), Vec::new()),
            (Some("pyright"), _) => ("pyright --outputjson".into(), Vec::new()),
            (Some("tsc"), _) => ("tsc --noEmit --pretty false".into(), Vec::new()),
            // Its own target directory: the user's builds are neither reused
            // with other sources nor overwritten. `--keep-going`: without it
            // cargo stops at the first target that fails, and which of the
            // others got compiled by then (and reported) depends on timing.
            (Some("cargo"), _) => (
                "cargo check --message-format=json --all-targets --keep-going --quiet".into(),
                vec![("CARGO_TARGET_DIR".into(), target.display().to_string())],
            ),
            (Some("go"), _) => ("go build ./... && go vet ./...".into(), Vec::new()),
            (Some("mypy"), _) => ("mypy --no-color-output --no-error-summary .".into(), Vec::new()),
            (Some(other), _) => return Err(Error::invalid("oracle", format!("unknown oracle {other:?}"))),
        };
        Ok(Some(Oracle { command, env }))
    }

    fn write_log(&self, log: &Log, response: &ExecuteResponse) -> std::io::Result<String> {
        let dir = self.index_dir.join("plans");
        std::fs::create_dir_all(&dir)?;
        let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0);
        let path = dir.join(format!("execute-{stamp}-{}.json", std::process::id()));
        let body = serde_json::json!({ "events": log.events, "oracle": log.oracle, "response": response });
        std::fs::write(&path, serde_json::to_vec_pretty(&body).unwrap_or_default())?;
        Ok(path.display().to_string())
    }
}

fn notes_error(e: &std::io::Error) -> String {
    tracing::warn!("cannot write the plan log: {e}");
    e.to_string()
}

/// The run's full record, kept beside the index.
#[derive(Default, Serialize)]
struct Log {
    events: Vec<LogEvent>,
    oracle: Vec<OracleOutput>,
}

#[derive(Serialize)]
struct LogEvent {
    node: String,
    symbol: String,
    editor: EditorKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reply: Option<String>,
    outcome: String,
}

#[derive(Serialize)]
struct OracleOutput {
    when: String,
    command: String,
    exit_code: Option<i32>,
    seconds: f64,
    errors: usize,
    output: String,
}

struct Oracle {
    command: String,
    env: Vec<(String, String)>,
}

impl Oracle {
    /// Runs in `dir`; its errors, and the record of the run.
    fn run(&self, dir: &Path, when: &str) -> Result<(Vec<Diagnostic>, OracleOutput), Error> {
        let started = Instant::now();
        let out_path = dir.with_extension("oracle-out");
        let file = std::fs::File::create(&out_path).map_err(|e| Error::internal(format!("oracle output file: {e}")))?;
        let err = file.try_clone().map_err(|e| Error::internal(e.to_string()))?;
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(&self.command)
            .current_dir(dir)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(file)
            .stderr(err)
            .spawn()
            .map_err(|e| Error::invalid("oracle", format!("cannot run `{}`: {e}", self.command)))?;
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if started.elapsed() > ORACLE_TIMEOUT => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(50)),
                Err(e) => return Err(Error::internal(format!("oracle `{}`: {e}", self.command))),
            }
        };
        let output = String::from_utf8_lossy(&std::fs::read(&out_path).unwrap_or_default()).into_owned();
        let _ = std::fs::remove_file(&out_path);
        let Some(status) = status else {
            return Err(Error::internal(format!(
                "oracle `{}` ran longer than {} s and was stopped",
                self.command,
                ORACLE_TIMEOUT.as_secs()
            )));
        };
        if status.code() == Some(127) {
            return Err(Error::invalid("oracle", format!("`{}` is not installed: {}", self.command, output.trim())));
        }
        let found = diagnostics::parse(&output, &dir.display().to_string());
        let mut kept = output;
        if kept.len() > LOG_OUTPUT_BYTES {
            let mut cut = LOG_OUTPUT_BYTES;
            while !kept.is_char_boundary(cut) {
                cut -= 1;
            }
            kept.truncate(cut);
        }
        let record = OracleOutput {
            when: when.to_string(),
            command: self.command.clone(),
            exit_code: status.code(),
            seconds: started.elapsed().as_secs_f64(),
            errors: found.len(),
            output: kept,
        };
        Ok((found, record))
    }
}

/// A scratch copy of the repository: its files (tracked and untracked, not
/// ignored), with ignored top-level directories (`node_modules`, a venv)
/// linked, not copied.
struct Scratch {
    _dir: tempfile::TempDir,
    root: PathBuf,
    /// Each file as it was read from the repository (for the patch and `apply`).
    original: std::cell::RefCell<FxHashMap<String, String>>,
}

impl Scratch {
    fn create(root: &Path, index_dir: &Path, made: &[FileVersions]) -> Result<Scratch, Error> {
        let dir =
            tempfile::Builder::new().prefix("ken-execute-").tempdir().map_err(|e| Error::internal(format!("scratch directory: {e}")))?;
        let copy = dir.path().join("tree");
        let index_rel = index_dir.strip_prefix(root).ok().map(|p| p.to_string_lossy().into_owned());
        let skip = |p: &str| {
            p.starts_with(".kenning/") || p.starts_with(".git/") || index_rel.as_deref().is_some_and(|i| p.starts_with(&format!("{i}/")))
        };
        let in_git = git(root, &["rev-parse", "--is-inside-work-tree"]).is_ok();
        let files: Vec<String> = if in_git {
            split_z(&git(root, &["ls-files", "-z", "--cached", "--others", "--exclude-standard"]).map_err(Error::internal)?)
        } else {
            ignore::WalkBuilder::new(root)
                .build()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
                .filter_map(|e| e.path().strip_prefix(root).ok().map(|p| p.to_string_lossy().into_owned()))
                .collect()
        };
        for path in files.iter().filter(|p| !skip(p)) {
            let to = copy.join(path);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(|e| Error::internal(format!("scratch {}: {e}", parent.display())))?;
            }
            // A tracked file deleted in the working tree is simply absent.
            let _ = std::fs::copy(root.join(path), &to);
        }
        std::fs::create_dir_all(&copy).map_err(|e| Error::internal(e.to_string()))?;
        #[cfg(unix)]
        if in_git {
            let ignored = git(root, &["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]).unwrap_or_default();
            for entry in split_z(&ignored) {
                let name = entry.trim_end_matches('/');
                let top = !name.contains('/') && entry.ends_with('/');
                if top && !skip(&format!("{name}/")) && name != "target" && !copy.join(name).exists() {
                    let _ = std::os::unix::fs::symlink(root.join(name), copy.join(name));
                }
            }
        }
        let scratch = Scratch { _dir: dir, root: copy, original: Default::default() };
        for f in made {
            // A change given whole (not on disk) is part of what the patch is against.
            scratch.original.borrow_mut().insert(f.path.clone(), std::fs::read_to_string(root.join(&f.path)).unwrap_or_default());
            scratch.write(&f.path, &f.after)?;
        }
        Ok(scratch)
    }

    fn read(&self, path: &str) -> Option<String> {
        let text = std::fs::read_to_string(self.root.join(path)).ok()?;
        self.original.borrow_mut().entry(path.to_string()).or_insert_with(|| text.clone());
        Some(text)
    }

    fn write(&self, path: &str, text: &str) -> Result<(), Error> {
        let to = self.root.join(path);
        if !self.original.borrow().contains_key(path) {
            let before = std::fs::read_to_string(&to).unwrap_or_default();
            self.original.borrow_mut().insert(path.to_string(), before);
        }
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::internal(e.to_string()))?;
        }
        if text.is_empty() && !to.exists() {
            return Ok(());
        }
        std::fs::write(&to, text).map_err(|e| Error::internal(format!("scratch {path}: {e}")))
    }

    /// The unified diff of every file changed against the repository, and their paths.
    fn patch(&self, root: &Path) -> Result<(String, Vec<String>), Error> {
        let mut paths: Vec<String> = self.original.borrow().keys().cloned().collect();
        paths.sort();
        let mut patch = String::new();
        let mut files = Vec::new();
        for path in paths {
            let now = std::fs::read_to_string(self.root.join(&path)).unwrap_or_default();
            let user = std::fs::read_to_string(root.join(&path)).unwrap_or_default();
            if now != user {
                patch.push_str(&unified(&path, &user, &now, 3));
                files.push(path);
            }
        }
        Ok((patch, files))
    }

    /// Writes the changed files into the repository, each only if it is
    /// still as it was read (else nothing is written).
    fn apply(&self, root: &Path, files: &[String]) -> Result<(), Error> {
        let original = self.original.borrow();
        for path in files {
            let user = std::fs::read_to_string(root.join(path)).unwrap_or_default();
            if original.get(path).is_some_and(|o| *o != user) {
                return Err(Error::conflict(format!("{path} changed while the plan ran; nothing was applied (run again)")));
            }
        }
        for path in files {
            let now = std::fs::read_to_string(self.root.join(path)).map_err(|e| Error::internal(e.to_string()))?;
            std::fs::write(root.join(path), now).map_err(|e| Error::internal(format!("{path}: {e}")))?;
        }
        Ok(())
    }
}

fn unified(path: &str, before: &str, after: &str, context: usize) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(context)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

/// One block to edit, as the editor sees it.
struct EditTask<'a> {
    instruction: &'a str,
    path: &'a str,
    language: Language,
    /// The whole file now.
    source: &'a str,
    block: &'a Symbol,
    /// The file's module, as qualified names spell it.
    module: String,
    /// Its first and last lines in the index (the graph's sites are counted from there).
    indexed_start: u32,
    indexed_end: u32,
    /// Its class sketched: declarations without bodies.
    sketch: Option<String>,
    /// Why it is in the plan: each cause's change and relation.
    causes: &'a [ImpactReason],
    /// The signature changes known so far, by the changed symbol's old qualified name.
    deltas: &'a FxHashMap<String, SignatureDelta>,
    /// Oracle errors inside the block.
    errors: &'a [Diagnostic],
    /// Code the block depends on, and the edits that led to it (for the model).
    related: Vec<(String, String)>,
    edits: Vec<String>,
    rejected: Option<&'a str>,
}

enum Outcome {
    /// The new text of the whole file, and what was done.
    Edited(String, String),
    Unchanged(String),
    Failed(String),
}

trait Editor {
    /// The edit, with the prompt and reply when a model made it.
    fn edit(&self, task: &EditTask<'_>) -> (Outcome, Option<(String, String)>);
}

/// The mechanical editor: signature changes carried to calls and overrides.
struct Structural;

impl Editor for Structural {
    fn edit(&self, task: &EditTask<'_>) -> (Outcome, Option<(String, String)>) {
        (structural_edit(task), None)
    }
}

fn structural_edit(task: &EditTask<'_>) -> Outcome {
    let block = task.block;
    let mut source = task.source.to_string();
    let mut reasons = Vec::new();
    // The deltas this block must follow: its causes', or for an oracle error
    // every known one whose name the block spells.
    // Each with the lines of the block where the graph saw the calls (moved
    // with the block), or where the oracle reports an error.
    let mut wanted: Vec<(&SignatureDelta, bool, Vec<u32>)> = Vec::new();
    for cause in task.causes {
        if let Some(delta) = task.deltas.get(&cause.cause) {
            let mirror = matches!(cause.relation.as_str(), "Overrides" | "OverriddenBy");
            let shift = |line: u32| (block.span.start_line + line).checked_sub(task.indexed_start);
            let lines: Vec<u32> = cause.sites.iter().filter(|s| s.path == task.path).filter_map(|s| shift(s.line)).collect();
            match wanted.iter_mut().find(|(d, m, _)| std::ptr::eq(*d, delta) && *m == mirror) {
                Some(known) => known.2.extend(lines),
                None => wanted.push((delta, mirror, lines)),
            }
        }
    }
    if !task.errors.is_empty() {
        let text = &task.source[block.span.start_byte as usize..block.span.end_byte as usize];
        let lines: Vec<u32> = task.errors.iter().map(|e| e.line).collect();
        for delta in task.deltas.values() {
            if contains_word(text, &delta.name) {
                match wanted.iter_mut().find(|(d, m, _)| std::ptr::eq(*d, delta) && !*m) {
                    Some(known) => known.2.extend(lines.iter().copied()),
                    None => wanted.push((delta, false, lines.clone())),
                }
            }
        }
    }
    if wanted.is_empty() {
        return Outcome::Unchanged(if task.causes.is_empty() && task.errors.is_empty() {
            "no mechanical edit for a seed: edit it yourself (then --seed-diff) or use the llm editor".into()
        } else {
            "no signature change to carry here".into()
        });
    }
    let callable = block.kind.is_callable();
    let newlines = |text: &str| text.matches('\n').count() as u32;
    let mut missing: Vec<Param> = Vec::new();
    let mut imports: Vec<&SignatureDelta> = Vec::new();
    // Calls first, then signatures, then imports: each step edits below
    // the lines the next one finds (imports sit above the block).
    for (delta, mirror, lines) in &wanted {
        if *mirror {
            continue;
        }
        // Lines the block gained since it was indexed (in this run or this
        // visit) move its calls down: a site may sit that much lower.
        let end_line = (block.span.end_line + newlines(&source)).saturating_sub(newlines(task.source));
        let grown = (end_line - block.span.start_line).saturating_sub(task.indexed_end - task.indexed_start);
        let lines: Vec<u32> = lines.iter().flat_map(|l| *l..=*l + grown).collect();
        // The graph may give a use to a block that does not span it (a
        // Rust `impl`'s constant is its type's): the range reaches its sites.
        let first = lines.iter().copied().min().map_or(block.span.start_line, |l| l.min(block.span.start_line));
        let last = lines.iter().copied().max().map_or(end_line, |l| l.max(end_line));
        let range = edit::line_range(&source, first, last);
        let own: Vec<Param> =
            if callable { edit::parameters(task.language, &source, &block.name, block.name_line).unwrap_or_default() } else { Vec::new() };
        let body = source[range.clone()].to_string();
        let mut calls = 0;
        for callee in callee_names(delta) {
            let Some(update) =
                edit::update_calls(task.language, &source, range.clone(), &callee, delta, Some(&lines), &|p: &Param| p.name.clone())
            else {
                continue;
            };
            if update.calls > 0 {
                calls += update.calls;
                source = update.text;
                break;
            }
        }
        if delta.moved.is_some() || (calls > 0 && delta.new_name != delta.name) {
            imports.push(delta);
        }
        if calls == 0 {
            continue;
        }
        reasons.push(format!("{calls} call(s) of {} updated", delta.name));
        // A value the block lacks is taken on as a parameter of its own.
        for (_, p) in &delta.added {
            let lacks = !p.has_default && !p.variadic && !own.iter().any(|o| o.name == p.name) && !assigns(&body, &p.name);
            if lacks && !missing.iter().any(|m| m.name == p.name) {
                missing.push(p.clone());
            }
        }
    }
    for (delta, _, _) in wanted.iter().filter(|(_, mirror, _)| *mirror) {
        if callable && let Some(next) = edit::mirror_signature(task.language, &source, &block.name, block.name_line, delta) {
            source = next;
            reasons.push(format!("signature of {} mirrored", delta.new_name));
        }
    }
    if !missing.is_empty() {
        let names = missing.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ");
        if !callable {
            return Outcome::Failed(format!("the calls here need {names}, which this {} does not have", block.kind));
        }
        if entry_point(task.source, block, task.language) {
            // Its caller is a test runner or the program's start: nothing would pass the value.
            return Outcome::Failed(format!("the calls here need {names}, and an entry point ({}) cannot take it on", block.name));
        }
        let take = SignatureDelta {
            name: block.name.clone(),
            new_name: block.name.clone(),
            added: missing.iter().map(|p| (usize::MAX, p.clone())).collect(),
            removed: Vec::new(),
            renamed: Vec::new(),
            accepts: None,
            receiver: false,
            moved: None,
        };
        match edit::mirror_signature(task.language, &source, &block.name, block.name_line, &take) {
            Some(next) => {
                source = next;
                reasons.push(format!("takes on {names}"));
            }
            None => return Outcome::Failed(format!("cannot add {names} to {}'s parameters", block.name)),
        }
    }
    for delta in imports {
        if let Some(moved) = &delta.moved
            && let Some(next) = edit::move_imports(task.language, &source, task.path, &task.module, &delta.name, moved)
        {
            source = next;
            reasons.push(format!("import of {} moved to {}", delta.name, moved.to_module));
        }
        if delta.new_name != delta.name
            && let Some(next) = edit::rename_imports(task.language, &source, &delta.name, &delta.new_name)
        {
            source = next;
            reasons.push(format!("import of {} renamed", delta.name));
        }
    }
    if source == task.source {
        Outcome::Unchanged("no call or signature here to edit".into())
    } else {
        Outcome::Edited(source, reasons.join("; "))
    }
}

/// A function a runtime calls, not code: `main`, a test (`#[test]`,
/// `test_*` in Python, `Test*` in Go).
fn entry_point(source: &str, block: &Symbol, language: Language) -> bool {
    let head = &source[block.span.start_byte as usize..block.span.end_byte as usize];
    let head: String = head.lines().take((block.name_line + 1).saturating_sub(block.span.start_line) as usize).collect();
    block.name == "main"
        || head.contains("#[test]")
        || head.contains("::test]")
        || head.contains("@Test")
        || (language == Language::Python && block.name.starts_with("test_"))
        || (language == Language::Go && block.name.starts_with("Test"))
}

/// The names calls spell for `delta`: a constructor's class as well as its own name.
fn callee_names(delta: &SignatureDelta) -> Vec<String> {
    let mut names = vec![delta.name.clone()];
    if matches!(delta.name.as_str(), "__init__" | "constructor" | "new" | "init")
        && let Some(class) = delta.new_name.split(['.', ':']).next_back()
        && class != delta.name
    {
        names.push(class.to_string());
    }
    names
}

fn contains_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        let after = text[i + word.len()..].chars().next().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        before && after
    })
}

/// The block assigns `name` (`name = …`, `let name`, `name :=`, `const name`).
fn assigns(body: &str, name: &str) -> bool {
    body.lines().any(|line| {
        let t = line.trim_start();
        let t = ["let mut ", "let ", "const ", "var ", "auto ", "final "].iter().find_map(|k| t.strip_prefix(k)).unwrap_or(t);
        t.strip_prefix(name).is_some_and(|rest| {
            let rest = rest.trim_start();
            let rest = rest.strip_prefix(':').map(|r| r.split_once('=').map_or("", |(_, v)| v)).unwrap_or(rest);
            (rest.starts_with('=') && !rest.starts_with("==")) || rest.starts_with(":=") || line.contains(&format!("for {name} in"))
        })
    })
}

/// The language-model editor.
struct LlmEditor {
    llm: Arc<dyn Llm>,
}

impl Editor for LlmEditor {
    fn edit(&self, task: &EditTask<'_>) -> (Outcome, Option<(String, String)>) {
        let block = task.block;
        let fragment = &task.source[block.span.start_byte as usize..block.span.end_byte as usize];
        if fragment.lines().count() > MAX_LLM_BLOCK_LINES {
            return (Outcome::Failed(format!("the block is longer than {MAX_LLM_BLOCK_LINES} lines")), None);
        }
        let mut instruction = task.instruction.to_string();
        for e in task.errors {
            instruction.push_str(&format!("\nFix this error at line {}: {}", e.line.saturating_sub(block.span.start_line) + 1, e.message));
        }
        let prompt = ken_llm::edit::EditPrompt {
            instruction: &instruction,
            path: task.path,
            language: task.language.name(),
            fragment,
            sketch: task.sketch.as_deref(),
            related: task.related.clone(),
            edits: task.edits.clone(),
            rejected: task.rejected,
        };
        let max_tokens = (self.llm.count_tokens(fragment) * 2 + 128).min(2048);
        let request = ken_llm::edit::request(&prompt, max_tokens);
        let shown = request.messages.iter().map(|m| m.content.as_str()).collect::<Vec<_>>().join("\n\n");
        let reply = match self.llm.chat(&request, &mut |_| {}) {
            Ok(reply) => reply,
            Err(e) => return (Outcome::Failed(format!("the model failed: {e}")), Some((shown, String::new()))),
        };
        let outcome = match ken_llm::edit::parse(&reply, fragment) {
            Ok(new_block) if new_block.trim() == fragment.trim() => Outcome::Unchanged("the model changed nothing".into()),
            Ok(mut new_block) => {
                if fragment.ends_with('\n') && !new_block.ends_with('\n') {
                    new_block.push('\n');
                }
                let mut source = task.source.to_string();
                source.replace_range(block.span.start_byte as usize..block.span.end_byte as usize, &new_block);
                Outcome::Edited(source, "rewritten by the model".into())
            }
            Err(e) => Outcome::Failed(e.to_string()),
        };
        (outcome, Some((shown, reply.text)))
    }
}

/// One execution of a plan: the state it grows and what it has done.
struct Run<'a> {
    store: &'a Store,
    scratch: &'a Scratch,
    state: PlanState,
    deltas: FxHashMap<String, SignatureDelta>,
    editor: &'a dyn Editor,
    kind: EditorKind,
    /// Edits derive obligations (the plan); off for the repair baseline.
    derive: bool,
    edits: Vec<BlockEdit>,
    visits: FxHashMap<String, u32>,
    /// Oracle errors each node was queued for.
    oracle_errors: FxHashMap<String, Vec<Diagnostic>>,
    queue: VecDeque<String>,
    max_edits: usize,
    log: &'a mut Log,
    /// The seed edits already made, as diffs (temporal context for the model).
    seed_diffs: Vec<String>,
    /// Mines every file the run reads (it keeps its parsers).
    miner: ken_mine::Miner,
}

impl Run<'_> {
    /// The signature changes among `changes` of `files` (the user's edits).
    fn learn_seeds(&mut self, files: &[FileVersions], changes: &[FileChange]) {
        let mut deltas = Vec::new();
        for f in files {
            let Some(language) = ken_lang::detect(Path::new(&f.path)) else { continue };
            let own: Vec<ken_change::Change> = changes.iter().filter(|c| c.path == f.path).map(|c| c.change.clone()).collect();
            deltas.extend(FileDiff::mine(&mut self.miner, language, &f.path, &f.before, &f.after).signature_deltas(&own));
        }
        self.learn(deltas, changes);
    }

    /// Signature changes, and the moves among `changes`.
    fn learn(&mut self, deltas: Vec<(String, SignatureDelta)>, changes: &[FileChange]) {
        self.deltas.extend(deltas);
        let all: Vec<(String, ken_change::Change)> = changes.iter().map(|c| (c.path.clone(), c.change.clone())).collect();
        for (cause, delta) in edit::moves(&all) {
            self.deltas.entry(cause).or_insert(delta);
        }
    }

    /// Edits queued nodes until none is left (or the edit budget is spent).
    fn drain(&mut self) -> Result<(), Error> {
        while self.edits.len() < self.max_edits {
            let Some(id) = self.queue.pop_front() else { break };
            let visits = self.visits.entry(id.clone()).or_default();
            if *visits >= MAX_VISITS {
                continue;
            }
            *visits += 1;
            self.visit(&id)?;
        }
        Ok(())
    }

    fn set(&mut self, id: &str, status: PlanStatus, note: Option<String>) {
        if let Some(node) = self.state.node_mut(id) {
            node.status = status;
            node.note = note;
        }
    }

    fn visit(&mut self, id: &str) -> Result<(), Error> {
        let Some(node) = self.state.plan.nodes.iter().find(|n| n.id == id).cloned() else { return Ok(()) };
        let path = node.block.path.clone();
        let Some(language) = ken_lang::detect(Path::new(&path)).or(Some(node.block.language)) else { return Ok(()) };
        let Some(source) = self.scratch.read(&path) else {
            self.set(id, PlanStatus::Failed, Some(format!("{path} is gone")));
            return Ok(());
        };
        let mined = self.miner.analyze(&path, language, &source, &ChunkBudget::default()).symbols;
        let Some(block) = locate(&mined, &node.block) else {
            self.set(id, PlanStatus::Failed, Some(format!("{} is no longer in {path}", node.block.qualified_name)));
            return Ok(());
        };
        let causes = self.state.causes.get(id).cloned().unwrap_or_default();
        let errors = self.oracle_errors.remove(id).unwrap_or_default();
        let (related, edits) = if self.kind == EditorKind::Llm { self.context(id, &causes) } else { (Vec::new(), Vec::new()) };
        let mut task = EditTask {
            instruction: &node.instruction,
            path: &path,
            language,
            source: &source,
            block: &block,
            indexed_start: node.block.start_line,
            indexed_end: node.block.end_line,
            module: mined
                .iter()
                .find_map(|s| s.qualified_name.strip_suffix(s.local_path.as_str()).map(|m| m.trim_end_matches(['.', ':']).to_string()))
                .unwrap_or_default(),
            sketch: sketch(&mined, &block, &source),
            causes: &causes,
            deltas: &self.deltas,
            errors: &errors,
            related,
            edits,
            rejected: None,
        };
        let errors_before = edit::syntax_errors(language, &source).unwrap_or(0);
        let mut attempt = 0;
        let (outcome, exchange) = loop {
            let (outcome, exchange) = self.editor.edit(&task);
            let broken = match &outcome {
                Outcome::Edited(new, _) => edit::syntax_errors(language, new).unwrap_or(0) > errors_before,
                _ => false,
            };
            attempt += 1;
            if !broken {
                break (outcome, exchange);
            }
            let why = "the block does not parse once merged into the file";
            self.log.events.push(LogEvent {
                node: id.to_string(),
                symbol: node.block.qualified_name.clone(),
                editor: self.kind,
                prompt: exchange.as_ref().map(|e| e.0.clone()),
                reply: exchange.as_ref().map(|e| e.1.clone()),
                outcome: format!("rejected: {why}"),
            });
            // The structural editor gives the same edit again; a model may not.
            if attempt >= 2 || self.kind == EditorKind::Structural {
                break (Outcome::Failed(format!("rejected: {why}")), None);
            }
            task.rejected = Some(why);
        };
        let described = match &outcome {
            Outcome::Edited(_, what) => format!("edited: {what}"),
            Outcome::Unchanged(why) => format!("unchanged: {why}"),
            Outcome::Failed(why) => format!("failed: {why}"),
        };
        self.log.events.push(LogEvent {
            node: id.to_string(),
            symbol: node.block.qualified_name.clone(),
            editor: self.kind,
            prompt: exchange.as_ref().map(|e| e.0.clone()),
            reply: exchange.map(|e| e.1),
            outcome: described,
        });
        match outcome {
            Outcome::Unchanged(why) => self.set(id, PlanStatus::Unchanged, Some(why)),
            Outcome::Failed(why) => self.set(id, PlanStatus::Failed, Some(why)),
            Outcome::Edited(new, _) => {
                self.scratch.write(&path, &new)?;
                let diff = FileDiff::mine(&mut self.miner, language, &path, &source, &new);
                let own = diff.changes();
                let deltas = diff.signature_deltas(&own);
                let changes = with_rules(&path, own);
                self.learn(deltas, &changes);
                self.edits.push(BlockEdit {
                    node: id.to_string(),
                    path: path.clone(),
                    symbol: node.block.qualified_name.clone(),
                    editor: self.kind,
                    diff: unified(&path, &source, &new, 2),
                    changes: changes.iter().map(|c| format!("{} {}", c.change.label, c.change.symbol)).collect(),
                });
                self.set(id, PlanStatus::Completed, None);
                if self.derive {
                    for next in self.state.derive(self.store, &changes, 1)? {
                        let Some(n) = self.state.plan.nodes.iter().find(|n| n.id == next) else { continue };
                        // Not back to what caused this edit, nor into an edit the user made.
                        let made_by_user = n.seed && n.status == PlanStatus::Completed && !self.edits.iter().any(|e| e.node == next);
                        let cause_of_this = causes.iter().any(|c| c.cause == n.block.qualified_name);
                        if made_by_user || cause_of_this {
                            continue;
                        }
                        if next != id && !self.queue.contains(&next) && self.visits.get(&next).copied().unwrap_or(0) < MAX_VISITS {
                            if let Some(n) = self.state.node_mut(&next) {
                                n.status = PlanStatus::Pending;
                            }
                            self.queue.push_back(next);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// For the model: each cause's code as it is now (spatial context),
    /// and the edits made to the causes (temporal context).
    fn context(&mut self, id: &str, causes: &[ImpactReason]) -> (Vec<(String, String)>, Vec<String>) {
        let mut related = Vec::new();
        // Temporal: the edits made on the paths from the roots to this node,
        // nearest first (the plan's edges walked backwards).
        let mut edits: Vec<String> = Vec::new();
        let mut seen = vec![id.to_string()];
        let mut frontier = vec![id.to_string()];
        while let Some(at) = frontier.pop() {
            for edge in self.state.plan.edges.iter().filter(|e| e.to == at) {
                if seen.contains(&edge.from) {
                    continue;
                }
                seen.push(edge.from.clone());
                frontier.insert(0, edge.from.clone());
                edits.extend(self.edits.iter().filter(|e| e.node == edge.from).map(|e| e.diff.clone()));
            }
        }
        edits.truncate(MAX_CONTEXT_EDITS);
        for cause in causes.iter().take(3) {
            let Some(row) = self.store.symbols_with_qualified_name(&cause.cause).ok().and_then(|r| r.into_iter().next()) else { continue };
            let Some(text) = self.scratch.read(&row.path) else { continue };
            let Some(language) = ken_lang::detect(Path::new(&row.path)) else { continue };
            let mined = self.miner.analyze(&row.path, language, &text, &ChunkBudget::default()).symbols;
            if let Some(s) = locate(&mined, &row) {
                let code = &text[s.span.start_byte as usize..s.span.end_byte as usize];
                let head: String = code.lines().take(40).collect::<Vec<_>>().join("\n");
                related.push((format!("{} ({}), which this block is the {} of", cause.cause, row.path, cause.relation), head));
            }
        }
        // The user's own edits are the paths' roots.
        edits.extend(self.seed_diffs.iter().take(MAX_CONTEXT_EDITS.saturating_sub(edits.len())).cloned());
        (related, edits)
    }

    /// Queues the blocks holding the oracle's new errors; returns their nodes.
    fn seed_from(&mut self, errors: &[Diagnostic]) -> Result<Vec<String>, Error> {
        let mut seeded = Vec::new();
        let mut by_file: FxHashMap<&str, Vec<&Diagnostic>> = FxHashMap::default();
        for e in errors {
            by_file.entry(e.path.as_str()).or_default().push(e);
        }
        let mut files: Vec<&&str> = by_file.keys().collect();
        files.sort();
        for path in files.into_iter().copied() {
            let Some(language) = ken_lang::detect(Path::new(path)) else { continue };
            let Some(source) = self.scratch.read(path) else { continue };
            let mined = self.miner.analyze(path, language, &source, &ChunkBudget::default()).symbols;
            for e in &by_file[path] {
                let Some(block) = enclosing(&mined, e.line) else { continue };
                let row = match self.store.symbols_with_qualified_name(&block.qualified_name)?.into_iter().next() {
                    Some(row) => row,
                    None => row_of(block, path, language),
                };
                let instruction = format!("Fix the oracle's error: {}", e.message);
                let id = self.state.add_node(row, instruction, PlanStatus::Pending, false);
                self.oracle_errors.entry(id.clone()).or_default().push((*e).clone());
                if let Some(n) = self.state.node_mut(&id) {
                    n.status = PlanStatus::Pending;
                }
                // An oracle error earns a block one more visit.
                if let Some(v) = self.visits.get_mut(&id) {
                    *v = v.saturating_sub(1);
                }
                if !seeded.contains(&id) {
                    seeded.push(id.clone());
                    if !self.queue.contains(&id) {
                        self.queue.push_back(id);
                    }
                }
            }
        }
        Ok(seeded)
    }
}

/// The symbol in `mined` that is `row` (the same qualified name and kind
/// family), nearest its indexed line when overloads share the name.
fn locate(mined: &[Symbol], row: &SymbolRow) -> Option<Symbol> {
    mined
        .iter()
        .filter(|s| s.qualified_name == row.qualified_name && (s.kind.is_callable() == row.kind.is_callable()))
        .min_by_key(|s| s.span.start_line.abs_diff(row.start_line))
        .cloned()
}

/// The innermost function or type holding `line`; else the innermost
/// other definition (a constant's initializer, a Rust `impl`'s constant).
fn enclosing(mined: &[Symbol], line: u32) -> Option<&Symbol> {
    let holding = |s: &&Symbol| s.kind != SymbolKind::Module && s.span.start_line <= line && line <= s.span.end_line;
    let innermost = |code: bool| {
        mined
            .iter()
            .filter(holding)
            .filter(|s| !code || s.kind.is_callable() || s.kind.is_type())
            .min_by_key(|s| s.span.end_line - s.span.start_line)
    };
    innermost(true).or_else(|| innermost(false))
}

/// A block the index does not hold (added by the change), as a plan node's row.
fn row_of(s: &Symbol, path: &str, language: Language) -> SymbolRow {
    SymbolRow {
        id: 0,
        parent_id: None,
        kind: s.kind,
        name: s.name.clone(),
        qualified_name: s.qualified_name.clone(),
        path: path.to_string(),
        language,
        start_line: s.span.start_line,
        start_col: s.span.start_col,
        end_line: s.span.end_line,
        end_col: s.span.end_col,
        name_line: s.name_line,
        signature: s.signature.clone(),
        docstring: None,
        parent: None,
    }
}

/// The class around `block`: its declaration line and its members'
/// signatures, without bodies (CodePlan's class sketch).
fn sketch(mined: &[Symbol], block: &Symbol, source: &str) -> Option<String> {
    let index = mined.iter().position(|s| s.qualified_name == block.qualified_name && s.span == block.span)?;
    let parent = mined.get(mined[index].parent? as usize).filter(|p| p.kind.is_type())?;
    let parent_index = mined.iter().position(|s| std::ptr::eq(s, parent))? as u32;
    let head = source[parent.span.start_byte as usize..parent.span.end_byte as usize].lines().next().unwrap_or("");
    let mut out = format!("{head}\n");
    for member in mined.iter().filter(|s| s.parent == Some(parent_index)) {
        let line = source.lines().nth(member.name_line.saturating_sub(1) as usize).unwrap_or("");
        let indent = &line[..line.len() - line.trim_start().len()];
        let kind = if member.kind == SymbolKind::Field { "" } else { " …" };
        out.push_str(&format!("{indent}{}{kind}\n", member.signature.lines().next().unwrap_or(&member.name)));
    }
    Some(out)
}
