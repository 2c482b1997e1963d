//! A bug report read as evidence, not a bag of words: traceback frames,
//! file paths, names spelled as code, quoted messages and the prose. Each
//! kind feeds the lane that fits it (`locate`). Nothing is cut: a report of
//! any length keeps every frame and name. Pure: no IO.

use crate::lexical;
use regex::Regex;
use std::sync::LazyLock;

/// What a report says about where the bug is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// Stack frames, the one nearest the error first (`depth` 0).
    pub frames: Vec<Frame>,
    /// File paths and names mentioned outside frames (`a/b.py`, `b.py`),
    /// with the line when one is given.
    pub paths: Vec<(String, Option<u32>)>,
    /// Names spelled as code: `snake_case`, `CamelCase`, `a.b`, `a::b`,
    /// `call()`, anything in backticks, and what code blocks call.
    pub names: Vec<String>,
    /// The names found only in example code (a fenced block tagged with a
    /// programming language): the reporter's use of the API, which names
    /// its entry points more than the code at fault.
    pub example_names: Vec<String>,
    /// Error messages and quoted text, as their words, matched as phrases.
    pub phrases: Vec<Vec<String>>,
    /// Options and keys the report names that code spells as a string
    /// literal: command-line options (`--show-capture`, also in a command
    /// line in a code block), and, outside code blocks, keys in inline
    /// code or written as snake_case (`console_output_style=times`,
    /// `:no-index-entry:`, `html_theme`). The file that registers or reads
    /// the option is where its behaviour lives.
    pub keys: Vec<String>,
    /// The whole report (BM25 and the dense lane read all of it).
    pub text: String,
}

/// One stack frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// As written, with `\` as `/` and no `file://`.
    pub path: String,
    pub line: Option<u32>,
    /// The function, without its module or class when the trace gives them.
    pub function: Option<String>,
    /// 0 for the frame where the error was raised, counting outwards.
    pub depth: u32,
}

/// Extensions of source, documents and configuration a path can end with.
const EXTENSIONS: &str = "py|pyi|pyx|js|jsx|mjs|cjs|ts|tsx|mts|cts|vue|svelte|rs|go|java|kt|kts|scala|rb|php|c|h|cc|cpp|cxx|hpp|hh|cs|swift|m|mm|lua|sh|bash|zsh|ps1|sql|toml|yaml|yml|json|ini|cfg|md|rst|txt|html|css|scss|proto|tf|gradle|xml";

macro_rules! regex {
    ($name:ident, $pattern:expr) => {
        static $name: LazyLock<Regex> = LazyLock::new(|| Regex::new($pattern).expect("a valid pattern"));
    };
}

