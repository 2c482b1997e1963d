//! `ken locate` end to end: a bug report in (argument, file or stdin), the
//! files and functions to change out, over a real index.

mod support;

use expect_test::{Expect, expect};
use support::{Repo, json, ken_command};

const SHOP: &str = r#"
//- shop/loader.py
import json


def load(path):
    with open(path) as f:
        data = json.load(f)
    return data["items"]


def dump(items, path):
    with open(path, "w") as f:
        json.dump({"items": items}, f)
//- shop/auth.py
class TokenExpired(Exception):
    pass


class Session:
    def refresh(self, token):
        if token.expired:
            raise TokenExpired("token expired before refresh could run")
        return token.renew()

    def logout(self):
        self.token = None
//- shop/commands/migrate.py
def run(args):
    fake = args.get("fake")
    apply_all(fake)


def apply_all(fake):
    return fake
//- shop/cart.py
from shop.loader import load


class Cart:
    def total(self, prices):
        return sum(p.amount * p.quantity for p in prices)

    def restore(self, path):
        self.items = load(path)
//- tests/test_auth.py
from shop.auth import Session


def test_refresh_token_expired_session():
    session = Session()
    session.refresh(token=None)
//- web/parser.js
class Parser {
  parse(text) {
    return text.split("\n").map((line) => line.trim());
  }
}
module.exports = { Parser };
//- web/rules/prefer-const.js
function create(context) {
  return { VariableDeclaration(node) { context.report(node, "Use const"); } };
}
module.exports = { meta: { type: "problem" }, create };
//- web/const.js
// Whether a destructured binding is reassigned later.
function reassigned(binding) {
  return binding.writes > 1;
}
module.exports = { reassigned };
//- web/index.d.ts
/** Splits text into trimmed lines; empty lines are kept. */
export declare class Parser {
  parse(text: string): string[];
}
//- src/pool.rs
pub struct Pool { size: usize }

impl Pool {
    pub fn grow(&mut self, by: usize) { self.size = self.size.checked_add(by).unwrap(); }
}
"#;

/// One line per report: the top files, each with its first symbols.
fn check(repo: &Repo, report: &str, expect: Expect) {
    check_weighted(repo, report, "{}", expect);
}

/// As `check`, with `--weights`.
fn check_weighted(repo: &Repo, report: &str, weights: &str, expect: Expect) {
    let out = repo.ken(&["locate", report, "--json", "-k", "3", "--symbols", "2", "--weights", weights]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let files: Vec<String> = json(&out)["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let symbols: Vec<&str> = f["symbols"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
            format!("{} ({})", f["path"].as_str().unwrap(), symbols.join(", "))
        })
        .collect();
    expect.assert_eq(&(files.join(" | ") + "\n"));
}

