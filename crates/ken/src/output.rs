//! What a command prints (`Output`, collected so a server can print it for
//! a client) and the text and JSON renderings of library results.

use ken_core::SymbolKind;
use ken_index::IndexSummary;
use ken_store::SymbolRow;
use serde::{Deserialize, Serialize};
use std::fmt::Write;
use std::path::PathBuf;

/// What a read command printed, and its error (printed as `error: …`).
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Output {
    pub stdout: String,
    pub stderr: String,
    pub error: Option<String>,
}

/// Where a read command runs: the directory it was typed in (paths are
/// relative to it), whether its stdout is a colour terminal, and whether
/// that terminal shows hyperlinks (OSC 8).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Context {
    pub cwd: PathBuf,
    pub color: bool,
    /// Absent from older clients' requests: no links.
    #[serde(default)]
    pub links: bool,
}

/// Whether to make paths hyperlinks (`--hyperlinks`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LinkChoice {
    /// When colour is on and the terminal is one known to show OSC 8 links
    /// (iTerm2, WezTerm, kitty, VS Code, Windows Terminal, GNOME's VTE,
    /// foot, Ghostty); others would print them as noise.
    #[default]
    Auto,
    Always,
    Never,
}

impl LinkChoice {
    pub fn for_stdout(self, color: bool) -> bool {
        let var = |name: &str| std::env::var(name).unwrap_or_default();
        match self {
            LinkChoice::Always => true,
            LinkChoice::Never => false,
            LinkChoice::Auto => {
                color
                    && std::io::IsTerminal::is_terminal(&std::io::stdout())
                    && (matches!(var("TERM_PROGRAM").as_str(), "iTerm.app" | "WezTerm" | "vscode" | "ghostty")
                        || var("VTE_VERSION").parse::<u32>().is_ok_and(|v| v >= 5000)
                        || !var("KITTY_WINDOW_ID").is_empty()
                        || !var("WT_SESSION").is_empty()
                        || matches!(var("TERM").as_str(), "xterm-kitty" | "foot" | "xterm-ghostty"))
            }
        }
    }
}

/// `text` as a hyperlink to the file `root/path` (OSC 8), or as it is when
/// there is no `root` (links off).
pub fn link(text: &str, root: Option<&std::path::Path>, path: &str) -> String {
    let Some(root) = root else { return text.to_string() };
    let target = root.join(path);
    let mut url = String::from("file://");
    url.push_str(hostname());
    for byte in target.to_string_lossy().bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
            url.push(byte as char);
        } else {
            let _ = write!(url, "%{byte:02X}");
        }
    }
    format!("\x1b]8;;{url}\x1b\\{text}\x1b]8;;\x1b\\")
}

/// This machine's name, for `file://` links (a terminal over SSH opens only
/// its own host's files).
fn hostname() -> &'static str {
    static NAME: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    NAME.get_or_init(|| std::fs::read_to_string("/proc/sys/kernel/hostname").map(|h| h.trim().to_string()).unwrap_or_default())
}

/// `--format`: one line per result from a template. `{field}` is the
/// result's field, `{{` and `}}` are braces, `\t` a tab. `vimgrep` stands
/// for [`VIMGREP`].
#[derive(Clone, Debug, PartialEq)]
pub struct Template(Vec<Piece>);

#[derive(Clone, Debug, PartialEq)]
enum Piece {
    Text(String),
    Field(&'static str),
}

/// What Vim's `:cexpr` and Emacs's compilation mode read as locations.
pub const VIMGREP: &str = "{path}:{line}:{col}:{kind} {qualified_name}";

/// The fields of a symbol, for `ken symbols` and the graph's walks.
pub const SYMBOL_FIELDS: &[&str] = &["path", "line", "col", "end_line", "kind", "name", "qualified_name", "language", "signature"];

impl Template {
    /// Parses `text` against the fields a command's results have.
    pub fn parse(text: &str, fields: &[&'static str]) -> anyhow::Result<Template> {
        let text = if text == "vimgrep" { VIMGREP } else { text };
        let mut pieces = Vec::new();
        let mut literal = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    literal.push('{');
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    literal.push('}');
                }
                '\\' if chars.peek() == Some(&'t') => {
                    chars.next();
                    literal.push('\t');
                }
                '{' => {
                    let mut name = String::new();
                    loop {
                        match chars.next() {
                            Some('}') => break,
                            Some(c) => name.push(c),
                            None => anyhow::bail!("--format: `{{{name}` is not closed (write `{{{{` for a brace)"),
                        }
                    }
                    let Some(field) = fields.iter().find(|f| **f == name) else {
                        anyhow::bail!("--format: no field `{{{name}}}`; the fields here are {}", fields.join(", "));
                    };
                    if !literal.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut literal)));
                    }
                    pieces.push(Piece::Field(field));
                }
                '}' => anyhow::bail!("--format: a lone `}}` (write `}}}}` for a brace)"),
                c => literal.push(c),
            }
        }
        if !literal.is_empty() {
            pieces.push(Piece::Text(literal));
        }
        Ok(Template(pieces))
    }

    /// One result's line, newline included.
    pub fn line(&self, field: impl Fn(&str) -> String) -> String {
        let mut out = String::new();
        for piece in &self.0 {
            match piece {
                Piece::Text(text) => out.push_str(text),
                Piece::Field(name) => out.push_str(&field(name)),
            }
        }
        out.push('\n');
        out
    }
}

