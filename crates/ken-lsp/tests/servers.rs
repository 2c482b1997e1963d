//! Against the real language servers: a function defined in one file and
//! called from functions in another. Each fixture puts a non-ASCII string
//! before a call on the same line, so position encodings are exercised.

mod common;

use common::{Fixture, bridge, require, spec};
use expect_test::{Expect, expect};
use ken_lsp::{Answer, Location, ServerSpec};
use std::fmt::Write;
use std::time::{Duration, SystemTime};

/// Warms the server on both files, then snapshots references and incoming
/// calls of the `$0` definition, and the definition seen from the `$1`
/// call; hover must mention the function.
async fn check(spec: ServerSpec, language: &str, name: &str, fixture: &str, expect: Expect) {
    require(&spec.command);
    let fx = Fixture::new(fixture);
    let bridge = bridge(fx.root(), spec);
    let def = fx.def(language, name);
    let call = fx.call(language, name);
    for path in [&def.path, &call.path] {
        bridge.warm(language, path).await.unwrap_or_else(|e| panic!("warm {path}: {e}"));
    }
    let mut out = String::new();

    let refs = bridge.references(&def).await.unwrap_or_else(|e| panic!("references: {e}"));
    writeln!(out, "server: {}", refs.server).unwrap();
    writeln!(out, "references of {}:{}:{}:", def.path, def.line, def.col).unwrap();
    for l in &refs.value {
        writeln!(out, "  {l}").unwrap();
    }

    let calls = bridge.incoming_calls(&def).await.unwrap_or_else(|e| panic!("incoming_calls: {e}"));
    match &calls.fallback {
        Some(note) => writeln!(out, "incoming calls ({note}):").unwrap(),
        None => writeln!(out, "incoming calls:").unwrap(),
    }
    for c in &calls.value {
        let from: Vec<String> = c.from.iter().map(|l| l.to_string()).collect();
        let kind = c.kind.as_deref().unwrap_or("?");
        writeln!(out, "  {} ({kind}) at {} from {}", c.name, c.location, from.join(", ")).unwrap();
    }

    let defs = bridge.definition(&call).await.unwrap_or_else(|e| panic!("definition: {e}"));
    writeln!(out, "definition from {}:{}:{}:", call.path, call.line, call.col).unwrap();
    for l in &defs.value {
        writeln!(out, "  {l}-{}:{}", l.end_line, l.end_col).unwrap();
    }

    let hover = bridge.hover(&def).await.unwrap_or_else(|e| panic!("hover: {e}"));
    let hover = hover.value.unwrap_or_default();
    assert!(hover.contains(name), "hover of {name} does not mention it:\n{hover}");

    bridge.shutdown().await;
    expect.assert_eq(&out);
}

const PYTHON: &str = r#"
//- /pkg/__init__.py
//- /pkg/util.py
import functools


@functools.lru_cache
$0def greet(name):
    """Greets someone."""
    return "hello " + name
//- /app.py
from pkg.util import greet


def main():
    print("héllo→", $1greet("wörld"))


class Shouter:
    def shout(self):
        return greet("WORLD").upper()


