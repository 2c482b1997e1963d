//! The structural editor's moves, one case a fixture. `//- before/<path>`
//! and `//- after/<path>` hold a callable's definition before and after its
//! signature changed (the change is classified, its delta read), and
//! `//- calls/<path>` the code that calls it; the snapshot is that code
//! with every call carried to the new signature (a missing value passed by
//! its parameter's name), its imports following a rename, and then the
//! delta itself.

use expect_test::{Expect, expect};
use ken_change::diagnostics;
use ken_change::edit::{self, Param, SignatureDelta};
use std::path::Path;

fn delta_of(fixture: &str) -> (Vec<(String, String)>, SignatureDelta) {
    let files = ken_test_support::files(fixture);
    let side = |prefix: &str| files.iter().find(|(p, _)| p.starts_with(prefix)).map(|(p, t)| (p[prefix.len()..].to_string(), t.clone()));
    let (path, before) = side("before/").expect("a before/ file");
    let (_, after) = side("after/").expect("an after/ file");
    let language = ken_lang::detect(Path::new(&path)).expect("a known language");
    let changes = ken_change::classify(&path, language, &before, &after);
    let deltas = edit::signature_deltas(&path, language, &before, &after, &changes);
    assert_eq!(deltas.len(), 1, "one signature change expected: {changes:#?}");
    let calls = files.into_iter().filter(|(p, _)| p.starts_with("calls/")).map(|(p, t)| (p["calls/".len()..].to_string(), t)).collect();
    (calls, deltas.into_iter().next().unwrap().1)
}

fn describe(delta: &SignatureDelta) -> String {
    let params = |ps: &[(usize, Param)]| ps.iter().map(|(i, p)| format!("{i}:{}", p.text)).collect::<Vec<_>>().join(", ");
    let renamed = if delta.name == delta.new_name { String::new() } else { format!(" -> {}", delta.new_name) };
    let moved: Vec<String> = delta.renamed.iter().map(|(a, b)| format!("{a}->{b}")).collect();
    format!("{}{renamed} +[{}] -[{}] ~[{}]", delta.name, params(&delta.added), params(&delta.removed), moved.join(", "))
}

fn check(fixture: &str, expect: Expect) {
    let (calls, delta) = delta_of(fixture);
    let mut out = String::new();
    for (path, text) in calls {
        let language = ken_lang::detect(Path::new(&path)).expect("a known language");
        let callee = delta.name.clone();
        let once = edit::update_calls(language, &text, 0..text.len(), &callee, &delta, None, &|p| p.name.clone()).expect("parses");
        // A delta applied twice changes nothing.
        let twice = edit::update_calls(language, &once.text, 0..once.text.len(), &callee, &delta, None, &|p| p.name.clone()).unwrap();
        assert_eq!(twice.text, once.text, "applied twice to {path}");
        let mut text = once.text;
        if delta.new_name != delta.name
            && let Some(renamed) = edit::rename_imports(language, &text, &delta.name, &delta.new_name)
        {
            text = renamed;
        }
        assert_eq!(edit::syntax_errors(language, &text), Some(0), "{path}:\n{text}");
        out.push_str(&format!("{path} ({} calls)\n{text}", once.calls));
    }
    out.push_str(&describe(&delta));
    out.push('\n');
    expect.assert_eq(&out);
}

