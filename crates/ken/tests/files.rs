//! Every file a user would search is searchable: languages beyond the
//! first twelve, documents, configuration and plain text, on real packages
//! and on a fixture with the files every repository has.

mod support;

use expect_test::expect;
use support::{Repo, json, ken_command, npm_corpus, stdout};

/// Runs ken on a corpus with the index kept outside it (the corpus is shared).
fn ken_on(corpus: &std::path::Path, index: &std::path::Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["--index-dir", index.to_str().unwrap()];
    all.extend_from_slice(args);
    ken_command(corpus, &all).env("KEN_NO_EMBED", "1").output().unwrap()
}

/// bats-core 1.13.0 from npm (Bash): its functions are symbols, found by
/// name, outlined, and linked by calls across files; the scripts without an
/// extension are Bash by their shebang; README and package.json are indexed.
#[test]
fn bats_core_from_npm_is_bash() {
    let corpus = npm_corpus("bats", "1.13.0");
    let index = tempfile::tempdir().unwrap();
    let summary = json(&ken_on(&corpus, index.path(), &["index", ".", "--json"]));
    let by_language = &summary["files_by_language"];
    assert!(by_language["bash"].as_u64() >= Some(20), "{by_language}");
    assert!(by_language["markdown"].as_u64() >= Some(1) && by_language["json"] == 1, "{by_language}");
    assert!(summary["symbols"].as_u64() > Some(200), "{summary}");

    let found = stdout(&ken_on(&corpus, index.path(), &["symbols", "bats_capture_stack_trace"]));
    expect![[r#"
        lib/bats-core/tracing.bash:11:1  function    bats_capture_stack_trace
            bats_capture_stack_trace()
    "#]]
    .assert_eq(&found);
    let outline = stdout(&ken_on(&corpus, index.path(), &["outline", "lib/bats-core/tracing.bash"]));
    assert!(outline.contains("function    bats_print_stack_trace()"), "{outline}");
    let callers = stdout(&ken_on(&corpus, index.path(), &["graph", "callers", "bats_capture_stack_trace"]));
    assert!(callers.lines().count() > 1 && callers.contains("CalledBy"), "{callers}");
    let hits = json(&ken_on(&corpus, index.path(), &["search", "print the stack trace of a failed test", "--json", "-k", "5"]));
    let names: Vec<&str> = hits["hits"].as_array().unwrap().iter().filter_map(|h| h["qualified_name"].as_str()).collect();
    assert!(names.iter().any(|n| n.contains("stack_trace")), "{names:?}");
}

/// The files every repository has: a README, docs, CI workflows, build and
/// environment files. Each is split into its units, named by heading or key
/// path, and answers the questions people ask of them; `--kind` and
/// `--lang` filter them; binary, data and lock files stay out, counted.
#[test]
fn readme_docs_and_configs_answer_questions() {
    let repo = Repo::new(
        r#"
//- README.md
# Demo

A demo service.

## Running the tests

Run `make test`; the suite needs Docker.

## Configuration

Set `DEMO_PORT` to choose the port the server listens on.
//- .github/workflows/ci.yml
name: CI
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: make test
//- .env.example
DEMO_PORT=8080
//- .env
SECRET_TOKEN=do-not-index
//- Makefile
test:
	pytest -q
//- Dockerfile
FROM python:3.12 AS runtime
CMD ["python", "-m", "demo"]
//- demo/server.py
import os


def port():
    return int(os.environ.get("DEMO_PORT", "8080"))
//- package-lock.json
{"lockfileVersion": 3}
//- data/rows.csv
a,b
//- NOTES
free text about deployment windows
"#,
    );
    let summary = json(&repo.ken(&["index", "--json"]));
    expect![[r#"{"dockerfile":1,"ini":1,"make":1,"markdown":1,"python":1,"text":1,"yaml":1} {"data":1,"generated":1}"#]]
        .assert_eq(&format!("{} {}", summary["files_by_language"], summary["skipped"]));
    let top = |args: &[&str]| -> String {
        let mut all = vec!["search"];
        all.extend_from_slice(args);
        all.extend(["--json", "-k", "1", "--mode", "lexical"]);
        let v = json(&repo.ken(&all));
        v["hits"][0]["qualified_name"].as_str().unwrap_or("(none)").to_string()
    };
    let answers = [
        top(&["how do I run the tests"]),
        top(&["which env var sets the port", "--kind", "doc"]),
        top(&["DEMO_PORT", "--lang", "ini"]),
        top(&["runs-on ubuntu"]),
        top(&["deployment windows"]),
        top(&["SECRET_TOKEN"]),
    ];
    expect![[r#"
        README.md > Demo > Running the tests
        README.md > Demo > Configuration
        .env.example > DEMO_PORT
        .github/workflows/ci.yml > jobs.test
        NOTES
        (none)
    "#]]
    .assert_eq(&(answers.join("\n") + "\n"));
}