greet("module level")
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_pylsp() {
    check(
        spec("pylsp", &["python"], "pylsp", &[]),
        "python",
        "greet",
        PYTHON,
        expect![[r#"
            server: pylsp
            references of pkg/util.py:5:1:
              app.py:1:22
              app.py:5:24
              app.py:10:16
              app.py:13:1
              pkg/util.py:5:5
            incoming calls (callHierarchy unsupported by pylsp; used references):
              app.py (file) at app.py:1:1 from app.py:13:1
              main (function) at app.py:4:5 from app.py:5:24
              shout (method) at app.py:9:9 from app.py:10:16
            definition from app.py:5:24:
              pkg/util.py:5:5-5:10
        "#]],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_pyright() {
    check(
        spec("pyright", &["python"], "pyright-langserver", &["--stdio"]),
        "python",
        "greet",
        PYTHON,
        expect![[r#"
            server: pyright
            references of pkg/util.py:5:1:
              app.py:1:22
              app.py:5:24
              app.py:10:16
              app.py:13:1
            incoming calls:
              (module) app.py (module) at app.py:1:1 from app.py:13:1
              main (function) at app.py:4:5 from app.py:5:24
              shout (function) at app.py:9:9 from app.py:10:16
            definition from app.py:5:24:
              pkg/util.py:5:5-5:10
        "#]],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript() {
    check(
        spec("typescript-language-server", &["typescript", "tsx", "javascript"], "typescript-language-server", &["--stdio"]),
        "typescript",
        "greet",
        r#"
//- /tsconfig.json
{ "compilerOptions": { "target": "es2020", "module": "commonjs", "strict": true }, "include": ["src"] }
//- /src/util.ts
/** Greets someone. */
$0export function greet(name: string): string {
  return `hello ${name}`;
}
//- /src/app.ts
import { greet } from "./util";

export function main(): void {
  console.log("héllo→", $1greet("wörld"));
}

export class Shouter {
  shout(): string {
    return greet("WORLD").toUpperCase();
  }
}
"#,
        expect![[r#"
            server: typescript-language-server
            references of src/util.ts:2:1:
              src/app.ts:1:10
              src/app.ts:4:28
              src/app.ts:9:12
            incoming calls:
              main (function) at src/app.ts:3:17 from src/app.ts:4:28
              shout (method) at src/app.ts:8:3 from src/app.ts:9:12
            definition from src/app.ts:4:28:
              src/util.ts:2:17-2:22
        "#]],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn go() {
    // gopls loads packages through the `go` command.
    require("go");
    check(
        spec("gopls", &["go"], "gopls", &[]),
        "go",
        "Greet",
        r#"
//- /go.mod
module example.com/demo

go 1.19
//- /util/util.go
package util

// Greet greets someone.
$0func Greet(name string) string {
    return "hello " + name
}
//- /main.go
package main

import (
    "fmt"

    "example.com/demo/util"
)

func main() {
    fmt.Println("héllo→", util.$1Greet("wörld"))
}

func shout() string {
    return util.Greet("WORLD")
}
"#,
        expect![[r#"
            server: gopls
            references of util/util.go:4:1:
              main.go:10:35
              main.go:14:17
            incoming calls:
              main (function) at main.go:9:6 from main.go:10:35
              shout (function) at main.go:13:6 from main.go:14:17
            definition from main.go:10:35:
              util/util.go:4:6-4:11
        "#]],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c() {
    check(
        spec("clangd", &["c", "cpp"], "clangd", &[]),
        "c",
        "add",
        r#"
//- /compile_flags.txt
-std=c11
//- /util.h
int add(int a, int b);
//- /util.c
#include "util.h"

/* Adds. */
$0int add(int a, int b) {
    return a + b;
}
//- /main.c
#include <stdio.h>
#include "util.h"

int main(void) {
    printf("héllo→ %d\n", $1add(1, 2));
    return 0;
}

static int twice(int x) { return add(x, x); }
"#,
        expect![[r#"
            server: clangd
            references of util.c:4:1:
              main.c:5:30
              main.c:9:34
            incoming calls:
              main (function) at main.c:4:5 from main.c:5:30
              twice (function) at main.c:9:12 from main.c:9:34
            definition from main.c:5:30:
              util.c:4:5-4:8
        "#]],
    )
    .await;
}

/// A repeated question is answered from the cache until its file's mtime
/// moves; an edited file is re-sent, so the new call shows up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cache_serves_repeats_until_the_file_changes() {
    let spec = spec("pylsp", &["python"], "pylsp", &[]);
    require(&spec.command);
    let fx = Fixture::new(PYTHON);
    let bridge = bridge(fx.root(), spec);
    let def = fx.def("python", "greet");
    let util = fx.root().join(&def.path);
    bridge.warm("python", &def.path).await.unwrap();
    let show = |step: &str, a: Answer<Vec<Location>>| {
        let locs: Vec<String> = a.value.iter().map(|l| l.to_string()).collect();
        format!("{step}: cached={} [{}]\n", a.cached, locs.join(", "))
    };
    let set_mtime = |secs: u64| {
        let file = std::fs::File::options().write(true).open(&util).unwrap();
        file.set_modified(SystemTime::now() + Duration::from_secs(secs)).unwrap();
    };
    let mut out = String::new();
    out += &show("first", bridge.references(&def).await.unwrap());
    out += &show("again", bridge.references(&def).await.unwrap());
    set_mtime(10);
    out += &show("touched", bridge.references(&def).await.unwrap());
    let text = std::fs::read_to_string(&util).unwrap() + "\n\ndef again():\n    return greet(\"again\")\n";
    std::fs::write(&util, text).unwrap();
    set_mtime(20);
    out += &show("edited", bridge.references(&def).await.unwrap());
    out += &show("again", bridge.references(&def).await.unwrap());
    let status = &bridge.status()[0];
    writeln!(out, "requests={} cache_hits={}", status.requests, status.cache_hits).unwrap();
    bridge.shutdown().await;
    expect![[r#"
        first: cached=false [app.py:1:22, app.py:5:24, app.py:10:16, app.py:13:1, pkg/util.py:5:5]
        again: cached=true [app.py:1:22, app.py:5:24, app.py:10:16, app.py:13:1, pkg/util.py:5:5]
        touched: cached=false [app.py:1:22, app.py:5:24, app.py:10:16, app.py:13:1, pkg/util.py:5:5]
        edited: cached=false [app.py:1:22, app.py:5:24, app.py:10:16, app.py:13:1, pkg/util.py:5:5, pkg/util.py:11:12]
        again: cached=true [app.py:1:22, app.py:5:24, app.py:10:16, app.py:13:1, pkg/util.py:5:5, pkg/util.py:11:12]
        requests=3 cache_hits=2
    "#]]
    .assert_eq(&out);
}

/// `implementations` of the `$0` type, one line per server: the classes
/// derived from a class (tsserver answers transitively, clangd directly),
/// and `Unsupported` from a server without the provider.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn implementations_are_the_derived_types() {
    async fn implementations(spec: ServerSpec, language: &str, name: &str, fixture: &str) -> String {
        require(&spec.command);
        let fx = Fixture::new(fixture);
        let bridge = bridge(fx.root(), spec);
        let def = fx.def(language, name);
        bridge.warm(language, &def.path).await.unwrap_or_else(|e| panic!("warm {}: {e}", def.path));
        let answer = match bridge.implementations(&def).await {
            Ok(a) => format!("{}: {}", a.server, a.value.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(", ")),
            Err(e) => e.to_string(),
        };
        bridge.shutdown().await;
        answer + "\n"
    }
    let typescript = r#"
//- /tsconfig.json
{ "compilerOptions": { "target": "es2020", "strict": true }, "include": ["src"] }
//- /src/shapes.ts
$0export class Base {
  run(): number { return 1; }
}
export class Mid extends Base {}
//- /src/leaf.ts
import { Mid } from "./shapes";
export class Leaf extends Mid {
  run(): number { return 2; }
}
"#;
    let cpp = r#"
//- /compile_flags.txt
-std=c++17
//- /shapes.cpp
$0struct Base { virtual int run() { return 1; } };
struct Mid : Base {};
struct Leaf : Mid { int run() override { return 2; } };
"#;
    let python = "//- /shapes.py\n$0class Base:\n    pass\n\n\nclass Mid(Base):\n    pass\n";
    let mut out = String::new();
    let ts = ServerSpec::defaults().into_iter().find(|s| s.name == "typescript-language-server").expect("a default");
    out += &implementations(ts, "typescript", "Base", typescript).await;
    out += &implementations(spec("clangd", &["cpp"], "clangd", &[]), "cpp", "Base", cpp).await;
    out += &implementations(spec("pyright", &["python"], "pyright-langserver", &["--stdio"]), "python", "Base", python).await;
    expect![[r#"
        typescript-language-server: src/leaf.ts:2:14, src/shapes.ts:1:14, src/shapes.ts:4:14
        clangd: shapes.cpp:2:8
        pyright does not answer textDocument/implementation
    "#]]
    .assert_eq(&out);
}