#[test]
fn python_parameters_reach_the_calls() {
    check(
        r#"
//- before/net.py
def fetch(url, retries=3):
    pass
//- after/net.py
def fetch(url, timeout, retries=3):
    pass
//- calls/app.py
from net import fetch
def load(u):
    a = fetch(u)
    b = fetch(u, 5)
    return fetch(url=u), a, b
"#,
        expect![[r#"
            app.py (3 calls)
            from net import fetch
            def load(u):
                a = fetch(u, timeout)
                b = fetch(u, timeout, 5)
                return fetch(url=u, timeout=timeout), a, b
            fetch +[1:timeout] -[] ~[]
        "#]],
    );
    check(
        r#"
//- before/net.py
class Client:
    def get(self, url, verbose, *, retries=3):
        pass
//- after/net.py
class Client:
    def get(self, url, *, retries=3, tag):
        pass
//- calls/app.py
def run(c):
    c.get("a", True)
    c.get("b", verbose=False, retries=1)
    return c.get("c", False, tag=1)
"#,
        expect![[r#"
            app.py (3 calls)
            def run(c):
                c.get("a", tag=tag)
                c.get("b", retries=1, tag=tag)
                return c.get("c", tag=1)
            get +[2:tag] -[1:verbose] ~[]
        "#]],
    );
    check(
        r#"
//- before/net.py
def fetch(url, timeout):
    pass
//- after/net.py
def fetch(url, deadline):
    pass
//- calls/app.py
def load(u):
    return fetch(u, 1) + fetch(u, timeout=2)
"#,
        expect![[r#"
            app.py (1 calls)
            def load(u):
                return fetch(u, 1) + fetch(u, deadline=2)
            fetch +[] -[] ~[timeout->deadline]
        "#]],
    );
}

#[test]
fn a_rename_reaches_the_calls_and_imports() {
    check(
        r#"
//- before/net.py
def fetch(url):
    pass
//- after/net.py
def download(url):
    pass
//- calls/app.py
from net import fetch, other
import net
def load(u):
    return fetch(u) + net.fetch(u)
"#,
        expect![[r#"
            app.py (2 calls)
            from net import download, other
            import net
            def load(u):
                return download(u) + net.download(u)
            fetch -> download +[] -[] ~[]
        "#]],
    );
    check(
        r#"
//- before/src/net.ts
export function fetchAll(urls: string[]): void {}
//- after/src/net.ts
export function loadAll(urls: string[]): void {}
//- calls/src/app.ts
import { fetchAll } from "./net";
export function main(): void {
  fetchAll(["a"]);
}
"#,
        expect![[r#"
            src/app.ts (1 calls)
            import { loadAll } from "./net";
            export function main(): void {
              loadAll(["a"]);
            }
            fetchAll -> loadAll +[] -[] ~[]
        "#]],
    );
}

#[test]
fn other_languages_pass_the_new_argument_in_place() {
    check(
        r#"
//- before/src/pool.rs
impl Pool {
    pub fn grow(&mut self, by: usize) {}
}
//- after/src/pool.rs
impl Pool {
    pub fn grow(&mut self, by: usize, limit: usize) {}
}
//- calls/src/main.rs
fn main() {
    let mut p = Pool::new();
    p.grow(2);
    Pool::grow(&mut p, 3);
    assert!(p.grow(4) == ());
}
"#,
        expect![[r#"
            src/main.rs (3 calls)
            fn main() {
                let mut p = Pool::new();
                p.grow(2, limit);
                Pool::grow(&mut p, 3, limit);
                assert!(p.grow(4, limit) == ());
            }
            grow +[1:limit: usize] -[] ~[]
        "#]],
    );
    check(
        r#"
//- before/src/cart.js
export function total(items, tax) { return 0; }
//- after/src/cart.js
export function total(items) { return 0; }
//- calls/src/app.js
const t = total([1], 0.2) + total([], 0);
"#,
        expect![[r#"
            src/app.js (2 calls)
            const t = total([1]) + total([]);
            total +[] -[1:tax] ~[]
        "#]],
    );
    check(
        r#"
//- before/pool.go
package pool
func Grow(p *Pool, by int) {}
//- after/pool.go
package pool
func Grow(ctx context.Context, p *Pool, by int) {}
//- calls/main.go
package main
func main() {
	pool.Grow(p, 2)
}
"#,
        expect![[r#"
            main.go (1 calls)
            package main
            func main() {
            	pool.Grow(ctx, p, 2)
            }
            Grow +[0:ctx context.Context] -[] ~[]
        "#]],
    );
    check(
        r#"
//- before/Cart.java
class Cart {
    int total(int tax) { return 0; }
}
//- after/Cart.java
class Cart {
    int total(int tax, int discount) { return 0; }
}
//- calls/Shop.java
class Shop {
    int run(Cart c) { return c.total(1); }
}
"#,
        expect![[r#"
            Shop.java (1 calls)
            class Shop {
                int run(Cart c) { return c.total(1, discount); }
            }
            total +[1:int discount] -[] ~[]
        "#]],
    );
}

fn mirror(language: &str, source: &str, name: &str, name_line: u32, added: &[&str], expect: Expect) {
    let language = ken_lang::detect(Path::new(&format!("x.{language}"))).unwrap();
    let delta = SignatureDelta {
        name: name.into(),
        new_name: name.into(),
        added: added
            .iter()
            .map(|a| {
                (
                    0,
                    Param {
                        name: a.split([':', '=', ' ']).next().unwrap().into(),
                        text: a.to_string(),
                        has_default: a.contains('='),
                        keyword_only: false,
                        variadic: false,
                    },
                )
            })
            .collect(),
        removed: Vec::new(),
        renamed: Vec::new(),
        accepts: None,
        receiver: false,
        moved: None,
    };
    let out = edit::mirror_signature(language, source, name, name_line, &delta).expect("a definition");
    assert_eq!(edit::syntax_errors(language, &out), Some(0), "{out}");
    expect.assert_eq(&out);
}

/// An override (or a caller taking on a value) gets the parameter where the
/// language allows it: before `**kwargs`, keyword-only after a default, after `&self`.
#[test]
fn signatures_take_on_parameters() {
    mirror(
        "py",
        "def get(url, params=None, **kwargs):\n    pass\n",
        "get",
        1,
        &["timeout"],
        expect![[r#"
        def get(url, params=None, *, timeout, **kwargs):
            pass
    "#]],
    );
    mirror(
        "py",
        "class C:\n    def run(self):\n        pass\n",
        "run",
        2,
        &["x=1"],
        expect![[r#"
        class C:
            def run(self, x=1):
                pass
    "#]],
    );
    mirror(
        "rs",
        "impl P {\n    fn f(&self) {}\n}\n",
        "f",
        2,
        &["n: usize"],
        expect![[r#"
        impl P {
            fn f(&self, n: usize) {}
        }
    "#]],
    );
    mirror(
        "ts",
        "function f(): void {}\n",
        "f",
        1,
        &["n: number"],
        expect![[r#"
        function f(n: number): void {}
    "#]],
    );
    // Overloads follow the implementation; a required parameter goes before optional ones.
    mirror(
        "ts",
        "export function from(input: number): number;\n/** old */\nexport function from(input: string): number;\nexport function from(input: any, scheduler?: S): number { return 0; }\n",
        "from",
        4,
        &["n: number"],
        expect![[r#"
            export function from(input: number, n: number): number;
            /** old */
            export function from(input: string, n: number): number;
            export function from(input: any, n: number, scheduler?: S): number { return 0; }
        "#]],
    );
}

#[test]
fn oracles_errors_are_read_from_what_they_print() {
    let check = |output: &str, expect: Expect| {
        let found = diagnostics::parse(output, "/work/repo");
        expect.assert_eq(&found.iter().map(|d| format!("{}:{}: {}\n", d.path, d.line, d.message)).collect::<String>());
    };
    let pyright = r#"{"version": "1.1.408", "generalDiagnostics": [
        {"file": "/work/repo/app.py", "severity": "error", "message": "Argument missing for parameter \"x\"", "range": {"start": {"line": 4, "character": 1}}},
        {"file": "/work/repo/app.py", "severity": "warning", "message": "unused", "range": {"start": {"line": 1, "character": 0}}},
        {"file": "/elsewhere/site.py", "severity": "error", "message": "outside", "range": {"start": {"line": 1, "character": 0}}}]}"#;
    check(
        pyright,
        expect![[r#"
        app.py:5: Argument missing for parameter "x"
    "#]],
    );
    check(
        "src/app.ts(3,7): error TS2554: Expected 2 arguments, but got 1.\nsrc/app.ts(9,1): warning TS6133: unused\n",
        expect![[r#"
        src/app.ts:3: TS2554: Expected 2 arguments, but got 1.
    "#]],
    );
    let cargo = r#"{"reason":"compiler-message","message":{"level":"error","message":"this function takes 2 arguments but 1 argument was supplied","spans":[{"file_name":"src/main.rs","line_start":6,"is_primary":true}]}}
{"reason":"compiler-message","message":{"level":"warning","message":"unused variable","spans":[{"file_name":"src/main.rs","line_start":2,"is_primary":true}]}}
{"reason":"build-finished","success":false}"#;
    check(
        cargo,
        expect![[r#"
        src/main.rs:6: this function takes 2 arguments but 1 argument was supplied
    "#]],
    );
    check(
        "# example.com/m\n./main.go:4:11: not enough arguments in call to pool.Grow\n",
        expect![[r#"
        main.go:4: not enough arguments in call to pool.Grow
    "#]],
    );
    check(
        "app.py:3: error: Missing positional argument \"x\" in call to \"f\"  [call-arg]\napp.py:9: note: see here\n",
        expect![[r#"
        app.py:3: Missing positional argument "x" in call to "f"  [call-arg]
    "#]],
    );
    let before = diagnostics::parse("a.py:1: error: old\na.py:2: error: same\n", "/r");
    let after = diagnostics::parse("a.py:1: error: old\na.py:7: error: same\na.py:8: error: same\n", "/r");
    assert_eq!(diagnostics::new_errors(&before, &after).len(), 1, "matched by message, not line");
}

/// A function moved to another file: `//- before/` and `//- after/` hold
/// both files; `//- calls/` the importers, whose imports follow it.
fn check_move(fixture: &str, expect: Expect) {
    let files = ken_test_support::files(fixture);
    let side = |prefix: &str| -> Vec<(String, String)> {
        files.iter().filter_map(|(p, t)| p.strip_prefix(prefix).map(|p| (p.to_string(), t.clone()))).collect()
    };
    let (before, after) = (side("before/"), side("after/"));
    let mut changes = Vec::new();
    for (path, old) in &before {
        let new = &after.iter().find(|(p, _)| p == path).expect("both sides").1;
        let language = ken_lang::detect(Path::new(path)).unwrap();
        changes.extend(ken_change::classify(path, language, old, new).into_iter().map(|c| (path.clone(), c)));
    }
    let moves = edit::moves(&changes);
    assert_eq!(moves.len(), 1, "{changes:#?}");
    let delta = &moves[0].1;
    let moved = delta.moved.as_ref().unwrap();
    let mut out = format!("{} {} -> {}\n", delta.name, moved.from_module, moved.to_module);
    for (path, text) in side("calls/") {
        let language = ken_lang::detect(Path::new(&path)).unwrap();
        let module = path.trim_end_matches(".py").trim_end_matches("/__init__").replace('/', ".");
        let edited = edit::move_imports(language, &text, &path, &module, &delta.name, moved).unwrap_or_else(|| text.clone());
        assert_eq!(edit::syntax_errors(language, &edited), Some(0), "{edited}");
        out.push_str(&format!("{path}\n{edited}"));
    }
    expect.assert_eq(&out);
}

#[test]
fn a_moved_function_takes_its_imports_along() {
    check_move(
        r#"
//- before/pkg/a.py
def fetch(url):
    pass


def keep():
    pass
//- after/pkg/a.py
def keep():
    pass
//- before/pkg/net/b.py
X = 1
//- after/pkg/net/b.py
X = 1


def fetch(url):
    pass
//- calls/pkg/app.py
from pkg.a import fetch
def load(u):
    from .a import keep, fetch as get
    return fetch(u), get(u)
//- calls/pkg/other.py
from pkg.b import fetch
"#,
        expect![[r#"
            fetch pkg.a -> pkg.net.b
            pkg/app.py
            from pkg.net.b import fetch
            def load(u):
                from .a import keep
                from .net.b import fetch as get
                return fetch(u), get(u)
            pkg/other.py
            from pkg.b import fetch
        "#]],
    );
    check_move(
        r#"
//- before/src/a.ts
export function fetchAll(): void {}
export function keep(): void {}
//- after/src/a.ts
export function keep(): void {}
//- before/src/lib/b.ts
export const x = 1;
//- after/src/lib/b.ts
export const x = 1;
export function fetchAll(): void {}
//- calls/src/app.ts
import { keep, fetchAll } from "./a";
import { fetchAll as f } from './a.js';
"#,
        expect![[r#"
            fetchAll src/a -> src/lib/b
            src/app.ts
            import { keep } from "./a";
            import { fetchAll } from "./lib/b";
            import { fetchAll as f } from './lib/b.js';
        "#]],
    );
}
