//! End-to-end tests of the `ken` binary: fixtures and a real PyPI package.

mod support;

use expect_test::{Expect, expect};
use support::{Repo, json, ken_command, ken_in, pypi_corpus, stdout};

/// The parts of an index summary that do not depend on timing or paths.
fn summary_digest(v: &serde_json::Value) -> String {
    let mut v = v.clone();
    let obj = v.as_object_mut().unwrap();
    for volatile in ["root", "index_dir", "seconds", "phases", "vectors"] {
        obj.remove(volatile);
    }
    if let Some(graph) = obj.get_mut("graph").and_then(|g| g.as_object_mut()) {
        graph.remove("seconds");
    }
    serde_json::to_string_pretty(&sorted(v)).unwrap()
}

/// Keys in alphabetical order, whatever order the struct declares them in.
fn sorted(v: serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(map) => {
            let mut entries: Vec<_> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            serde_json::Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        serde_json::Value::Array(items) => serde_json::Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

fn check_index(repo: &Repo, args: &[&str], expect: Expect) {
    let mut all = vec!["index", "--json"];
    all.extend_from_slice(args);
    expect.assert_eq(&summary_digest(&json(&repo.ken(&all))));
}

const SMALL_REPO: &str = r#"
//- app/models.py
class Model:
    """A model."""
    def save(self):
        return True

class User(Model):
    def save(self):
        return super().save()
//- app/util.py
def helper():
    return 1
//- src/lib.rs
/// A point.
pub struct Point { x: i32 }
impl Point {
    pub fn new() -> Self { Point { x: 0 } }
}
//- README.md
Not code.
"#;

#[test]
fn incremental_index_processes_only_what_changed() {
    let repo = Repo::new(SMALL_REPO);
    check_index(
        &repo,
        &[],
        expect![[r#"
            {
              "changes": {
                "added": 4,
                "deleted": 0,
                "modified": 0,
                "renamed": 0,
                "unchanged": 0
              },
              "chunks": 4,
              "compacted": true,
              "files": 4,
              "files_by_language": {
                "markdown": 1,
                "python": 2,
                "rust": 1
              },
              "files_with_parse_errors": 0,
              "graph": {
                "analytics": true,
                "by_resolution": {
                  "exact": 13,
                  "unresolved": 1
                },
                "edges": 14,
                "files_linked": 4,
                "resolved": 13
              },
              "lines": 16,
              "mined_files": 4,
              "mined_lines": 16,
              "parse_errors": 0,
              "references": 4,
              "skipped": {},
              "skipped_files": [],
              "symbols": 12,
              "unsupported_files": 0,
              "vendored_dirs_skipped": 0
            }"#]],
    );
    // No change: nothing mined.
    check_index(
        &repo,
        &[],
        expect![[r#"
            {
              "changes": {
                "added": 0,
                "deleted": 0,
                "modified": 0,
                "renamed": 0,
                "unchanged": 4
              },
              "chunks": 4,
              "compacted": false,
              "files": 4,
              "files_by_language": {
                "markdown": 1,
                "python": 2,
                "rust": 1
              },
              "files_with_parse_errors": 0,
              "graph": {
                "analytics": false,
                "by_resolution": {
                  "exact": 13,
                  "unresolved": 1
                },
                "edges": 14,
                "files_linked": 0,
                "resolved": 13
              },
              "lines": 16,
              "mined_files": 0,
              "mined_lines": 0,
              "parse_errors": 0,
              "references": 4,
              "skipped": {},
              "skipped_files": [],
              "symbols": 12,
              "unsupported_files": 0,
              "vendored_dirs_skipped": 0
            }"#]],
    );
    // Edit one, add one, delete one, rename one.
    repo.write("app/util.py", "def helper():\n    return 2\n\ndef other():\n    pass\n");
    repo.write("app/new.py", "class New:\n    pass\n");
    std::fs::remove_file(repo.path().join("src/lib.rs")).unwrap();
    std::fs::rename(repo.path().join("app/models.py"), repo.path().join("app/entities.py")).unwrap();
    check_index(
        &repo,
        &[],
        expect![[r#"
            {
              "changes": {
                "added": 1,
                "deleted": 1,
                "modified": 1,
                "renamed": 1,
                "unchanged": 1
              },
              "chunks": 4,
              "compacted": true,
              "files": 4,
              "files_by_language": {
                "markdown": 1,
                "python": 3
              },
              "files_with_parse_errors": 0,
              "graph": {
                "analytics": true,
                "by_resolution": {
                  "exact": 10,
                  "unresolved": 1
                },
                "edges": 11,
                "files_linked": 3,
                "resolved": 10
              },
              "lines": 16,
              "mined_files": 2,
              "mined_lines": 7,
              "parse_errors": 0,
              "references": 3,
              "skipped": {},
              "skipped_files": [],
              "symbols": 11,
              "unsupported_files": 0,
              "vendored_dirs_skipped": 0
            }"#]],
    );
    // The renamed file's symbols follow its new module path.
    let found = stdout(&repo.ken(&["symbols", "User.save"]));
    expect![[r#"
        app/entities.py:7:5  method      app.entities.User.save
            def save(self)
    "#]]
    .assert_eq(&found);
}

/// The database is rewritten densely once the runs since the last rewrite
/// have changed a quarter of the files: each line is one run's edit, then
/// whether that run compacted.
#[test]
fn the_index_is_compacted_after_a_quarter_of_its_files_changed() {
    let fixture: String = (0..10).map(|i| format!("//- m{i}.py\ndef f{i}():\n    return {i}\n")).collect();
    let repo = Repo::new(&fixture);
    let mut log = String::new();
    let mut run = |edit: &str| {
        let summary = json(&repo.ken(&["index", "--no-embed", "--json"]));
        log.push_str(&format!("{edit:<24} compacted {}\n", summary["compacted"]));
    };
    run("first run");
    run("no change");
    for i in 0..4 {
        repo.write(&format!("m{i}.py"), format!("def f{i}():\n    return -{i}\n"));
        run(&format!("m{i}.py edited"));
    }
    expect![[r#"
        first run                compacted true
        no change                compacted false
        m0.py edited             compacted false
        m1.py edited             compacted false
        m2.py edited             compacted true
        m3.py edited             compacted false
    "#]]
    .assert_eq(&log);
    // The compacted index answers as before.
    expect![[r#"
        m3.py:1:1  function    m3.f3
            def f3()
    "#]]
    .assert_eq(&stdout(&repo.ken(&["symbols", "f3"])));
}

#[test]
fn bad_files_are_skipped_and_counted() {
    let repo = Repo::new(
        r#"
//- ok.py
def fine():
    pass
//- broken.py
def broken(:
    pass

class StillFound:
    pass
//- .hidden/secret.py
def hidden(): pass
//- node_modules/dep/index.js
function vendored() {}
//- ignored/skip.py
def ignored(): pass
//- .gitignore
ignored/
//- .kenignore
*.skip.py
//- also.skip.py
def kenignored(): pass
//- dist/bundle.min.js
function a(){}
//- tests/certs/server.pem
-----BEGIN CERTIFICATE-----
MIIDazCCAlOgAwIBAgIUJLeRrQKzfXr9tQm1GcYvaHZ0tdAwDQYJKoZIhvcNAQEL
-----END CERTIFICATE-----
"#,
    );
    repo.write("binary.py", b"def f():\n\x00\x01\x02 pass\n");
    repo.write("latin1.py", b"# caf\xe9\ndef g(): pass\n");
    repo.write("huge.py", format!("X = '{}'\n", "a".repeat(5000)));
    repo.write("app.min.js", "function a(){}\n");
    std::os::unix::fs::symlink(repo.path(), repo.path().join("loop")).unwrap();
    std::os::unix::fs::symlink(repo.path().join("missing.py"), repo.path().join("dangling.py")).unwrap();
    check_index(
        &repo,
        &["--max-file-size", "4096"],
        expect![[r#"
            {
              "changes": {
                "added": 2,
                "deleted": 0,
                "modified": 0,
                "renamed": 0,
                "unchanged": 0
              },
              "chunks": 2,
              "compacted": true,
              "files": 2,
              "files_by_language": {
                "python": 2
              },
              "files_with_parse_errors": 1,
              "graph": {
                "analytics": true,
                "by_resolution": {
                  "exact": 3
                },
                "edges": 3,
                "files_linked": 2,
                "resolved": 3
              },
              "lines": 7,
              "mined_files": 2,
              "mined_lines": 7,
              "parse_errors": 1,
              "references": 0,
              "skipped": {
                "binary": 1,
                "generated": 1,
                "keys": 1,
                "non_utf8": 1,
                "symlink_loop": 1,
                "too_large": 1,
                "unreadable": 1
              },
              "skipped_files": [
                {
                  "path": "app.min.js",
                  "reason": "generated"
                },
                {
                  "path": "binary.py",
                  "reason": "binary"
                },
                {
                  "path": "dangling.py",
                  "reason": "unreadable"
                },
                {
                  "path": "huge.py",
                  "reason": "too_large"
                },
                {
                  "path": "latin1.py",
                  "reason": "non_utf8"
                },
                {
                  "path": "loop",
                  "reason": "symlink_loop"
                },
                {
                  "path": "tests/certs/server.pem",
                  "reason": "keys"
                }
              ],
              "symbols": 5,
              "unsupported_files": 0,
              "vendored_dirs_skipped": 2
            }"#]],
    );
    let outline = stdout(&repo.ken(&["outline", "broken.py"]));
    expect![[r#"
        broken.py
          function    def broken(  [1-2]
          class       class StillFound  [4-5]
    "#]]
    .assert_eq(&outline);
}

/// Generated code nests without end: long expressions, deep literals and
/// blocks in every language. No file can overflow the stack or crash a run.
/// Generated files are left out unless asked for; the index remembers the
/// ask until `--rebuild`.
#[test]
fn generated_files_are_indexed_on_request_until_a_rebuild() {
    let repo = Repo::new(
        r#"
//- src/lib.rs
pub fn handwritten() {}
//- src/messages.rs
// @generated by prost-build
pub struct Message {}
//- web/app.min.js
function a(){}
"#,
    );
    let step = |args: &[&str]| {
        let mut all = vec!["index", "--json"];
        all.extend_from_slice(args);
        let v = json(&repo.ken(&all));
        format!("{:<22} files {} skipped {}\n", args.join(" "), v["files_by_language"], v["skipped"])
    };
    let runs = [step(&[]), step(&["--include-generated"]), step(&[]), step(&["--rebuild"])].concat();
    expect![[r#"
                               files {"rust":1} skipped {"generated":2}
        --include-generated    files {"javascript":1,"rust":2} skipped {}
                               files {"javascript":1,"rust":2} skipped {}
        --rebuild              files {"rust":1} skipped {"generated":2}
    "#]]
    .assert_eq(&runs);
    let text = stdout(&repo.ken(&["index", "--rebuild"]));
    assert!(text.contains("generated 2") && text.contains("--include-generated"), "{text}");
}

#[test]
fn pathological_files_index_cleanly() {
    let repo = Repo::new("");
    let n = 20_000;
    let terms: Vec<String> = (0..n).map(|i| format!("v{i}")).collect();
    repo.write("gen/long_expr.py", format!("x = {}\n", terms.join(" + ")));
    repo.write("gen/types.py", format!("def f(x: {}Pool{}) -> None:\n    pass\n", "Optional[".repeat(3000), "]".repeat(3000)));
    // Short lines, or they would be skipped as minified.
    repo.write("gen/nested.js", format!("const a = {}{};\n", "[\n".repeat(5000), "]\n".repeat(5000)));
    repo.write("gen/nested.ts", format!("const o = {}1{};\n", "{a:\n".repeat(3000), "}\n".repeat(3000)));
    repo.write(
        "gen/nested.rs",
        format!("use a::{}b{};\nfn f() -> i32 {{ {}1{} }}\n", "{c::".repeat(3000), "}".repeat(3000), "(".repeat(5000), ")".repeat(5000)),
    );
    repo.write("gen/Concat.java", format!("class Concat {{ String s = {}; }}\n", vec!["\"a\""; n].join(" + ")));
    repo.write("gen/nested.c", format!("int f(void) {{ {} return 0; {} }}\n", "{".repeat(5000), "}".repeat(5000)));
    repo.write("gen/nested.go", format!("package gen\nvar x = {}1{}\n", "(".repeat(5000), ")".repeat(5000)));
    repo.write("gen/nested.rb", format!("x = {}1{}\n", "[".repeat(5000), "]".repeat(5000)));
    repo.write("gen/nested.php", format!("<?php\n$x = {}1{};\n", "[".repeat(5000), "]".repeat(5000)));
    repo.write("gen/Nested.cs", format!("class N {{ int x = {}1{}; }}\n", "(".repeat(5000), ")".repeat(5000)));
    repo.write("gen/nested.cpp", format!("int x = {}1{};\n", "(".repeat(5000), ")".repeat(5000)));
    let v = json(&repo.ken(&["index", "--json"]));
    let digest =
        format!("files {} skipped {} link failures {}\n", v["files"], v["skipped"], v["graph"]["failed"].as_array().map_or(0, Vec::len));
    expect![[r#"
        files 12 skipped {} link failures 0
    "#]]
    .assert_eq(&digest);
    stdout(&repo.ken(&["outline", "gen/long_expr.py"]));
    stdout(&repo.ken(&["search", "v19999", "-k", "1"]));
}

/// Regression: two of PyPI's most downloaded packages crashed `ken index`
/// (a signature cut with `…` was sliced inside the character).
#[test]
fn packages_that_crashed_index_cleanly() {
    let mut out = String::new();
    for (name, version) in [("langchain-core", "1.7.2"), ("fastapi", "0.135.3")] {
        let corpus = pypi_corpus(name, version);
        let index_dir = tempfile::tempdir().unwrap();
        let idx = index_dir.path().to_str().unwrap();
        let v = json(&ken_in(&corpus, &["--index-dir", idx, "index", ".", "--json"]));
        out += &format!(
            "{name} {version}: files {} symbols {} skipped {} link failures {}\n",
            v["files"],
            v["symbols"],
            v["skipped"],
            v["graph"]["failed"].as_array().map_or(0, Vec::len)
        );
    }
    expect![[r#"
        langchain-core 1.7.2: files 184 symbols 3640 skipped {} link failures 0
        fastapi 0.135.3: files 49 symbols 737 skipped {} link failures 0
    "#]]
    .assert_eq(&out);
}

#[test]
fn symbols_are_ranked_exact_first() {
    let repo = Repo::new(
        r#"
//- pkg/a.py
def parse(): pass
def parse_args(): pass
def reparse(): pass
class Parser:
    def parse(self): pass
//- pkg/b.ts
export function parseUrl(u: string) { return u; }
"#,
    );
    stdout(&repo.ken(&["index", "-q"]));
    expect![[r#"
        pkg/a.py:1:1  function    pkg.a.parse
            def parse()
        pkg/a.py:5:5  method      pkg.a.Parser.parse
            def parse(self)
        pkg/a.py:4:1  class       pkg.a.Parser
            class Parser
        pkg/b.ts:1:1  function    pkg/b.parseUrl
            export function parseUrl(u: string)
        pkg/a.py:2:1  function    pkg.a.parse_args
            def parse_args()
        pkg/a.py:3:1  function    pkg.a.reparse
            def reparse()
    "#]]
    .assert_eq(&stdout(&repo.ken(&["symbols", "PARSE"])));
    expect![[r#"
        pkg/a.py:5:5  method      pkg.a.Parser.parse
            def parse(self)
    "#]]
    .assert_eq(&stdout(&repo.ken(&["symbols", "parse", "--kind", "method", "--lang", "py"])));
    let mut rows = json(&repo.ken(&["symbols", "Parser.parse", "--json"]));
    // Ids depend on which worker finished first.
    rows[0].as_object_mut().unwrap().remove("id");
    expect![[r#"
        {
          "parent": "pkg.a.Parser",
          "kind": "method",
          "name": "parse",
          "qualified_name": "pkg.a.Parser.parse",
          "path": "pkg/a.py",
          "language": "python",
          "start_line": 5,
          "start_col": 5,
          "end_line": 5,
          "end_col": 26,
          "signature": "def parse(self)"
        }"#]]
    .assert_eq(&serde_json::to_string_pretty(&rows[0]).unwrap());
}

#[test]
fn outline_prints_a_tree() {
    let repo = Repo::new(SMALL_REPO);
    stdout(&repo.ken(&["index", "-q"]));
    expect![[r#"
        app/models.py
          class       class Model  [1-4]
            method      def save(self)  [3-4]
          class       class User(Model)  [6-8]
            method      def save(self)  [7-8]
    "#]]
    .assert_eq(&stdout(&repo.ken(&["outline", "app/models.py"])));
    // From a subdirectory, with a path relative to it.
    let sub = repo.path().join("app");
    expect![[r#"
        app/models.py
          class       class Model  [1-4]
            method      def save(self)  [3-4]
          class       class User(Model)  [6-8]
            method      def save(self)  [7-8]
    "#]]
    .assert_eq(&stdout(&ken_in(&sub, &["outline", "models.py"])));
    let tree = json(&repo.ken(&["outline", "src/lib.rs", "--json"]));
    let names: Vec<String> = tree["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{} {} children={}", s["kind"], s["qualified_name"], s["children"].as_array().unwrap().len()))
        .collect();
    expect![[r#""struct" "crate::Point" children=2"#]].assert_eq(&names.join("\n"));
}

/// `ken outline … | head -0`: the reader is gone before ken writes. ken
/// must stop quietly, like other Unix tools, not panic in println!.
#[test]
fn a_closed_pipe_ends_output_quietly() {
    let repo = Repo::new(SMALL_REPO);
    stdout(&repo.ken(&["index", "-q"]));
    let mut child = ken_command(repo.path(), &["outline", "app/models.py"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "ken panicked on a closed pipe: {stderr}");
    assert_ne!(out.status.code(), Some(101), "ken panicked on a closed pipe: {stderr}");
}

/// Each user mistake gets a non-zero exit and one line saying what to do.
fn check_error(repo: &Repo, args: &[&str], expect: Expect) {
    let out = repo.ken(args);
    assert!(!out.status.success(), "expected failure for {args:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    let stderr = stderr.replace(&repo.path().display().to_string(), "$REPO");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    expect.assert_eq(&stderr);
}

#[test]
fn user_errors_say_what_to_do() {
    let repo = Repo::new("//- a.py\nx = 1\n//- file.txt\nnot a dir\n");
    check_error(
        &repo,
        &["index", "does/not/exist"],
        expect![[r#"
        error: $REPO/does/not/exist does not exist; pass the path of a repository to index
    "#]],
    );
    check_error(
        &repo,
        &["index", "--index-dir", "file.txt/idx"],
        expect![[r#"
        error: cannot create or write the index directory $REPO/file.txt/idx: Not a directory (os error 20); pass a writable --index-dir or set KEN_INDEX_DIR
    "#]],
    );
    check_error(
        &repo,
        &["symbols", "x"],
        expect![[r#"
        error: no index found for $REPO; run `ken index` there first (or pass --index-dir)
    "#]],
    );
    stdout(&repo.ken(&["index", "-q"]));
    check_error(
        &repo,
        &["outline", "nope.py"],
        expect![[r#"
        error: nope.py is not in the index; check the path, or run `ken index` if the file is new
    "#]],
    );
    check_error(
        &repo,
        &["symbols", "x", "--kind", "gadget"],
        expect![[r#"
            error: unknown kind `gadget`; use one of: module, class, struct, interface, trait, enum, function, method, constructor, field, constant, doc, config
        "#]],
    );
    // An index another version wrote, with a kind this one does not know.
    let db = rusqlite::Connection::open(repo.path().join(".kenning/index.sqlite")).unwrap();
    db.execute("UPDATE symbols SET kind = 'impl'", []).unwrap();
    drop(db);
    check_error(
        &repo,
        &["symbols", "a"],
        expect![[r#"
        error: the index holds the symbol kind `impl`, which this version of ken does not know: another version wrote it; run `ken index --rebuild`
    "#]],
    );
    std::fs::write(repo.path().join(".kenning/index.sqlite"), "garbage that is not sqlite").unwrap();
    let _ = std::fs::remove_file(repo.path().join(".kenning/index.sqlite-wal"));
    let _ = std::fs::remove_file(repo.path().join(".kenning/index.sqlite-shm"));
    check_error(
        &repo,
        &["index"],
        expect![[r#"
        error: the index in $REPO/.kenning is damaged (file is not a database); run `ken index --rebuild`
    "#]],
    );
    // The advertised way out works.
    stdout(&repo.ken(&["index", "--rebuild", "-q"]));
}

/// Completion scripts work in the shell they are for, and the manual is
/// roff; both anywhere, outside any repository. Each line: what was typed,
/// then what bash offers.
#[test]
fn completions_and_the_manual_need_no_repository() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("ken.bash");
    std::fs::write(&script, stdout(&ken_in(dir.path(), &["completions", "bash"]))).unwrap();
    let mut offered = String::new();
    for typed in ["ken se", "ken search --mo", "ken index --re", "ken completions f"] {
        let words: Vec<&str> = typed.split(' ').collect();
        let program = format!(
            "source {script}; COMP_WORDS=({words}); COMP_CWORD={last}; COMP_LINE='{typed}'; COMP_POINT={point}; _ken ken {current} {previous}; echo \"${{COMPREPLY[*]}}\"",
            script = script.display(),
            words = words.join(" "),
            last = words.len() - 1,
            point = typed.len(),
            current = words[words.len() - 1],
            previous = words[words.len() - 2],
        );
        let out = std::process::Command::new("bash").arg("-c").arg(&program).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        offered.push_str(&format!("{typed:<20} → {}", String::from_utf8_lossy(&out.stdout)));
    }
    expect![[r#"
        ken se               → search serve
        ken search --mo      → --mode --model --model-dir
        ken index --re       → --rebuild --reembed
        ken completions f    → fish
    "#]]
    .assert_eq(&offered);
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let out = ken_in(dir.path(), &["completions", shell]);
        assert!(out.status.success() && stdout(&out).contains("locate"), "{shell}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let manual = stdout(&ken_in(dir.path(), &["man"]));
    assert!(manual.contains("\n.TH ken 1 "), "{manual}");
    expect![[r#"
        .SH NAME
        .SH SYNOPSIS
        .SH DESCRIPTION
        .SH OPTIONS
        .SH SUBCOMMANDS
        .SH VERSION"#]]
    .assert_eq(&manual.lines().filter(|l| l.starts_with(".SH")).collect::<Vec<_>>().join("\n"));
    let unknown = ken_in(dir.path(), &["completions", "nushell"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("possible values: bash, elvish, fish, powershell, zsh"));
}

/// `--color` and the environment decide whether output is coloured: each
/// line is a command's flags and environment, then what it printed.
#[test]
fn colour_follows_the_flag_and_the_environment() {
    let repo = Repo::new(SMALL_REPO);
    assert!(repo.ken(&["index", "--no-embed", "-q"]).status.success());
    let mut seen = String::new();
    for (flags, env) in [
        (&[][..], &[][..]),
        (&["--color", "always"], &[]),
        (&["--color", "never"], &[("CLICOLOR_FORCE", "1")]),
        (&["--color", "auto"], &[("CLICOLOR_FORCE", "1")]),
        (&["--color", "always"], &[("NO_COLOR", "1")]),
    ] {
        let args: Vec<&str> = ["search", "save", "-k", "1"].iter().chain(flags).copied().collect();
        let out = support::ken_env(repo.path(), &[env, &[("KEN_NO_EMBED", "1")]].concat(), &args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let coloured = String::from_utf8_lossy(&out.stdout).contains('\x1b');
        let env: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        seen.push_str(&format!("{:<16} {:<16} {}\n", flags.join(" "), env.join(" "), if coloured { "colour" } else { "plain" }));
    }
    expect![[r#"
                                          plain
        --color always                    colour
        --color never    CLICOLOR_FORCE=1 plain
        --color auto     CLICOLOR_FORCE=1 colour
        --color always   NO_COLOR=1       colour
    "#]]
    .assert_eq(&seen);
    let bad = repo.ken(&["search", "save", "--color", "sometimes"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("possible values: auto, always, never"));
}

/// `--format` lays out one line per result from a template (`vimgrep` is
/// the editors' location list), and `--hyperlinks always` makes locations
/// OSC 8 links to the files; piped output under `auto` gets none. Each line
/// of the fixture is a command, then what it printed.
#[test]
fn templates_lay_out_results_and_links_name_the_files() {
    let repo = Repo::new(SMALL_REPO);
    assert!(repo.ken(&["index", "--no-embed", "-q"]).status.success());
    let mut seen = String::new();
    for args in [
        &["symbols", "save", "--format", "vimgrep"][..],
        &["symbols", "save", "--format", r"{kind}\t{qualified_name} {{{line}}}"],
        &["graph", "callers", "Model.save", "--format", "{site_path}:{site_line}: {relation} {qualified_name} (depth {depth})"],
        &["search", "save", "-k", "2", "--format", "{rank} {path}:{line}-{end_line} {kind} {name}"],
        &["symbols", "save", "--format", "{signature"],
        &["symbols", "save", "--format", "{file}"],
        &["search", "save", "--format", "{path}", "--pipeline"],
    ] {
        let out = repo.ken(args);
        let text = if out.status.success() { String::from_utf8_lossy(&out.stdout) } else { String::from_utf8_lossy(&out.stderr) };
        seen.push_str(&format!("$ {}\n{text}", args.join(" ")));
    }
    expect![[r#"
        $ symbols save --format vimgrep
        app/models.py:7:5:method app.models.User.save
        app/models.py:3:5:method app.models.Model.save
        $ symbols save --format {kind}\t{qualified_name} {{{line}}}
        method	app.models.User.save {7}
        method	app.models.Model.save {3}
        $ graph callers Model.save --format {site_path}:{site_line}: {relation} {qualified_name} (depth {depth})
        app/models.py:8: CalledBy app.models.User.save (depth 1)
        $ search save -k 2 --format {rank} {path}:{line}-{end_line} {kind} {name}
        1 app/models.py:3-4 method save
        2 app/models.py:7-8 method save
        $ symbols save --format {signature
        error: --format: `{signature` is not closed (write `{{` for a brace)
        $ symbols save --format {file}
        error: --format: no field `{file}`; the fields here are path, line, col, end_line, kind, name, qualified_name, language, signature
        $ search save --format {path} --pipeline
        error: --format lays out plain search hits; --pipeline answers with clusters (use --json)
    "#]]
    .assert_eq(&seen);

    let linked = String::from_utf8(repo.ken(&["--hyperlinks", "always", "symbols", "helper"]).stdout).unwrap();
    let target = repo.path().canonicalize().unwrap().join("app/util.py");
    let start = linked.find("\x1b]8;;file://").expect("a link");
    let url = &linked[start + 4..linked[start..].find("\x1b\\").unwrap() + start];
    assert!(url.ends_with(&format!("{}", target.display())), "{url} links {}", target.display());
    assert!(linked.contains("app/util.py:1:1\x1b]8;;\x1b\\"), "the link's text is the location: {linked:?}");
    let piped = repo.ken(&["symbols", "helper"]).stdout;
    assert!(!piped.contains(&0x1b), "piped output under auto has no links");
}

/// `ken eval` measures retrieval on the repository's own names and
/// docstrings (blanked in a scratch copy, so BM25 cannot match the words
/// themselves), per mode, without each lane, and for settings to compare.
/// Lexical only here: the semantic rows need the model (the harness runs
/// them). Latency is left out of the snapshot; bad settings name the field.
#[test]
fn eval_scores_the_repositorys_own_queries() {
    let repo = Repo::new(
        r#"
//- shop/cart.py
class Cart:
    """A basket of items waiting for checkout."""

    def total(self, tax):
        """Sum the prices of every item, with tax added."""
        return sum(i.price for i in self.items) * (1 + tax)

    def restore(self, saved):
        """Bring back the items a customer kept for later."""
        self.items = list(saved)
//- shop/mail.py
def send_receipt(order, mailer):
    """Email the customer a receipt once payment clears."""
    mailer.send(order.email, order.summary())
"#,
    );
    assert!(repo.ken(&["index", "--no-embed", "-q"]).status.success());
    let out = repo.ken(&["eval", "--json", "--compare", "rrf_k = 10, file_boost = 0.5"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = json(&out);
    let mut seen = String::new();
    for set in report["sets"].as_array().unwrap() {
        seen.push_str(&format!("{} ({} queries)\n", set["name"].as_str().unwrap(), set["queries"]));
        for row in set["rows"].as_array().unwrap() {
            let (mrr, recall) = (row["mrr_at_10"].as_f64().unwrap(), row["recall_at_10"].as_f64().unwrap());
            seen.push_str(&format!("  {:<40} {mrr:.3} {recall:.3}\n", row["system"].as_str().unwrap()));
            assert!(row["p50_ms"].as_f64().unwrap() <= row["p95_ms"].as_f64().unwrap(), "{row}");
        }
    }
    expect![[r#"
        identifier (4 queries)
          hybrid                                   1.000 1.000
          lexical                                  1.000 1.000
          exact                                    1.000 1.000
          pipeline                                 1.000 1.000
          hybrid − BM25                            1.000 1.000
          hybrid − names                           1.000 1.000
          hybrid, rrf_k = 10, file_boost = 0.5     1.000 1.000
        docstring (4 queries)
          hybrid                                   0.750 0.750
          lexical                                  0.750 0.750
          exact                                    0.000 0.000
          pipeline                                 0.833 1.000
          hybrid − BM25                            0.500 0.500
          hybrid − names                           0.750 0.750
          hybrid, rrf_k = 10, file_boost = 0.5     0.750 0.750
    "#]]
    .assert_eq(&seen);
    let text = stdout(&repo.ken(&["eval", "-n", "2"]));
    assert!(text.contains("identifier (2 queries)") && text.contains("MRR@10"), "{text}");
    check_error(
        &repo,
        &["eval", "--compare", "rrf = 3"],
        expect![[r#"
        error: `compare` `rrf = 3` is not `key = value, …` over the ranking settings: unknown field `rrf`, expected one of `fusion`, `rrf_k`, `code_weights`, `prose_weights`, `static_weight`, `file_boost`, `test_weight`, `docs_weight`, `file_decay`, `intent_weight`, `member_weight`, `short_span`
    "#]],
    );
    check_error(
        &repo,
        &["eval", "-n", "0"],
        expect![[r#"
        error: `queries` must be between 1 and 1000 (got 0)
    "#]],
    );
}

/// `ken eval --lsp` scores callers and subclasses with the language servers
/// as the oracle (tsserver and pyright here): the graph beside a name
/// match, with precision too, as the answers are sets. pyright answers no
/// implementation request, which a note says instead of a Python row.
#[test]
fn eval_scores_callers_and_subclasses_against_the_language_servers() {
    let repo = Repo::new(
        r#"
//- tsconfig.json
{ "compilerOptions": { "target": "es2020", "strict": true }, "include": ["src"] }
//- src/shapes.ts
export class Shape {
  area(): number { return 0; }
}
export class Square extends Shape {
  constructor(private side: number) { super(); }
  area(): number { return this.side * this.side; }
}
export function squares(n: number): Square[] {
  return Array.from({ length: n }, (_, i) => new Square(i));
}
//- src/tiles.ts
import { Shape, Square, squares } from "./shapes";
export class Tile extends Square {}
export function totalArea(shapes: Shape[]): number {
  return shapes.reduce((sum, s) => sum + s.area(), 0);
}
export function layout(n: number): number {
  return totalArea(squares(n)) + totalArea([new Tile(n)]);
}
export function squaresLabel(n: number): string {
  return `squares(${n})`;
}
//- report.py
def render(rows):
    return "\n".join(fmt(row) for row in rows)


def fmt(row):
    return str(row)


class Report:
    def show(self, rows):
        print(render(rows))
"#,
    );
    assert!(repo.ken(&["index", "--no-embed", "-q"]).status.success());
    let out = repo.ken(&["eval", "--lsp", "--json", "-n", "10"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = json(&out);
    let mut seen = String::new();
    for set in report["sets"].as_array().unwrap() {
        let name = set["name"].as_str().unwrap();
        if name != "callers" && name != "subclasses" {
            continue;
        }
        seen.push_str(&format!("{name} ({} queries)\n", set["queries"]));
        for row in set["rows"].as_array().unwrap() {
            let value = |key: &str| row[key].as_f64().unwrap();
            let (system, mrr, recall, precision) =
                (row["system"].as_str().unwrap(), value("mrr_at_10"), value("recall_at_10"), value("precision"));
            seen.push_str(&format!("  {system:<12} {mrr:.3} {recall:.3} {precision:.3}\n"));
        }
    }
    for note in report["notes"].as_array().unwrap() {
        seen.push_str(&format!("note: {}\n", note.as_str().unwrap()));
    }
    expect![[r#"
        callers (7 queries)
          graph        0.714 0.714 0.714
          name match   0.714 0.857 0.643
        subclasses (2 queries)
          graph        1.000 1.000 1.000
          name match   1.000 0.750 1.000
        note: no embeddings in this index: the semantic lane is off (run `ken index` to embed)
        note: no definition has a docstring of four words or more: no docstring set
        note: no subclasses set for python: pyright does not answer textDocument/implementation
    "#]]
    .assert_eq(&seen);
}

#[test]
fn a_second_writer_is_told_to_wait() {
    let repo = Repo::new("//- a.py\nx = 1\n");
    stdout(&repo.ken(&["index", "-q"]));
    let lock = std::fs::File::options().write(true).open(repo.path().join(".kenning/lock")).unwrap();
    assert!(fs4::fs_std::FileExt::try_lock_exclusive(&lock).unwrap());
    check_error(
        &repo,
        &["index"],
        expect![[r#"
        error: another ken process is updating the index in $REPO/.kenning (embeddings 0/1); `ken status` shows progress, and searches work meanwhile
    "#]],
    );
    // Readers are not blocked by a writer.
    stdout(&repo.ken(&["symbols", "x"]));
}

#[test]
fn real_package_from_pypi() {
    let corpus = pypi_corpus("requests", "2.32.3");
    let index_dir = tempfile::tempdir().unwrap();
    let idx = index_dir.path().to_str().unwrap();
    let summary = json(&ken_in(&corpus, &["--index-dir", idx, "index", ".", "--json"]));
    expect!["files 18 lines 5642 symbols 328 chunks 325 skipped {}"].assert_eq(&format!(
        "files {} lines {} symbols {} chunks {} skipped {}",
        summary["files"], summary["lines"], summary["symbols"], summary["chunks"], summary["skipped"]
    ));
    let top = stdout(&ken_in(&corpus, &["--index-dir", idx, "symbols", "resolve_redirects", "-k", "1"]));
    expect![[r#"
        requests/sessions.py:159:5  method      requests.sessions.SessionRedirectMixin.resolve_redirects
            def resolve_redirects(self, resp, req, stream=False, timeout=None, verify=True, cert=None, proxies=None, yield_requests=False, **adapter_kwargs,)
    "#]].assert_eq(&top);
    let outline = stdout(&ken_in(&corpus, &["--index-dir", idx, "outline", "requests/api.py"]));
    expect![[r#"
        requests/api.py
          function    def request(method, url, **kwargs)  [14-59]
          function    def get(url, params=None, **kwargs)  [62-73]
          function    def options(url, **kwargs)  [76-85]"#]]
    .assert_eq(&outline.lines().take(4).collect::<Vec<_>>().join("\n"));
}

/// Files are stored in the plan's order (biggest first, then by path),
/// whichever core mined one first: the same tree gets the same ids on every
/// run, so results that tie are ranked the same way.
#[test]
fn files_are_stored_in_the_same_order_on_every_run() {
    let fixture: String =
        (0..40).map(|i| format!("//- m{i:02}.py\n{}", format!("def f{i}():\n    return {i}\n").repeat(1 + i % 7))).collect();
    let repo = Repo::new(&fixture);
    stdout(&ken_in(repo.path(), &["index", "-q", "--no-embed"]));
    let db = rusqlite::Connection::open(repo.path().join(".kenning/index.sqlite")).unwrap();
    let stored: Vec<(String, i64)> = db
        .prepare("SELECT path, size FROM files ORDER BY id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut planned = stored.clone();
    planned.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    assert_eq!(stored.len(), 40);
    assert_eq!(stored, planned);
}

/// A run killed part-way leaves a consistent index, and the next run
/// finishes the job to the same result as an uninterrupted one.
#[test]
fn killed_index_run_resumes() {
    let corpus = pypi_corpus("Django", "5.1.4");
    let index_dir = tempfile::tempdir().unwrap();
    let idx = index_dir.path().to_str().unwrap();
    let mut child = ken_command(&corpus, &["--index-dir", idx, "index", ".", "-q"]).spawn().unwrap();
    // Killed once the first files are in (not after a fixed time: on a busy
    // machine that could be before the schema exists), or not at all if
    // the run ends first.
    let db_path = index_dir.path().join("index.sqlite");
    let started = || {
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
        rusqlite::Connection::open_with_flags(&db_path, flags)
            .and_then(|db| db.query_row("SELECT count(*) FROM files", [], |r| r.get::<_, i64>(0)))
            .is_ok_and(|n| n > 0)
    };
    while child.try_wait().unwrap().is_none() && !started() {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    let db = rusqlite::Connection::open(index_dir.path().join("index.sqlite")).unwrap();
    let check: String = db.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok");
    // Every file row that made it in is complete.
    let orphans: i64 = db
        .query_row("SELECT count(*) FROM files f WHERE NOT EXISTS (SELECT 1 FROM file_text t WHERE t.file_id = f.id)", [], |r| r.get(0))
        .unwrap();
    assert_eq!(orphans, 0);
    drop(db);
    let resumed = json(&ken_in(&corpus, &["--index-dir", idx, "index", ".", "--json"]));
    let fresh_dir = tempfile::tempdir().unwrap();
    let fresh = json(&ken_in(&corpus, &["--index-dir", fresh_dir.path().to_str().unwrap(), "index", ".", "--json"]));
    for key in ["files", "lines", "symbols", "references", "chunks"] {
        assert_eq!(resumed[key], fresh[key], "{key} after resume");
    }
    let mined = resumed["changes"]["added"].as_u64().unwrap();
    assert!(mined < fresh["files"].as_u64().unwrap() || mined == 0 || resumed["changes"]["unchanged"].as_u64().unwrap() == 0);
}

/// `ken graph` on a real package: each command's text output (first lines),
/// JSON shape, and the errors a user can make.
#[test]
fn graph_commands_on_a_real_package() {
    let corpus = pypi_corpus("requests", "2.32.3");
    let index_dir = tempfile::tempdir().unwrap();
    let idx = index_dir.path().to_str().unwrap();
    stdout(&ken_in(&corpus, &["--index-dir", idx, "index", ".", "-q"]));
    let run = |args: &[&str], lines: usize| -> String {
        let mut all = vec!["--index-dir", idx];
        all.extend_from_slice(args);
        let out = ken_in(&corpus, &all);
        let text = if out.status.success() {
            String::from_utf8(out.stdout).unwrap()
        } else {
            format!("exit {}: {}", out.status.code().unwrap_or(-1), String::from_utf8(out.stderr).unwrap())
        };
        let mut shown: Vec<&str> = text.lines().take(lines).collect();
        shown.insert(0, "");
        format!("$ ken {}{}\n", args.join(" "), shown.join("\n    "))
    };
    let mut out = String::new();
    out += &run(&["graph", "callers", "requests.sessions.Session.request", "--depth", "2"], 6);
    out += &run(&["graph", "callees", "requests.api.request"], 4);
    out += &run(&["graph", "subclasses", "requests.exceptions.RequestException"], 4);
    out += &run(&["graph", "superclasses", "requests.exceptions.SSLError"], 4);
    out += &run(&["graph", "overrides", "requests.adapters.HTTPAdapter.send"], 4);
    out += &run(&["graph", "refs", "requests.models.PreparedRequest"], 4);
    out += &run(&["graph", "path", "requests.api.get", "requests.sessions.Session.send"], 6);
    out += &run(&["graph", "untested", "-k", "3"], 4);
    out += &run(&["symbols", "--rank", "-k", "3"], 6);
    out += &run(&["symbols", "--rank", "-k", "2", "--kind", "method"], 4);
    // Node ids are symbol ids, which depend on mining order: only the header.
    out += &run(&["graph", "export", "requests.api.get", "--format", "dot", "--depth", "1"], 3);
    out += &run(&["graph", "callers", "Sesion"], 2);
    out += &run(&["graph", "callers", "send"], 3);
    out += &run(&["graph", "subclasses", "requests.api.get"], 2);
    out += &run(&["graph", "callers", "requests/nope.py:10"], 2);
    expect![[r#"
        $ ken graph callers requests.sessions.Session.request --depth 2
            requests.sessions.Session.request (method, requests/sessions.py:500)
              CalledBy        requests.api.request  requests/api.py:59:24  [type_inferred]
              CalledBy        requests.sessions.Session.get  requests/sessions.py:602:21
              CalledBy        requests.sessions.Session.options  requests/sessions.py:613:21
              CalledBy        requests.sessions.Session.head  requests/sessions.py:624:21
              CalledBy        requests.sessions.Session.post  requests/sessions.py:637:21
        $ ken graph callees requests.api.request
            requests.api.request (function, requests/api.py:14)
              Instantiates    requests.sessions.Session  requests/api.py:58:19
              Calls           requests.sessions.Session.request  requests/api.py:59:24  [type_inferred]
              … more beyond this depth; pass a larger --depth
        $ ken graph subclasses requests.exceptions.RequestException
            requests.exceptions.RequestException (class, requests/exceptions.py:12)
              BaseClassOf     requests.exceptions.InvalidJSONError  requests/exceptions.py:27:24
              BaseClassOf     requests.exceptions.HTTPError  requests/exceptions.py:55:17
              BaseClassOf     requests.exceptions.ConnectionError  requests/exceptions.py:59:23
        $ ken graph superclasses requests.exceptions.SSLError
            requests.exceptions.SSLError (class, requests/exceptions.py:67)
              DerivedClassOf  requests.exceptions.ConnectionError  requests/exceptions.py:67:16
                DerivedClassOf  requests.exceptions.RequestException  requests/exceptions.py:59:23
        $ ken graph overrides requests.adapters.HTTPAdapter.send
            requests.adapters.HTTPAdapter.send (method, requests/adapters.py:613)
              overrides:
                requests.adapters.BaseAdapter.send  requests/adapters.py:143
              overridden by: none
        $ ken graph refs requests.models.PreparedRequest
            requests.models.PreparedRequest (class, requests/models.py:313)
              Imports         requests  requests/__init__.py:177:21
              Imports         requests.adapters  requests/adapters.py:68:25
              Instantiates    requests.models.Request.prepare  requests/models.py:297:13
        $ ken graph path requests.api.get requests.sessions.Session.send
            requests.api.get (function, requests/api.py:62)
              → Calls           requests.api.request  requests/api.py:73:12
              → Calls           requests.sessions.Session.request  requests/api.py:59:24
              → Calls           requests.sessions.Session.send  requests/sessions.py:589:21
        $ ken graph untested -k 3
            190 public functions and methods are not reached by any test (most important first):
              function    requests._internal_utils.to_native_string  requests/_internal_utils.py:25
              function    requests.api.request  requests/api.py:14
              method      requests.sessions.Session.request  requests/sessions.py:500
        $ ken symbols --rank -k 3
            requests/exceptions.py:12:1  class       requests.exceptions.RequestException
                class RequestException(IOError)
            requests/_internal_utils.py:25:1  function    requests._internal_utils.to_native_string
                def to_native_string(string, encoding="ascii")
            requests/api.py:14:1  function    requests.api.request
                def request(method, url, **kwargs)
        $ ken symbols --rank -k 2 --kind method
            requests/sessions.py:500:5  method      requests.sessions.Session.request
                def request(self, method, url, params=None, data=None, headers=None, cookies=None, files=None, auth=None, timeout=None, allow_redirects=True, proxies=None, hooks=None, stream=None, verify=None, cert=None, json=None,)
            requests/cookies.py:349:5  method      requests.cookies.RequestsCookieJar.set_cookie
                def set_cookie(self, cookie, *args, **kwargs)
        $ ken graph export requests.api.get --format dot --depth 1
            digraph kenning {
              rankdir=LR;
              node [shape=box, fontname="monospace"];
        $ ken graph callers Sesion
            exit 1: error: no symbol matches `Sesion`; did you mean: requests.sessions.Session, requests.sessions.session, requests.sessions.SessionRedirectMixin?
        $ ken graph callers send
            exit 1: error: `send` names 3 symbols; pass a qualified name or PATH:LINE:
              method requests.adapters.BaseAdapter.send (requests/adapters.py:143)
              method requests.adapters.HTTPAdapter.send (requests/adapters.py:613)
        $ ken graph subclasses requests.api.get
            exit 1: error: requests.api.get is a function; `ken graph subclasses` takes a class, struct, interface or trait
        $ ken graph callers requests/nope.py:10
            exit 1: error: requests/nope.py is not in the index; check the path, or run `ken index` if the file is new
    "#]].assert_eq(&out);

    let v = json(&ken_in(&corpus, &["--index-dir", idx, "graph", "callers", "requests.api.request", "--json"]));
    let hit = &v["hits"][0];
    expect![[r#""requests.api.get" 1 "CalledBy" "exact" "requests/api.py""#]].assert_eq(&format!(
        "{} {} {} {} {}",
        hit["symbol"]["qualified_name"], hit["depth"], hit["relation"], hit["resolution"], hit["site"]["path"]
    ));
    let export = json(&ken_in(&corpus, &["--index-dir", idx, "graph", "export", "--format", "json"]));
    let edges = export["edges"].as_array().unwrap();
    let relations: std::collections::BTreeSet<&str> = edges.iter().map(|e| e["relation"].as_str().unwrap()).collect();
    expect![[r#"{"calls", "construct", "derived_class_of", "imports", "instantiates", "overrides", "parent_of", "uses"}"#]]
        .assert_eq(&format!("{relations:?}"));
}

/// `dist/` is build output, left out beside the sources it was built from,
/// and indexed when it is all the code a tree has (many npm packages).
#[test]
fn build_output_is_indexed_only_when_it_is_the_code() {
    let check = |fixture: &str, expect: Expect| {
        let repo = Repo::new(fixture);
        let v = json(&repo.ken(&["index", "--json"]));
        let found = stdout(&repo.ken(&["symbols", "parse"]));
        let paths: Vec<&str> = found.lines().filter_map(|l| l.split(':').next()).filter(|p| !p.starts_with(' ')).collect();
        expect.assert_eq(&format!("files {} vendored {} parse in {paths:?}", v["files_by_language"], v["vendored_dirs_skipped"]));
    };
    // Only `dist/` holds code, and a root shim: indexed.
    let helpers: String =
        (0..20).map(|i| format!("function helper{i}(values) {{ return values.map((v) => v * {i}).filter(Boolean); }}\n")).collect();
    check(
        &format!(
            "//- package.json\n{{\"main\": \"dist/index.js\"}}\n//- index.js\nmodule.exports = require('./dist/index.js');\n//- dist/index.js\nfunction parse(text) {{ return text.split(',').map(Number); }}\n{helpers}//- dist/index.d.ts\nexport declare function parse(text: string): number[];\n"
        ),
        expect![[r#"files {"javascript":2,"json":1,"typescript":1} vendored 0 parse in ["dist/index.d.ts", "dist/index.js"]"#]],
    );
    // Sources beside their build: `dist/` left out.
    check(
        "//- src/index.ts\nexport function parse(text: string): number[] { return text.split(',').map(Number); }\n//- dist/index.js\nfunction parse(text) { return text.split(',').map(Number); }\n",
        expect![[r#"files {"typescript":1} vendored 1 parse in ["src/index.ts"]"#]],
    );
    // A nested `dist/` (a monorepo's package) counts the same way.
    check(
        "//- packages/a/src/a.py\ndef parse(text):\n    return text.split(',')\n//- packages/a/dist/a.js\nfunction parse(t) { return t.split(','); }\n//- packages/b/dist/b.js\nfunction other() {}\n",
        expect![[r#"files {"python":1} vendored 2 parse in ["packages/a/src/a.py"]"#]],
    );
    // Two builds and nothing else (socket.io: the server in `dist/`, its
    // client's bundle in `client-dist/`): both are the code.
    check(
        &format!("//- dist/index.js\nfunction parse(text) {{ return text.split(','); }}\n{helpers}//- client-dist/socket.io.js\n{helpers}"),
        expect![[r#"files {"javascript":2} vendored 0 parse in ["dist/index.js"]"#]],
    );
    // A build named after `dist` beside its sources is left out too.
    check(
        "//- src/index.ts\nexport function parse(text: string): number[] { return text.split(',').map(Number); }\n//- dist-esm/index.js\nfunction parse(text) { return text.split(',').map(Number); }\n",
        expect![[r#"files {"typescript":1} vendored 1 parse in ["src/index.ts"]"#]],
    );
}
