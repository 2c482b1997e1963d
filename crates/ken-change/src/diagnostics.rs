//! An oracle's errors, read from what it prints: pyright's `--outputjson`,
//! cargo's `--message-format=json` lines, tsc's `file(line,col): error`,
//! and the `path:line[:col]: [error:] message` of gcc, go, mypy and most
//! others. Warnings and notes are left out: the loop repairs what breaks.

use regex::Regex;
use serde::Serialize;
use std::sync::LazyLock;

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
pub struct Diagnostic {
    /// Relative to the directory the oracle ran in.
    pub path: String,
    pub line: u32,
    pub message: String,
}

static TSC: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$").unwrap());
static PLAIN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([^\s:][^:]*?):(\d+)(?::(\d+))?:\s*(?:(error|fatal error|warning|note|info)(?:\[[^\]]*\])?:\s*)?(.*)$").unwrap()
});

/// The errors in `output`, with paths made relative to `root` (the
/// absolute directory the oracle ran in). Errors outside it are dropped.
pub fn parse(output: &str, root: &str) -> Vec<Diagnostic> {
    let relative = |path: &str| -> Option<String> {
        let path = path.trim();
        let rel = match path.strip_prefix(root) {
            Some(rest) => rest.trim_start_matches('/'),
            None if path.starts_with('/') => return None,
            None => path,
        };
        let rel = rel.trim_start_matches("./");
        (!rel.is_empty()).then(|| rel.to_string())
    };
    let mut out = Vec::new();
    let trimmed = output.trim_start();
    if trimmed.starts_with('{')
        && let Ok(json) = serde_json::from_str::<serde_json::Value>(trimmed)
        && let Some(diags) = json.get("generalDiagnostics").and_then(|d| d.as_array())
    {
        // pyright --outputjson
        for d in diags.iter().filter(|d| d.get("severity").and_then(|s| s.as_str()) == Some("error")) {
            let (Some(file), Some(line), Some(message)) = (
                d.get("file").and_then(|f| f.as_str()),
                d.pointer("/range/start/line").and_then(|l| l.as_u64()),
                d.get("message").and_then(|m| m.as_str()),
            ) else {
                continue;
            };
            if let Some(path) = relative(file) {
                out.push(Diagnostic { path, line: line as u32 + 1, message: message.to_string() });
            }
        }
        return out;
    }
    for line in output.lines() {
        if line.starts_with('{') {
            // cargo --message-format=json
            let Ok(json) = serde_json::from_str::<serde_json::Value>(line) else { continue };
            let Some(message) = json.get("message").filter(|_| json.get("reason").and_then(|r| r.as_str()) == Some("compiler-message"))
            else {
                continue;
            };
            if message.get("level").and_then(|l| l.as_str()) != Some("error") {
                continue;
            }
            let spans = message.get("spans").and_then(|s| s.as_array()).cloned().unwrap_or_default();
            let primary = spans.iter().find(|s| s.get("is_primary").and_then(|p| p.as_bool()) == Some(true));
            let Some(span) = primary else { continue };
            let (Some(file), Some(at)) = (span.get("file_name").and_then(|f| f.as_str()), span.get("line_start").and_then(|l| l.as_u64()))
            else {
                continue;
            };
            if let Some(path) = relative(file) {
                let text = message.get("message").and_then(|m| m.as_str()).unwrap_or("").to_string();
                out.push(Diagnostic { path, line: at as u32, message: text });
            }
            continue;
        }
        if let Some(m) = TSC.captures(line) {
            if let Some(path) = relative(&m[1]) {
                out.push(Diagnostic { path, line: m[2].parse().unwrap_or(0), message: format!("{}: {}", &m[4], &m[5]) });
            }
            continue;
        }
        if let Some(m) = PLAIN.captures(line) {
            let severity = m.get(4).map(|s| s.as_str());
            if matches!(severity, Some("warning" | "note" | "info")) {
                continue;
            }
            // Without a severity word only lines with a column count (`go build`,
            // `go vet`); a bare `x:1: …` is too often a log line.
            if severity.is_none() && m.get(3).is_none() {
                continue;
            }
            let Some(path) = relative(&m[1]) else { continue };
            if path.contains(' ') || !path.contains('.') {
                continue;
            }
            out.push(Diagnostic { path, line: m[2].parse().unwrap_or(0), message: m[5].trim().to_string() });
        }
    }
    out
}

/// What `after` reports that `before` did not: errors are matched by file
/// and message (their lines move as code is edited), as multisets.
pub fn new_errors(before: &[Diagnostic], after: &[Diagnostic]) -> Vec<Diagnostic> {
    let mut known: rustc_hash::FxHashMap<(&str, &str), usize> = rustc_hash::FxHashMap::default();
    for d in before {
        *known.entry((&d.path, &d.message)).or_default() += 1;
    }
    let mut out = Vec::new();
    for d in after {
        match known.get_mut(&(d.path.as_str(), d.message.as_str())) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(d.clone()),
        }
    }
    out
}