#[test]
fn reports_point_at_files_and_functions() {
    let repo = Repo::new(SHOP);
    assert!(repo.ken(&["index", "."]).status.success());
    // A Python traceback: the files of its frames in this repository, and of the names it spells.
    check(
        &repo,
        "Cart.restore crashes on an empty file\nTraceback (most recent call last):\n  File \"/srv/app/views.py\", line 9, in get\n    cart.restore(p)\n  File \"/usr/lib/python3/site-packages/shop/cart.py\", line 9, in restore\n    self.items = load(path)\n  File \"/usr/lib/python3/site-packages/shop/loader.py\", line 7, in load\n    return data[\"items\"]\nKeyError: 'items'",
        expect![[r#"
            shop/cart.py (restore, Cart) | shop/loader.py (load, dump) | shop/commands/migrate.py (run, apply_all)
        "#]],
    );
    // A file named by a word of the report.
    check(
        &repo,
        "the migrate command ignores the fake option",
        expect![[r#"
            shop/commands/migrate.py (run, apply_all)
        "#]],
    );
    // An error message, quoted: the file that raises it, before its test.
    check(
        &repo,
        "Refreshing a session fails with \"token expired before refresh could run\" although the token is fresh",
        expect![[r#"
            shop/auth.py (refresh, Session) | shop/commands/migrate.py (run) | tests/test_auth.py (test_refresh_token_expired_session)
        "#]],
    );
    // JavaScript and Rust traces.
    check(
        &repo,
        "TypeError: text.split is not a function\n    at Parser.parse (/app/node_modules/x/web/parser.js:3:17)\n    at main (/app/index.js:4:1)",
        expect![[r#"
            web/parser.js (parse, Parser) | web/rules/prefer-const.js (create, VariableDeclaration) | web/const.js (reassigned)
        "#]],
    );
    // The implementation, before the declarations that restate its API.
    check(
        &repo,
        "splitting text into trimmed lines drops the empty lines, although they should be kept",
        expect![[r#"
            web/parser.js (parse) | web/index.d.ts (parse)
        "#]],
    );
    // A hyphenated word that is a file's name (an ESLint rule), before a
    // file that says the report's other words, and whose name is a part of it.
    check(
        &repo,
        "Bug: (prefer-const) a destructured binding is flagged although it is reassigned",
        expect![[r#"
            web/rules/prefer-const.js (VariableDeclaration) | web/const.js (reassigned)
        "#]],
    );
    check(
        &repo,
        "thread 'main' panicked at src/pool.rs:4:79:\ncalled `Option::unwrap()` on a `None` value\n",
        expect![[r#"
            src/pool.rs (grow, Pool) | shop/auth.py (logout) | tests/test_auth.py (test_refresh_token_expired_session)
        "#]],
    );
}

const RENDERER: &str = r#"
//- ui/messages.js
/* This file is generated by scripts/process-messages.js. Do not edit! */
function binding_invalid_mutation(name) {
  return `Mutating ${name} outside of its owner component is not allowed`;
}
module.exports = { binding_invalid_mutation };
//- ui/ownership.js
const { binding_invalid_mutation } = require("./messages");
function check_mutation(binding, component) {
  if (binding.owner !== component) throw binding_invalid_mutation(binding.name);
}
module.exports = { check_mutation };
//- ui/props.js
// Binding a value to a nested component's prop, both ways.
function set_prop(component, name, value) {
  component.props[name] = value;
}
module.exports = { set_prop };
//- ui/client/render.js
function element(node, out) {
  out.push(node.tag);
  for (const child of node.children.slice(1)) element(child, out);
}
module.exports = { element };
//- ui/server/render.js
function element(node, out) {
  out.push(node.tag);
  for (const child of node.children.slice(1)) element(child, out);
}
module.exports = { element };
"#;

#[test]
fn generated_files_and_path_words_weigh_in() {
    let repo = Repo::new(RENDERER);
    assert!(repo.ken(&["index", "."]).status.success());
    // The generated message catalogue says the report's words; the code
    // that raises the message comes first.
    check(
        &repo,
        "Mutating a binding inside its owner component is reported: binding_invalid_mutation says it is outside of its owner component",
        expect![[r#"
            ui/ownership.js (check_mutation) | ui/props.js (set_prop) | ui/messages.js (binding_invalid_mutation)
        "#]],
    );
    // An error page's code names the catalogue's function: the code that
    // calls it raises the message, above a file that says the words.
    check(
        &repo,
        "Binding a value to a nested component fails\nhttps://ui.dev/e/binding_invalid_mutation",
        expect![[r#"
            ui/ownership.js (check_mutation) | ui/props.js (set_prop) | ui/messages.js (binding_invalid_mutation)
        "#]],
    );
    // Two files alike but for their paths: the report's word `server` decides.
    check(
        &repo,
        "The server's output drops the first child of an element",
        expect![[r#"
            ui/server/render.js (element) | ui/client/render.js (element)
        "#]],
    );
}

const TEST_RUNNER: &str = r#"
//- src/_pytest/main.py
import os


def collect_directory(path):
    # A subdirectory that cannot be read stops the whole collection.
    return [entry.path for entry in os.scandir(path)]


def warn_unreadable(path):
    warnings.warn(_("subdirectory without read access skipped"))
//- src/_pytest/fixtures.py
def fixture_value(request, name):
    return request.cache[name]
//- testing/test_main.py
def test_pytest_crashes_on_subdirectory_without_read_access(pytester):
    # pytest crashes if a subdirectory has no read access.
    pytester.mkdir("chaff").chmod(0)
    pytester.runpytest("tests")
//- src/_pytest/locale/fr/LC_MESSAGES/pytest.po
msgid "subdirectory without read access skipped"
msgstr "sous-répertoire sans accès en lecture ignoré"
//- src/_pytest/locale/de/LC_MESSAGES/pytest.po
msgid "subdirectory without read access skipped"
msgstr "Unterverzeichnis ohne Lesezugriff übersprungen"
"#;

#[test]
fn a_test_frameworks_reports_name_it_and_catalogues_repeat_the_words() {
    let repo = Repo::new(TEST_RUNNER);
    assert!(repo.ken(&["index", "."]).status.success());
    // "pytest" names the project's code (`src/_pytest`), not its tests: the
    // test that says every word of the report still comes after the code,
    // and the translation catalogues after both.
    check(
        &repo,
        "pytest crashes if there is a subdirectory it does not have read access to",
        expect![[r#"
            src/_pytest/main.py (warn_unreadable, collect_directory) | testing/test_main.py (test_pytest_crashes_on_subdirectory_without_read_access) | src/_pytest/locale/de/LC_MESSAGES/pytest.po ()
        "#]],
    );
    // Beside "pytest", "tests" are the users' tests, which the framework collects.
    check(
        &repo,
        "pytest collects tests from a subdirectory it does not have read access to",
        expect![[r#"
            src/_pytest/main.py (collect_directory, warn_unreadable) | testing/test_main.py (test_pytest_crashes_on_subdirectory_without_read_access) | src/_pytest/locale/de/LC_MESSAGES/pytest.po ()
        "#]],
    );
    // A report about a test is one.
    check(
        &repo,
        "the test for a subdirectory without read access is flaky",
        expect![[r#"
            testing/test_main.py (test_pytest_crashes_on_subdirectory_without_read_access) | src/_pytest/main.py (warn_unreadable, collect_directory) | src/_pytest/locale/de/LC_MESSAGES/pytest.po ()
        "#]],
    );
    // Each catalogue holds the quoted message as the code does.
    check(
        &repo,
        "The warning \"subdirectory without read access skipped\" is shown twice",
        expect![[r#"
            src/_pytest/main.py (warn_unreadable, collect_directory) | testing/test_main.py (test_pytest_crashes_on_subdirectory_without_read_access) | src/_pytest/locale/de/LC_MESSAGES/pytest.po ()
        "#]],
    );
}

const COMPLETER: &str = r#"
//- src/env/mod.rs
pub struct Completer;

impl Completer {
    pub fn with_factory(factory: fn()) -> Self {
        factory();
        Completer
    }

    pub fn run(self) {
        shells::Zsh.write_registration();
    }
}
//- src/env/shells.rs
pub struct Zsh;

impl Zsh {
    /// Registers the completer with zsh: no space after a file path.
    pub fn write_registration(&self) {
        print!("compdef _complete");
    }
}
"#;

#[test]
fn names_in_example_code_weigh_less_than_the_prose() {
    let repo = Repo::new(COMPLETER);
    assert!(repo.ken(&["index", "."]).status.success());
    // The example calls the entry point; the prose says where it goes wrong.
    check(
        &repo,
        "The zsh registration adds a space after a file path\n```rust\nCompleter::with_factory(cli).run();\n```",
        expect![[r#"
            src/env/shells.rs (write_registration, Zsh) | src/env/mod.rs (with_factory, run)
        "#]],
    );
}

#[test]
fn a_report_comes_from_stdin_or_a_file_and_says_what_is_off() {
    let repo = Repo::new(SHOP);
    assert!(repo.ken(&["index", "."]).status.success());
    let report = format!("{}\nload() fails on a missing key\n", "padding line of a long log\n".repeat(2000));
    repo.write("report.txt", &report);

    let mut child = ken_command(repo.path(), &["locate", "--json", "-k", "1"])
        .env("KEN_NO_EMBED", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), report.as_bytes()).unwrap();
    let piped = child.wait_with_output().unwrap();
    let from_file = repo.ken(&["locate", "--file", "report.txt", "--json", "-k", "1"]);
    for out in [&piped, &from_file] {
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let response = json(out);
        // Nothing is cut: the name at the end of a 54 000-character report counts.
        assert_eq!(response["files"][0]["path"], "shop/loader.py", "{response}");
        assert_eq!(response["evidence"]["characters"].as_u64().unwrap() as usize, report.trim().chars().count());
        let notes = response["notes"].to_string();
        assert!(notes.contains("semantic lane off"), "{notes}");
    }

    let empty = repo.ken(&["locate", "  "]);
    assert!(!empty.status.success());
    expect![[r#"
        error: `report` must not be empty; paste the bug report: title, description, stack trace
    "#]]
    .assert_eq(&String::from_utf8_lossy(&empty.stderr));
}

/// The text ends with the symbols across files: a file's rank and a
/// symbol's rank in its file count alike, so the second file's best
/// function comes before the first file's third. The JSON has them all.
#[test]
fn functions_across_files_come_after_the_files() {
    let repo = Repo::new(SHOP);
    assert!(repo.ken(&["index", "."]).status.success());
    let report = "Cart total and restore are wrong after load; Cart.restore drops items, Cart.total ignores quantity";
    let out = repo.ken(&["locate", report, "-k", "2", "--symbols", "3"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let across =
        text.lines().skip_while(|l| !l.starts_with("functions across")).take_while(|l| !l.starts_with("read ")).collect::<Vec<_>>();
    expect![[r#"
        functions across these files, best first:
         1. shop/cart.py:8-9  method shop.cart.Cart.restore
         2. shop/cart.py:5-6  method shop.cart.Cart.total
         3. shop/loader.py:4-7  function shop.loader.load
         4. shop/cart.py:4-9  class shop.cart.Cart
         5. shop/loader.py:10-12  function shop.loader.dump
    "#]]
    .assert_eq(&(across.join("\n") + "\n"));
    let response = json(&repo.ken(&["locate", report, "--json", "-k", "2", "--symbols", "3"]));
    let listed: usize = response["files"].as_array().unwrap().iter().map(|f| f["symbols"].as_array().unwrap().len()).sum();
    assert_eq!(response["functions"].as_array().unwrap().len(), listed, "{response:#}");
}

/// `--rerank llm`: the local model (SmolLM2 from PyPI) reorders the top
/// files. What it names goes first, marked as its pick; nothing is lost or
/// invented, since it can only name candidates. An endpoint that does not
/// answer leaves the order alone and says so.
#[test]
fn the_language_model_reranks_the_top_files() {
    let repo = Repo::new(SHOP);
    assert!(repo.ken(&["index", "."]).status.success());
    let report = "Cart.restore loses the items when the file has no items key";
    let paths = |response: &serde_json::Value| -> Vec<String> {
        response["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap().to_string()).collect()
    };
    let plain = json(&repo.ken(&["locate", report, "--json"]));

    let out = support::ken_env(repo.path(), &[("KEN_NO_EMBED", "1")], &["locate", report, "--json", "--rerank", "llm"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reranked = json(&out);
    assert!(!reranked["notes"].to_string().contains("language model"), "{reranked:#}");
    let (mut before, mut after) = (paths(&plain), paths(&reranked));
    let first = &reranked["files"][0]["evidence"][0];
    assert_eq!(first["kind"], "model", "{reranked:#}");
    assert!(first["detail"].as_str().unwrap().starts_with("the model's pick 1 of "), "{first}");
    before.sort();
    after.sort();
    assert_eq!(before, after, "the rerank only reorders");
    // The list across files follows the new order.
    assert_eq!(reranked["functions"][0]["path"], reranked["files"][0]["path"], "{reranked:#}");

    let down = support::ken_env(
        repo.path(),
        &[("KEN_NO_EMBED", "1"), ("KEN_LLM_BASE_URL", "http://127.0.0.1:9/v1"), ("KEN_LLM_MODEL", "none")],
        &["locate", report, "--json", "--rerank", "llm"],
    );
    assert!(down.status.success(), "{}", String::from_utf8_lossy(&down.stderr));
    let kept = json(&down);
    assert_eq!(paths(&kept), paths(&plain));
    assert!(kept["notes"].to_string().contains("rerank by the language model failed, order kept"), "{kept:#}");
}

/// `--explain`: each lane's ranking and each file's prior are enough to
/// redo the ranking (weight / (rrf_k + rank), summed, times the prior), so
/// weights can be tried without the index; the text shows the lanes.
#[test]
fn explain_gives_what_the_ranking_is_made_of() {
    let repo = Repo::new(SHOP);
    assert!(repo.ken(&["index", "."]).status.success());
    let report = "Session.refresh raises TokenExpired: token expired before refresh could run (see shop/auth.py)";
    let response = json(&repo.ken(&["locate", report, "--json", "--explain", "-k", "20"]));
    let explain = &response["explain"];
    let rrf_k = explain["rrf_k"].as_f64().unwrap();
    let mut scores: std::collections::BTreeMap<String, f64> = Default::default();
    for lane in explain["lanes"].as_array().unwrap() {
        let weight = lane["weight"].as_f64().unwrap();
        for (rank, path) in lane["files"].as_array().unwrap().iter().enumerate() {
            *scores.entry(path.as_str().unwrap().to_string()).or_default() += weight / (rrf_k + rank as f64 + 1.0);
        }
    }
    for prior in explain["priors"].as_array().unwrap() {
        if let Some(score) = scores.get_mut(prior["path"].as_str().unwrap()) {
            *score *= prior["prior"].as_f64().unwrap();
        }
    }
    let mut redone: Vec<(&String, &f64)> = scores.iter().filter(|(_, s)| **s > 0.0).collect();
    redone.sort_by(|a, b| b.1.total_cmp(a.1).then(a.0.cmp(b.0)));
    let ranked: Vec<&str> = response["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(redone.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(), ranked, "{explain:#}");
    for (file, score) in response["files"].as_array().unwrap().iter().zip(&redone) {
        assert!((file["score"].as_f64().unwrap() - score.1).abs() < 1e-4, "{file} against {score:?}");
    }
    // A test file weighs less, since the report is not about tests.
    assert!(explain["priors"].to_string().contains("tests/test_auth.py"), "{explain:#}");

    let text = String::from_utf8(repo.ken(&["locate", report, "--explain", "-k", "2"]).stdout).unwrap();
    let lanes = text.lines().skip_while(|l| !l.starts_with("lanes")).collect::<Vec<_>>().join("\n");
    expect![[r#"
        lanes (a file scores weight / (10 + rank), times its prior):
          paths (weight 2): shop/auth.py
          names (weight 0.5): shop/auth.py
          text (weight 2): shop/auth.py, tests/test_auth.py, shop/commands/migrate.py, shop/cart.py
          definitions (weight 2): tests/test_auth.py, shop/auth.py, shop/commands/migrate.py
          path_words (weight 1): shop/auth.py, tests/test_auth.py, shop/commands/migrate.py, shop/cart.py, shop/loader.py
    "#]]
    .assert_eq(&(lanes + "\n"));
}

const CLI_TOOL: &str = r#"
//- tool/options.py
def add_options(parser):
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--fail-fast", action="store_true")


def stop_on_first(args):
    return args.fail_fast and args.jobs == 1
//- tool/scheduler.py
class Scheduler:
    """Runs the remaining jobs on parallel workers; a failure is reported when its worker ends."""

    def run(self, jobs, workers):
        for job in jobs:
            self.start_worker(job)

    def start_worker(self, job):
        return job.run()
//- docs/recipes/parallel_jobs.py
# Recipe: keep the remaining jobs running on parallel workers after the first failure.
def run_remaining_jobs_on_parallel_workers(jobs, workers, failure):
    return [job for job in jobs if job is not failure]
//- tests/test_scheduler.py
def test_fail_fast_stops_the_remaining_workers(run):
    assert run("--fail-fast", "--jobs=4").stopped
"#;

#[test]
fn the_file_that_registers_an_option_is_where_it_is_read() {
    let repo = Repo::new(CLI_TOOL);
    assert!(repo.ken(&["index", "."]).status.success());
    // The scheduler says more of the report's words; the options file
    // quotes the option (checked: with `{"literals":0}` the scheduler
    // comes first). Code in a documentation directory is an example: it
    // says the most words, and comes after the code.
    check(
        &repo,
        "`--fail-fast` is ignored with `--jobs=4`\nThe remaining jobs keep running on the parallel workers after the first failure.",
        expect![[r#"
            tool/options.py (stop_on_first, add_options) | tool/scheduler.py (Scheduler, run) | docs/recipes/parallel_jobs.py (run_remaining_jobs_on_parallel_workers)
        "#]],
    );
}

/// A linter: one large checker, a small helper, and many tiny functional
/// tests (as pylint ships thousands).
fn linter() -> String {
    let visitors: String = (0..30)
        .map(|i| {
            format!(
                "    def visit_node_{i}(self, node):\n        scope = node.scope()\n        if scope.parent is None:\n            return self.add_message(\"node-{i}\", node=node)\n        return scope.lookup(node.name)\n\n"
            )
        })
        .collect();
    let tests: String = (0..60).map(|i| format!("//- tests/functional/case_{i}.py\nx_{i} = [{i}]\nprint(x_{i})\n")).collect();
    format!(
        r#"
//- lint/checker.py
class ConditionChecker:
    """Checks conditions and the values tested in them."""

{visitors}    def visit_if(self, node):
        value = node.test.inferred()
        if is_enum(value) and not self.enum_defines_bool(value):
            self.add_message("truthy-enum", node=node)

    def enum_defines_bool(self, enum):
        """An enum is truthy unless its class defines __bool__ or __len__."""
        return "__bool__" in enum.locals or "__len__" in enum.locals

    def visit_while(self, node):
        if is_enum(node.test.inferred()):
            self.add_message("truthy-enum", node=node)
//- lint/names.py
def message_name(enum_member):
    """The truthy message's name."""
    return enum_member.name.lower()
{tests}"#
    )
}

#[test]
fn a_large_implementation_file_is_not_long_beside_many_tiny_tests() {
    let repo = Repo::new(&linter());
    assert!(repo.ken(&["index", "."]).status.success());
    // The checker says the report's words most often. Measured against the
    // average of every file (60 tiny tests) it looked about 50 times too
    // long, and the helper that says each word once came first.
    check(
        &repo,
        "False positive for a truthy enum in a condition",
        expect![[r#"
            lint/checker.py (enum_defines_bool, visit_if) | lint/names.py (message_name)
        "#]],
    );
}

/// A type checker: one long file that defines the function at fault among
/// many others, and a short catalogue that says the report's words.
fn type_checker() -> String {
    let visitors: String = (0..30)
        .map(|i| {
            format!(
                "    def visit_expr_{i}(self, node):\n        scope = node.scope()\n        if scope.parent is None:\n            return self.fail(\"expr-{i}\", node)\n        return scope.lookup(node.name)\n\n"
            )
        })
        .collect();
    format!(
        r#"
//- types/checker.py
class TypeChecker:
    """Checks the types of a module's statements."""

{visitors}    def find_isinstance_check(self, node):
        """The types a call narrows its first argument to, if and else."""
        target = node.args[0]
        return self.narrow(target, node.args[1])

    def narrow(self, target, types):
        return [t for t in types if t is not target]
//- types/messages.py
# Messages about isinstance calls on unions.
BAD_ARGUMENT = "isinstance() of a union with None"
REDUNDANT_CAST = "the union holds None; isinstance narrows it"


def message(kind):
    """The isinstance message for a union."""
    return kind
"#
    )
}

#[test]
fn a_file_is_found_by_the_words_of_the_names_it_defines() {
    let repo = Repo::new(&type_checker());
    assert!(repo.ken(&["index", "."]).status.success());
    let report = "isinstance doesn't narrow unions containing None";
    // The catalogue says every word of the report in a few lines, so BM25
    // over whole files puts it first; the checker defines
    // `find_isinstance_check` and `narrow`.
    check(
        &repo,
        report,
        expect![[r#"
            types/checker.py (find_isinstance_check, visit_expr_0) | types/messages.py (message)
        "#]],
    );
    check_weighted(
        &repo,
        report,
        r#"{"definitions": 0}"#,
        expect![[r#"
            types/messages.py (message) | types/checker.py (find_isinstance_check, visit_expr_0)
        "#]],
    );
}

/// A name defined several times in one file (`@overload` stubs before the
/// body, a definition per branch of an `if`) is listed once: the body, which
/// is what a fix changes, and the slots it took go to other functions.
#[test]
fn a_function_with_overloads_is_listed_once_at_its_body() {
    let repo = Repo::new(
        r#"
//- approx/core.py
from typing import overload


@overload
def approx(expected: float) -> float: ...
@overload
def approx(expected: list) -> list: ...
def approx(expected):
    if isinstance(expected, list):
        return [approx(e) for e in expected]
    return round(expected, 6)


def tolerance(expected):
    return abs(expected) * 1e-6
//- approx/other.py
def unrelated():
    return 1
"#,
    );
    assert!(repo.ken(&["index", "."]).status.success());
    let report = "approx of a list loses the tolerance of each expected value";
    let out = repo.ken(&["locate", report, "--json", "-k", "1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let symbols: Vec<String> = json(&out)["files"][0]["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{} {}-{}", s["name"].as_str().unwrap(), s["start_line"], s["end_line"]))
        .collect();
    expect![[r#"
        approx 8-11, tolerance 14-15
    "#]]
    .assert_eq(&(symbols.join(", ") + "\n"));
}