// Python: `File "x.py", line 3, in f`, innermost last.
regex!(PYTHON_FRAME, r#"File "([^"\n]+)", line (\d+)(?:, in ([\w<>.]+))?"#);
// JavaScript (V8) and Java: `at f (x.js:3:7)`, `at x.js:3:7`,
// `at pkg.Class.method(Class.java:3)`, innermost first.
regex!(AT_FRAME, r"(?m)^\s*at (?:async )?(?:new )?(?:([^\s()]+?)(?: \[as [^\]]+\])? ?\()?(?:file://)?([^\s()]+?):(\d+)(?::\d+)?\)?\s*$");
// Rust: `thread 'main' panicked at src/x.rs:3:7:` (and the older
// `panicked at 'msg', src/x.rs:3:7`); backtraces: `  7: a::b::f` then
// `at ./src/x.rs:3:7` (read by AT_FRAME, the function from the line before).
regex!(RUST_PANIC, r"panicked at (?:'(?:[^'\\]|\\.)*', )?([^\s:']+\.rs):(\d+)(?::\d+)?");
regex!(RUST_BACKTRACE_FN, r"(?m)^\s*\d+:\s+(?:0x[0-9a-f]+ - )?(\S+)\s*$");
// Go: `pkg.(*T).Method(...)` then `\t/path/x.go:3 +0x1d`, innermost first.
regex!(GO_FRAME, r"(?m)^([\w./*()-]+)\([^\n]*\)\n\s+(\S+\.go):(\d+)");
// A path with a line: `src/x.rs:12`, `x.py:12:3`.
regex!(PATH_LINE, &format!(r"(?:^|[\s`'(\[])((?:[\w.-]+/)*[\w.-]+\.(?:{EXTENSIONS})):(\d+)"));
// A path or file name: `a/b.py`, `b.py`, a repository link's path.
regex!(PATH, &format!(r"(?:^|[\s`'(\[/])((?:[\w.-]+/)*[\w-][\w.-]*\.(?:{EXTENSIONS}))(?:$|[\s`'),:;.\]#?])"));
regex!(BLOB_LINK, r"github\.com/[\w.-]+/[\w.-]+/(?:blob|tree)/[^/\s]+/(\S+?)(?:#L(\d+)\S*)?(?:[\s)\]>]|$)");
regex!(URL, r"https?://\S+");
regex!(BACKTICKED, r"`([^`\n]+)`");
regex!(FENCE, r"(?ms)^\s*```([^\n]*)\n(.*?)^\s*```");
regex!(CALL, r"([A-Za-z_$][\w$]*)\(");
// `--show-capture`, not inside a word or after another dash.
regex!(LONG_OPTION, r"(?:^|[^\w-])(--[A-Za-z][\w-]*)");
regex!(KEY, r"^[A-Za-z_][\w.-]*\w$");
regex!(SNAKE_CASE, r"\b([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)\b");
regex!(MEMBER, r"\.([A-Za-z_$][\w$]*)");
// `ValueError: message`, `TypeError: x is not a function`, `error[E0308]: …`.
regex!(ERROR_LINE, r"(?m)^\s*(?:[\w.]*(?:Error|Exception|Warning|Exit|Interrupt)|error(?:\[\w+\])?|panic|fatal error):\s+(\S.{5,300})$");
regex!(QUOTED, r#""([^"\n]{8,200})"|'([^'\n]{8,200})'"#);

/// Reads a report. Every part of the text is kept; the kinds overlap
/// (a frame's function is also a name).
pub fn read(text: &str) -> Report {
    let mut report = Report { text: text.to_string(), ..Report::default() };
    report.frames = frames(text);
    let framed: Vec<String> = report.frames.iter().map(|f| f.path.clone()).collect();

    let add_path = |path: &str, line: Option<u32>, paths: &mut Vec<(String, Option<u32>)>| {
        let path = path.trim_start_matches("./").trim_start_matches("a/").trim_start_matches("b/");
        if path.is_empty() || framed.iter().any(|f| f.ends_with(path)) {
            return;
        }
        match paths.iter_mut().find(|(p, _)| p == path) {
            Some((_, known)) => *known = known.or(line),
            None => paths.push((path.to_string(), line)),
        }
    };
    let mut paths = Vec::new();
    for c in BLOB_LINK.captures_iter(text) {
        add_path(&c[1], c.get(2).and_then(|m| m.as_str().parse().ok()), &mut paths);
    }
    let without_urls = URL.replace_all(text, " ");
    // What the reporter wrote themselves, without code blocks of any kind
    // (examples, logs, configuration): where keys are read.
    let own_words = FENCE.replace_all(&without_urls, " ").into_owned();
    for c in PATH_LINE.captures_iter(&without_urls) {
        add_path(&c[1], c[2].parse().ok(), &mut paths);
    }
    for c in PATH.captures_iter(&without_urls) {
        if !looks_like_version_or_host(&c[1]) {
            add_path(&c[1], None, &mut paths);
        }
    }
    report.paths = paths;

    let mut names: Vec<String> = Vec::new();
    let add_name = |name: &str, names: &mut Vec<String>| {
        let name = name.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'));
        let plain = name.chars().all(|c| c.is_ascii_digit() || c == '.' || c == '_');
        // `cli.js` is a path (read above), not a name.
        if name.len() >= 2 && !plain && !has_extension(name) && !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    };
    for frame in &report.frames {
        if let Some(f) = &frame.function {
            add_name(f, &mut names);
        }
    }
    let mut example_code = String::new();
    let prose = FENCE.replace_all(&without_urls, |c: &regex::Captures| {
        if is_example(&c[1]) {
            example_code.push_str(&c[2]);
            example_code.push('\n');
            " ".to_string()
        } else {
            c[0].to_string()
        }
    });
    let without_urls = prose.as_ref();
    for c in BACKTICKED.captures_iter(without_urls) {
        let span = &c[1];
        let words = lexical::words(span);
        if words.len() == 1 {
            add_name(words[0].text, &mut names);
        } else {
            code_names(span, &mut |n| add_name(n, &mut names));
        }
    }
    for c in FENCE.captures_iter(without_urls) {
        code_names(&c[2], &mut |n| add_name(n, &mut names));
    }
    for word in lexical::words(without_urls) {
        if spelled_as_code(word.text) && !looks_like_version_or_host(word.text) {
            add_name(word.text, &mut names);
        }
    }
    for c in CALL.captures_iter(without_urls) {
        add_name(&c[1], &mut names);
    }
    // A link to an error's page ends in its code (`svelte.dev/e/constant_assignment`),
    // which is the name of the function that raises it.
    for url in URL.find_iter(text) {
        if let Some(code) = url_code(url.as_str()) {
            add_name(code, &mut names);
        }
    }
    let outside_examples = names.len();
    code_names(&example_code, &mut |n| add_name(n, &mut names));
    report.example_names = names[outside_examples..].to_vec();
    report.names = names;

    let mut phrases: Vec<Vec<String>> = Vec::new();
    let mut add_phrase = |text: &str| {
        let words: Vec<String> =
            lexical::words(text).iter().map(|w| w.text.to_lowercase()).filter(|w| w.chars().any(|c| c.is_alphabetic())).take(12).collect();
        if words.len() >= 2 && !phrases.contains(&words) {
            phrases.push(words);
        }
    };
    for c in ERROR_LINE.captures_iter(text) {
        add_phrase(&c[1]);
    }
    for c in QUOTED.captures_iter(without_urls) {
        let quoted = c.get(1).or(c.get(2)).map_or("", |m| m.as_str());
        if quoted.contains(' ') {
            add_phrase(quoted);
        }
    }
    report.phrases = phrases;
    report.keys = keys(text, &own_words);
    report
}

/// The report's options and keys (see [`Report::keys`]), in order of appearance.
fn keys(text: &str, prose: &str) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    let mut add = |key: &str| {
        if !keys.iter().any(|k| k == key) {
            keys.push(key.to_string());
        }
    };
    for c in LONG_OPTION.captures_iter(text) {
        add(&c[1]);
    }
    let letters = |key: &str| key.chars().filter(|c| c.is_ascii_alphanumeric()).count();
    for c in BACKTICKED.captures_iter(prose) {
        for piece in c[1].split_whitespace() {
            let piece = piece.split('=').next().unwrap_or_default().trim_matches([':', ',', ';', '(', ')', '[', ']', '"', '\'']);
            if KEY.is_match(piece) && piece.contains(['_', '.', '-']) && !has_extension(piece) && letters(piece) >= 3 {
                add(piece);
            }
        }
    }
    for c in SNAKE_CASE.captures_iter(prose) {
        if letters(&c[1]) >= 3 {
            add(&c[1]);
        }
    }
    keys
}

/// Frames of every trace in the text, nearest the error first.
fn frames(text: &str) -> Vec<Frame> {
    let mut out: Vec<Frame> = Vec::new();
    // Python prints the innermost frame last: reverse each traceback.
    let mut python: Vec<Frame> = PYTHON_FRAME
        .captures_iter(text)
        .map(|c| Frame {
            path: clean_path(&c[1]),
            line: c[2].parse().ok(),
            function: c.get(3).map(|m| m.as_str().to_string()).filter(|f| !f.starts_with('<')),
            depth: 0,
        })
        .collect();
    python.reverse();
    out.extend(python);
    for c in RUST_PANIC.captures_iter(text) {
        out.push(Frame { path: clean_path(&c[1]), line: c[2].parse().ok(), function: None, depth: 0 });
    }
    for c in AT_FRAME.captures_iter(text) {
        let whole = c.get(0).expect("the match");
        let path = clean_path(&c[2]);
        if !has_extension(&path) {
            continue;
        }
        // Rust backtraces name the function on the line before `at`.
        let function = match c.get(1) {
            Some(f) => Some(f.as_str().to_string()),
            None => {
                let before = &text[..whole.start()];
                let previous = before.trim_end_matches('\n').rsplit('\n').next().unwrap_or("");
                RUST_BACKTRACE_FN.captures(previous).map(|f| f[1].to_string())
            }
        };
        out.push(Frame { path, line: c[3].parse().ok(), function: function.map(|f| last_segment(&f)), depth: 0 });
    }
    for c in GO_FRAME.captures_iter(text) {
        out.push(Frame { path: clean_path(&c[2]), line: c[3].parse().ok(), function: Some(last_segment(&c[1])), depth: 0 });
    }
    // The same frame printed twice (a chained exception, a panic and its
    // backtrace) keeps its nearest place and any function either names.
    let mut kept: Vec<Frame> = Vec::new();
    for frame in out {
        match kept.iter_mut().find(|k| k.path == frame.path && k.line == frame.line) {
            Some(known) => known.function = known.function.take().or(frame.function),
            None => kept.push(frame),
        }
    }
    for (depth, frame) in kept.iter_mut().enumerate() {
        frame.depth = depth as u32;
    }
    kept
}

/// The names a piece of code calls or reaches: `a.b(c)` names `a`, `b`;
/// identifiers spelled as code name themselves.
fn code_names(code: &str, add: &mut impl FnMut(&str)) {
    for c in CALL.captures_iter(code) {
        add(&c[1]);
    }
    for c in MEMBER.captures_iter(code) {
        add(&c[1]);
    }
    for word in lexical::words(code) {
        if spelled_as_code(word.text) {
            add(word.text);
        }
    }
}

/// A fence's info string (```` ```rust ````) says it holds example code,
/// not a log, a shell session or output.
fn is_example(info: &str) -> bool {
    const NOT_CODE: &[&str] = &[
        "",
        "text",
        "txt",
        "plain",
        "plaintext",
        "log",
        "logs",
        "console",
        "shell",
        "sh",
        "bash",
        "zsh",
        "fish",
        "powershell",
        "pwsh",
        "ps1",
        "cmd",
        "bat",
        "sh-session",
        "shell-session",
        "terminal",
        "output",
        "stdout",
        "stderr",
        "diff",
        "patch",
        "pytb",
        "traceback",
        "pycon",
        "json",
        "yaml",
        "yml",
        "toml",
        "ini",
        "xml",
        "csv",
        "html",
    ];
    let tag = info.trim().trim_start_matches('{').split([' ', ',', '}', '=']).next().unwrap_or("").to_ascii_lowercase();
    !NOT_CODE.contains(&tag.as_str())
}

/// `snake_case`, `camelCase`, `PascalCase` with an inner capital, `a.b`, `a::b`.
fn spelled_as_code(word: &str) -> bool {
    let inner_upper = word.chars().skip(1).any(|c| c.is_uppercase()) && word.chars().any(|c| c.is_lowercase());
    (word.contains('_') && word.chars().any(|c| c.is_alphabetic())) || word.contains('.') || word.contains("::") || inner_upper
}

/// A URL's last path segment when it is a snake_case code
/// (`https://svelte.dev/e/element_invalid_self_closing_tag`): words joined
/// by `_`, so a hash, a page or a file is not taken.
fn url_code(url: &str) -> Option<&str> {
    static CODE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+$").expect("a valid pattern"));
    let path = url.split(['?', '#']).next()?.trim_end_matches(|c: char| !c.is_alphanumeric());
    let (_, last) = path.split_once("://")?.1.rsplit_once('/')?;
    CODE.is_match(last).then_some(last)
}

/// `1.2.3`, `v0.27`, `example.com`, `e.g`: dotted, but not code.
fn looks_like_version_or_host(word: &str) -> bool {
    let w = word.trim_start_matches('v');
    w.split('.').all(|p| p.chars().all(|c| c.is_ascii_digit()))
        || [".com", ".org", ".io", ".net", ".dev"].iter().any(|tld| word.ends_with(tld))
        || matches!(word.to_ascii_lowercase().as_str(), "e.g" | "i.e" | "etc" | "vs")
}

fn clean_path(path: &str) -> String {
    path.trim().trim_start_matches("file://").replace('\\', "/").trim_start_matches("./").to_string()
}

fn has_extension(path: &str) -> bool {
    static EXT: LazyLock<Regex> = LazyLock::new(|| Regex::new(&format!(r"\.(?:{EXTENSIONS})$")).expect("a valid pattern"));
    EXT.is_match(path)
}

/// `a::b::f`, `pkg.(*T).f`, `Class.method` → the last name.
fn last_segment(qualified: &str) -> String {
    let base = qualified.split('<').next().unwrap_or(qualified);
    base.rsplit(['.', ':']).find(|s| !s.is_empty()).unwrap_or(base).trim_matches(|c| c == '(' || c == ')' || c == '*').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{Expect, expect};

    fn check(text: &str, expect: Expect) {
        let r = read(text);
        let mut out = String::new();
        for f in &r.frames {
            out += &format!("frame {} {}:{} {}\n", f.depth, f.path, f.line.unwrap_or(0), f.function.as_deref().unwrap_or("-"));
        }
        for (p, line) in &r.paths {
            out += &format!("path {p}{}\n", line.map(|l| format!(":{l}")).unwrap_or_default());
        }
        out += &format!("names {}\n", r.names.join(" "));
        if !r.example_names.is_empty() {
            out += &format!("of which in examples {}\n", r.example_names.join(" "));
        }
        for p in &r.phrases {
            out += &format!("phrase {}\n", p.join(" "));
        }
        if !r.keys.is_empty() {
            out += &format!("keys {}\n", r.keys.join(" "));
        }
        expect.assert_eq(&out);
    }

    #[test]
    fn reads_python_tracebacks() {
        check(
            r#"sqlmigrate crashes on a squashed migration
Traceback (most recent call last):
  File "/usr/lib/python3.12/site-packages/django/core/management/base.py", line 413, in run_from_argv
    self.execute(*args, **cmd_options)
  File "/usr/lib/python3.12/site-packages/django/core/management/commands/sqlmigrate.py", line 54, in handle
    plan = [(loader.graph.nodes[target], options["backwards"])]
KeyError: ('app', '0001_squashed_0002')
"#,
            expect![[r#"
                frame 0 /usr/lib/python3.12/site-packages/django/core/management/commands/sqlmigrate.py:54 handle
                frame 1 /usr/lib/python3.12/site-packages/django/core/management/base.py:413 run_from_argv
                names handle run_from_argv self.execute cmd_options loader.graph.nodes KeyError 0001_squashed_0002 execute
                phrase app 0001_squashed_0002
                keys run_from_argv cmd_options
            "#]],
        );
    }

    #[test]
    fn reads_other_traces() {
        check(
            "TypeError: Cannot read properties of undefined (reading 'type')\n    at Linter.verify (/app/node_modules/eslint/lib/linter/linter.js:1320:28)\n    at /app/lib/cli.js:10:5\n",
            expect![[r#"
                frame 0 /app/node_modules/eslint/lib/linter/linter.js:1320 verify
                frame 1 /app/lib/cli.js:10 -
                names verify TypeError Linter.verify node_modules
                phrase cannot read properties of undefined reading type
                keys node_modules
            "#]],
        );
        check(
            "thread 'main' panicked at tokio/src/runtime/park.rs:283:29:\ncalled `Result::unwrap()` on an `Err` value\nstack backtrace:\n   3: tokio::runtime::park::CachedParkThread::block_on\n             at ./tokio/src/runtime/park.rs:283:29\n",
            expect![[r#"
                frame 0 tokio/src/runtime/park.rs:283 block_on
                names block_on Result::unwrap Err tokio::runtime::park::CachedParkThread::block_on unwrap
                keys block_on
            "#]],
        );
        check(
            "panic: runtime error\n\ngoroutine 1 [running]:\nmain.(*Server).Serve(0xc0000)\n\t/home/u/app/server.go:42 +0x1d\n",
            expect![[r#"
                frame 0 /home/u/app/server.go:42 Serve
                names Serve
                phrase runtime error
            "#]],
        );
    }

    #[test]
    fn reads_paths_names_and_phrases() {
        check(
            "The `Client.send` method in httpx/_client.py ignores `timeout=None` (see https://github.com/encode/httpx/blob/master/httpx/_config.py#L42). Calling client.get(url) raises \"the read operation timed out\" after src/lib.rs:12.\n```python\nclient = httpx.Client()\nclient.stream(\"GET\", url)\n```",
            expect![[r#"
                path httpx/_config.py:42
                path src/lib.rs:12
                path httpx/_client.py
                names Client.send client.get get Client stream httpx.Client client.stream
                of which in examples Client stream httpx.Client client.stream
                phrase the read operation timed out
                keys Client.send
            "#]],
        );
        // A log in a fence is evidence like prose; code in one is an example.
        check(
            "`pwsh` is not detected\n```console\n$ COMPLETE=pwsh my_app\nerror: unknown_shell pwsh\n```\n```rust\nCompleteEnv::with_factory(Cli::command).complete();\n```",
            expect![[r#"
                names pwsh my_app unknown_shell with_factory complete CompleteEnv::with_factory Cli::command
                of which in examples with_factory complete CompleteEnv::with_factory Cli::command
                phrase unknown_shell pwsh
            "#]],
        );
        // An error page's code is a name; a page, a hash or a file is not.
        check(
            "Cannot assign to derived state\nhttps://svelte.dev/e/constant_assignment\nhttps://svelte.dev/playground/hello-world?version=5.19.10#H4sIAAAA_x\nhttps://example.com/docs/read_me.html",
            expect![[r#"
                names constant_assignment
            "#]],
        );
    }

    #[test]
    fn reads_options_and_keys() {
        // Options anywhere, a command line in a fence included; keys in
        // inline code (left of `=`, an option's colons trimmed) and
        // snake_case in prose; not the names of the reporter's own code.
        check(
            "`--show-capture` ignored with `console_output_style=times` and `:no-index-entry:`\nSee html_theme.\n```shell\npytest --tb=line -q\n```\n```python\ndef test_fail():\n    assert my_helper()\n```",
            expect![[r#"
                names console_output_style html_theme test_fail my_helper
                of which in examples test_fail my_helper
                keys --show-capture --tb console_output_style no-index-entry html_theme
            "#]],
        );
    }
}