/// A field of [`SYMBOL_FIELDS`].
pub fn symbol_field(r: &SymbolRow, field: &str) -> String {
    match field {
        "path" => r.path.clone(),
        "line" => r.start_line.to_string(),
        "col" => r.start_col.to_string(),
        "end_line" => r.end_line.to_string(),
        "kind" => r.kind.to_string(),
        "name" => r.name.clone(),
        "qualified_name" => r.qualified_name.clone(),
        "language" => r.language.name().to_string(),
        "signature" => r.signature.clone(),
        _ => String::new(),
    }
}

/// When to colour what ken prints (`--color`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set (no-color.org) or `TERM` is
    /// `dumb`; `CLICOLOR_FORCE` forces it, as in other Unix tools.
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether standard output gets colour.
    pub fn for_stdout(self) -> bool {
        let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0");
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto if set("CLICOLOR_FORCE") => true,
            ColorChoice::Auto => {
                std::io::IsTerminal::is_terminal(&std::io::stdout())
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
            }
        }
    }
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Prints a command's answer: pretty JSON, or its text and then its notes on stderr.
pub fn print_answer<T: Serialize>(json: bool, answer: &T, text: impl FnOnce(&T) -> String, notes: &[String]) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(answer)?);
    } else {
        print!("{}", text(answer));
        for note in notes {
            eprintln!("note: {note}");
        }
    }
    Ok(())
}

pub fn index_summary(s: &IndexSummary) -> String {
    let mut out = String::new();
    let by_lang: Vec<String> = s.files_by_language.iter().map(|(l, n)| format!("{l} {}", thousands(*n))).collect();
    let _ = writeln!(out, "Indexed {} in {:.2}s", s.root, s.seconds);
    let _ = writeln!(out, "  files       {} ({})", thousands(s.files), if by_lang.is_empty() { "none".into() } else { by_lang.join(", ") });
    let _ = writeln!(out, "  lines       {}", thousands(s.lines));
    let _ =
        writeln!(out, "  symbols     {}   references {}   chunks {}", thousands(s.symbols), thousands(s.references), thousands(s.chunks));
    let c = &s.changes;
    let _ = writeln!(
        out,
        "  this run    {} added, {} modified, {} renamed, {} deleted, {} unchanged; mined {} lines",
        c.added,
        c.modified,
        c.renamed,
        c.deleted,
        c.unchanged,
        thousands(s.mined_lines)
    );
    if s.parse_errors > 0 {
        let _ = writeln!(
            out,
            "  parse errors {} in {} files (indexed with what was recovered)",
            thousands(s.parse_errors),
            s.files_with_parse_errors
        );
    }
    let skipped: u64 = s.skipped.values().sum();
    if skipped > 0 {
        let reasons: Vec<String> = s.skipped.iter().map(|(r, n)| format!("{r} {n}")).collect();
        let _ = writeln!(out, "  skipped     {} files: {}", skipped, reasons.join(", "));
        if s.skipped.contains_key("generated") {
            let _ = writeln!(out, "              (--include-generated indexes the generated ones)");
        }
    }
    if s.vendored_dirs_skipped > 0 {
        let _ = writeln!(out, "  vendored    {} directories left out (--include-vendored to index them)", s.vendored_dirs_skipped);
    }
    let _ = writeln!(out, "  index       {}", s.index_dir);
    let p = &s.phases;
    let _ = writeln!(
        out,
        "  time        walk {:.2}s, mine+store {:.2}s, link {:.2}s, lexical {:.2}s, embed {:.2}s{}",
        p.walk,
        p.mine_and_store,
        p.link,
        p.lexical,
        p.embed,
        if p.compact > 0.0 { format!(", compact {:.2}s", p.compact) } else { String::new() }
    );
    if let Some(e) = s.skipped_files.iter().find(|f| f.reason == ken_index::INTERNAL_ERROR) {
        let _ = writeln!(
            out,
            "  internal errors: {} files (a bug in ken, please report it), e.g. {}: {}",
            s.skipped.get(ken_index::INTERNAL_ERROR).copied().unwrap_or(0),
            e.path,
            e.detail.as_deref().unwrap_or("")
        );
    }
    if let Some(f) = s.graph.failed.first() {
        let _ = writeln!(
            out,
            "  link errors {} files left unlinked (a bug in ken, please report it), e.g. {}: {}",
            s.graph.failed.len(),
            f.path,
            f.detail
        );
    }
    out
}

/// Symbols a line each (their signature under them); `root` makes each
/// location a link.
pub fn symbol_list(rows: &[SymbolRow], root: Option<&std::path::Path>) -> String {
    let mut out = String::new();
    for r in rows {
        let at = link(&format!("{}:{}:{}", r.path, r.start_line, r.start_col), root, &r.path);
        let _ = writeln!(out, "{at}  {:<11} {}", r.kind, r.qualified_name);
        if !r.signature.is_empty() && r.signature != r.name {
            let _ = writeln!(out, "    {}", r.signature);
        }
    }
    out
}

/// Depth of each row below the module, from parent ids (rows come parents first).
fn depths(rows: &[SymbolRow]) -> Vec<usize> {
    let mut depth_of: std::collections::HashMap<i64, usize> = Default::default();
    rows.iter()
        .map(|r| {
            let d = r.parent_id.and_then(|p| depth_of.get(&p).copied()).map_or(0, |d| d + 1);
            depth_of.insert(r.id, d);
            d
        })
        .collect()
}

/// The symbol that stands for the file itself, which the outline's header
/// names already; modules declared inside it (Ruby `module`, Rust `mod`)
/// are shown.
fn is_file_module(row: &SymbolRow) -> bool {
    row.kind == SymbolKind::Module && row.parent_id.is_none()
}

pub fn outline_text(path: &str, rows: &[SymbolRow]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{path}");
    for (r, depth) in rows.iter().zip(depths(rows)) {
        if is_file_module(r) {
            continue;
        }
        let indent = "  ".repeat(depth);
        let label = if r.signature.is_empty() { r.name.as_str() } else { r.signature.as_str() };
        let _ = writeln!(out, "{indent}{:<11} {label}  [{}-{}]", r.kind, r.start_line, r.end_line);
    }
    out
}

#[derive(Serialize)]
pub struct OutlineNode {
    #[serde(flatten)]
    symbol: SymbolRow,
    children: Vec<OutlineNode>,
}

#[derive(Serialize)]
pub struct Outline {
    path: String,
    symbols: Vec<OutlineNode>,
}

pub fn outline_json(path: &str, rows: &[SymbolRow]) -> Outline {
    // Build bottom-up: rows are parents first, so walk in reverse.
    let mut children: std::collections::HashMap<i64, Vec<OutlineNode>> = Default::default();
    let mut top = Vec::new();
    let module_ids: Vec<i64> = rows.iter().filter(|r| is_file_module(r)).map(|r| r.id).collect();
    for r in rows.iter().rev() {
        if is_file_module(r) {
            continue;
        }
        let mut kids = children.remove(&r.id).unwrap_or_default();
        kids.reverse();
        let node = OutlineNode { symbol: r.clone(), children: kids };
        match r.parent_id {
            Some(p) if !module_ids.contains(&p) => children.entry(p).or_default().push(node),
            _ => top.push(node),
        }
    }
    top.reverse();
    Outline { path: path.to_string(), symbols: top }
}

/// The vector phases of `ken index`: BM25 points, embeddings, a warning.
/// What `--intents` did, in a line or two.
pub fn intent_report(r: &ken_engine::IntentReport) -> String {
    let mut out = format!(
        "  intents     {} for {} of {} functions, methods and types; {} written by {} in {:.1}s, {} from cache, {} current",
        thousands(r.intents),
        thousands(r.with_intents),
        thousands(r.symbols),
        r.generated,
        r.model,
        r.seconds,
        r.from_cache,
        r.current
    );
    if let Some(v) = &r.vectors
        && !v.unchanged
    {
        out.push_str(&format!("; {} embedded ({} from cache)", v.embedded + v.from_cache, v.from_cache));
    }
    out.push('\n');
    if r.failed > 0 {
        out.push_str(&format!("  warning     {} symbols got no intents: {}\n", r.failed, r.failures.join("; ")));
    }
    out
}

pub fn vector_report(report: &ken_engine::VectorReport) -> String {
    let mut out = String::new();
    if let Some(n) = report.seeded {
        out.push_str(&format!("  reused      {n} embeddings from the index given with --from\n"));
    }
    if let Some(e) = &report.embed {
        let p = &e.progress;
        if e.embedded + e.from_cache == 0 && p.complete() {
            out.push_str(&format!("  vectors     {} symbols, {} chunks; all embedded with {}\n", p.symbols, p.chunks, e.model));
            return out;
        }
        out.push_str(&format!(
            "  vectors     {} symbols, {} chunks; embedded {} ({} from cache) with {} in {:.1}s",
            p.symbols,
            p.chunks,
            e.embedded + e.from_cache,
            e.from_cache,
            e.model,
            e.seconds
        ));
        if e.seconds > 0.0 && e.tokens > 0 {
            out.push_str(&format!(", {:.0} tokens/s", e.tokens as f64 / e.seconds));
        }
        out.push('\n');
    } else if report.sync.files_synced > 0 {
        out.push_str(&format!("  lexical     {} symbols and chunks indexed for BM25 (no embeddings)\n", report.sync.points_written));
    }
    if let Some(w) = &report.warning {
        out.push_str(&format!("  warning     {w}\n"));
    }
    out
}
