#!/usr/bin/env python3
"""Per-language mining benchmark (driven by bench/languages.sh).

For every programming language Kenning mines: fetch a pinned real package
(PyPI, npm, crates.io or a Debian source package) into
bench/.cache/languages, copy only that language's files into a corpus of its
own, time `ken index --no-embed --json` cold (a fresh index directory each
run) and Universal Ctags over the same directory, count the definitions each
finds, and print a table and bench/results/languages.json.

What is counted:
- ken: the symbols of that language in the index it just built, by kind,
  from its SQLite store, leaving out fields (ctags's members and fields are
  left out too) and the per-file module symbol ken adds for every file (an
  empty local path; not a definition in the source). The total is checked
  against the `symbols` of the --json summary.
- ctags: `ctags -R --language-force=L --kinds-C=+p --kinds-C++=+p
  --output-format=json --fields=+KnzZSt`, definition tags of the kinds in
  CTAGS_KINDS (per language, with the rule for constants), with anonymous
  tags (`__anon…`, `AnonymousFunction…`, R's `anonFunc…`) left out and,
  for Elixir and Haskell, consecutive clauses of one function counted once.
"""
import argparse
import json
import os
import platform
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

import sweep  # the crash sweep's fetching: registries, caching, safe unpacking (bench/sweep.py)
from sweep import FetchError, extract

# ----------------------------------------------------------------- the pins

# language, registry, package, exact version, sub-directories of the
# package's sources to take the language's files from. `deb-src` is a Debian
# source package (its upstream tarball); `deb` a binary package, for the two
# whose source tarballs the archive mirror here does not serve (404): Ruby and
# Lua packages ship their sources as they are.
PINS = [
    ("python", "pypi", "requests", "2.32.3", ["requests"]),
    ("javascript", "npm", "express", "4.21.2", ["lib"]),
    ("typescript", "npm", "rxjs", "7.8.1", ["src"]),
    ("rust", "crates", "tokio", "1.41.1", ["src"]),
    ("go", "deb-src", "golang-github-spf13-cobra", "1.6.1-1", ["."]),
    ("java", "deb-src", "libcommons-lang3-java", "3.12.0-2+deb12u1", ["src/main/java"]),
    ("csharp", "pypi-sdist", "pythonnet", "3.0.5", ["src/runtime"]),
    ("c", "deb-src", "lua5.4", "5.4.4-3+deb12u1", ["src"]),
    ("cpp", "deb-src", "fmtlib", "9.1.0+ds1-2", ["."]),
    ("ruby", "deb", "ruby-rack", "2.2.22-0+deb12u2", ["usr/share/rubygems-integration/all/gems/rack-2.2.22/lib"]),
    ("php", "deb-src", "php-monolog", "2.9.1-1", ["src"]),
    ("bash", "npm", "bats", "1.13.0", ["."]),
    ("kotlin", "npm", "expo-modules-core", "1.12.26", ["android"]),
    ("swift", "npm", "expo-modules-core", "1.12.26", ["ios"]),
    ("scala", "deb-src", "scala", "2.11.12-5", ["src/library"]),
    ("lua", "deb", "lua-penlight", "1.13.1-3", ["usr/share/lua/5.1/pl"]),
    ("zig", "pypi", "ziglang", "0.13.0", ["ziglang/lib/std/crypto"]),
    ("elixir", "deb-src", "elixir-lang", "1.14.0.dfsg-2", ["lib/elixir/lib"]),
    ("haskell", "deb-src", "haskell-aeson", "2.0.3.0-1", ["."]),
    ("objc", "deb-src", "gnustep-base", "1.28.1+really1.28.0-5", ["Tools"]),
    ("dart", "deb-src", "thrift", "0.17.0-2", ["lib/dart"]),
    ("r", "deb-src", "r-cran-ggplot2", "3.4.1+dfsg-1", ["R"]),
    ("julia", "deb-src", "gmsh", "4.8.4+ds2-3", ["."]),
    ("ocaml", "deb-src", "ocamlgraph", "2.0.0-3", ["src"]),
    ("sql", "deb-src", "postgresql-15", "15.18-0+deb12u1", ["src/backend/catalog", "contrib"]),
    ("hcl", "pypi", "nebari", "2025.10.1", ["_nebari/stages"]),
    ("vue", "npm", "element-ui", "2.15.14", ["packages"]),
    ("svelte", "npm", "carbon-components-svelte", "0.112.1", ["src"]),
]

# File extensions per language: crates/ken-lang/src/lib.rs. C++ headers
# named `.h` are mined as C there, so the C++ corpus leaves them out.
EXTENSIONS = {
    "python": ["py", "pyi"],
    "javascript": ["js", "mjs", "cjs", "jsx"],
    "typescript": ["ts", "mts", "cts"],
    "rust": ["rs"],
    "go": ["go"],
    "java": ["java"],
    "csharp": ["cs"],
    "c": ["c", "h"],
    "cpp": ["cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp"],
    "ruby": ["rb", "rake", "gemspec"],
    "php": ["php"],
    "bash": ["sh", "bash", "bats", "zsh", "ksh"],
    "kotlin": ["kt", "kts"],
    "swift": ["swift"],
    "scala": ["scala", "sc"],
    "lua": ["lua"],
    "zig": ["zig"],
    "elixir": ["ex", "exs"],
    "haskell": ["hs"],
    # `.m` and `.h` only with an Objective-C marker line (CONTENT below).
    "objc": ["m", "mm", "h"],
    "dart": ["dart"],
    "r": ["r"],
    "julia": ["jl"],
    # `.mli` signatures are another language to ken (ocaml_interface): left out.
    "ocaml": ["ml"],
    "sql": ["sql"],
    "hcl": ["tf", "tfvars", "hcl"],
    "vue": ["vue"],
    "svelte": ["svelte"],
}
# Extension-less scripts ken recognises by their `#!` line (ken-lang's
# `classify`); only Bash's matter in these corpora.
SHEBANGS = {"bash": re.compile(rb"^#!\s*(/usr)?/bin/(env\s+)?(ba|z|k|da)?sh\b")}
# Extensions several languages share, taken only when the content says so
# (ken-lang's BY_CONTENT): a `.m` or `.h` file is Objective-C when a line
# starts with one of its markers (MATLAB's `.m` files and C headers are not).
CONTENT = {"objc": ({".m", ".h"}, re.compile(rb"^(@interface|@implementation|@protocol|@class|#import|@import)", re.M))}

CTAGS_LANGUAGE = {
    "python": "Python", "javascript": "JavaScript", "typescript": "TypeScript", "rust": "Rust",
    "go": "Go", "java": "Java", "csharp": "C#", "c": "C", "cpp": "C++", "ruby": "Ruby",
    "php": "PHP", "bash": "Sh", "kotlin": "Kotlin", "lua": "Lua", "elixir": "Elixir",
    "haskell": "Haskell", "objc": "ObjectiveC", "r": "R", "julia": "Julia", "ocaml": "OCaml", "sql": "SQL",
}
# ctags 5.9 (Debian bookworm) has no parser for these.
CTAGS_MISSING = {"swift", "scala", "zig", "dart", "hcl", "vue", "svelte"}

UPPER = re.compile(r"^_*[A-Z][A-Z0-9_]*$")
# ctags's TypeScript parser loses the scope of a `const` in a method body:
# judge by the line (not indented) instead.
TOP_LEVEL = lambda t: "scope" not in t and re.match(r"(export\s+)?(declare\s+)?const\b", t["source_line"]) is not None
# ctags's Ruby parser also tags constants used as hash keys (`X => 1`).
ASSIGNED = lambda t: re.search(r"\b" + re.escape(t["name"]) + r"\s*(\|\||&&)?=(?![=>~])", t["source_line"]) is not None
ANON_TYPEDEF = lambda t: re.match(r"(struct|union|enum):__anon", t.get("typeref", "")) is not None
MACRO_WITH_VALUE = lambda t: re.search(r"define\s+\w+(\(|\s+\S)", t["source_line"]) is not None
TOP_LEVEL_PROPERTY = lambda t: re.match(r"((private|internal|public|const|lateinit|@\w+)\s+)*(val|var)\b",
                                         t["source_line"]) is not None
# R and OCaml constants as ken defines them: bound to a literal.
R_CONSTANT = lambda t: ("scope" not in t and re.match(r"^[A-Z][A-Z0-9_.]*$", t["name"]) is not None
                        and re.search(r"(<-|=)\s*([0-9]|\.[0-9]|[\"']|TRUE\b|FALSE\b)", t["source_line"]) is not None)
OCAML_CONSTANT = lambda t: re.search(r"\blet\s+[a-z_][\w']*\s*(:[^=]*)?=\s*([0-9]|[\"\[{]|-[0-9])",
                                     t["source_line"]) is not None
# Objective-C methods ken mines: defined in an @implementation (a class's or
# a category's) or declared in a @protocol, not declared in an @interface.
OBJC_METHOD = lambda t: t.get("scopeKind") in ("implementation", "protocol")
CLAUSES = {"elixir", "haskell"}


def _line_has(*words):
    """The tag's source line (ctags's pattern may be cut short) has these words."""
    rx = [re.compile(r"\b" + w + r"\b") for w in words]
    return lambda t: all(r.search(t["source_line"]) for r in rx)


# Per language: ctags kind -> None (every tag of that kind) or a predicate
# on the tag (for kinds that mix constants with variables or fields).
CTAGS_KINDS = {
    # `member` is a method in ctags's Python parser; constants as ken defines
    # them: upper-case names assigned at module level.
    "python": {"class": None, "function": None, "member": None,
               "variable": lambda t: "scope" not in t and UPPER.match(t["name"])},
    # Constants: top-level `const` declarations.
    "javascript": {"class": None, "function": None, "method": None, "generator": None,
                   "getter": None, "setter": None, "constant": TOP_LEVEL},
    "typescript": {"class": None, "interface": None, "enum": None, "namespace": None,
                   "function": None, "method": None, "generator": None, "constant": TOP_LEVEL,
                   "alias": None},
    # `variable` is a const or static item; enum variants are ken constants;
    # modules with a body (`mod x;` names a file, ken's per-file module);
    # macro_rules! definitions; type aliases of a module, not an impl's or a
    # trait's associated types. (ctags does not look inside `cfg_rt! { … }`,
    # which ken does.)
    "rust": {"struct": None, "enum": None, "interface": None, "module": lambda t: "{" in t["source_line"],
             "function": None, "method": None, "variable": None, "enumerator": None, "macro": None,
             "typedef": lambda t: t.get("scopeKind") in (None, "module")},
    # `methodSpec` is an interface method; `type` a defined type, `talias` an alias.
    "go": {"struct": None, "interface": None, "type": None, "talias": None, "func": None,
           "methodSpec": None, "const": None},
    # Constants: enum constants, `static final` fields and interface fields.
    "java": {"class": None, "interface": None, "enum": None, "annotation": None, "method": None,
             "enumConstant": None,
             "field": lambda t: t.get("scopeKind") == "interface" or _line_has("static", "final")(t)},
    "csharp": {"class": None, "struct": None, "interface": None, "enum": None, "method": None,
               "enumerator": None, "field": _line_has("const")},
    # Prototypes count (ken mines declarations as functions); macros with a
    # value or parameters (not include guards); enumerators; file-level
    # `const` objects; a typedef only when it names an anonymous struct, union
    # or enum (`typedef struct {…} T`, which ken mines as that struct).
    "c": {"struct": None, "union": None, "enum": None, "typedef": ANON_TYPEDEF, "function": None,
          "prototype": None, "macro": MACRO_WITH_VALUE, "enumerator": None, "variable": _line_has("const")},
    "cpp": {"class": None, "struct": None, "union": None, "enum": None, "typedef": ANON_TYPEDEF,
            "function": None, "prototype": None, "macro": MACRO_WITH_VALUE, "enumerator": None,
            "variable": _line_has("const")},
    # Constants: assigned ones.
    "ruby": {"class": None, "module": None, "method": None, "singletonMethod": None, "constant": ASSIGNED},
    # ctags's `function` covers methods; `define` covers define() and const.
    "php": {"class": None, "interface": None, "trait": None, "function": None, "define": None},
    # ctags 5.9 takes `local a=()` for a function named `a=`.
    "bash": {"function": lambda t: not t["name"].endswith("=")},
    # ctags's `constant` is every `val` (locals, properties and constructor
    # parameters too) and its scopes go astray: top-level `val` and `var` are
    # judged by the line (a declaration, not indented). ctags also makes
    # methods of lambdas and of their parameters (`{ x -> … }`): left out.
    "kotlin": {"class": None, "interface": None, "object": None,
               "method": lambda t: "<lambda>" not in t["name"] + "." + t.get("scope", ""),
               "constant": TOP_LEVEL_PROPERTY, "variable": TOP_LEVEL_PROPERTY},
    "lua": {"function": None},
    # Consecutive clauses of one function count once (as ken merges them).
    "elixir": {"module": None, "protocol": None, "function": None, "macro": None,
               "delegate": None, "guard": None, "operator": None},
    # The `module X where` header is ken's per-file module, not counted.
    "haskell": {"type": None, "constructor": None, "function": None},
    # `interface` is an @interface, also of a category (`@interface C (Cat)`,
    # which ken leaves to C's): left out by its parenthesis; `class` is a
    # class (`+`) method; `var` a file-level variable, counted when
    # initialised (ken's constants). Not macros, typedefs, structs and enums,
    # which ken does not mine in Objective-C.
    "objc": {"interface": lambda t: "(" not in t["source_line"], "protocol": None, "method": OBJC_METHOD,
             "class": OBJC_METHOD, "function": None, "var": lambda t: "=" in t["source_line"]},
    # `function` is every `f <- function(...)` (nested ones too); constants:
    # top-level upper-case names bound to a literal. `class`, `method` and
    # `generic` come from ctags's R6Class and S4Class sub-parsers.
    "r": {"function": None, "globalVar": R_CONSTANT, "class": None, "method": None, "generic": None},
    # `type` is an abstract type (ken's interface); `macro` a macro (a ken function).
    "julia": {"module": None, "struct": None, "type": None, "function": None, "macro": None, "constant": None},
    # `Constructor` is a variant's constructor (ken's constants), `Exception`
    # an exception (ken's class), `val` a signature's value; `var` a `let`
    # without parameters, counted when bound to a literal.
    "ocaml": {"module": None, "type": None, "Constructor": None, "Exception": None, "function": None,
              "val": None, "class": None, "method": None, "var": OCAML_CONSTANT},
    # Tables, views, functions and indexes (not procedures: ken's grammar does
    # not parse CREATE PROCEDURE; not columns, ken's fields).
    "sql": {"table": None, "view": None, "function": None, "index": None},
}

KEN_KINDS = ["module", "class", "struct", "interface", "trait", "enum", "function", "method",
             "constructor", "constant"]


# ----------------------------------------------------------------- fetching

def run_fetch(cmd, cwd=None, timeout=900):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise FetchError(f"{cmd[0]} timed out after {timeout} s")
    except FileNotFoundError:
        raise FetchError(f"{cmd[0]} is not installed")
    if p.returncode != 0:
        lines = [l for l in (p.stderr or p.stdout).strip().splitlines() if l.strip()]
        errors = [l for l in lines if l.startswith("E:")]  # apt's first error names the file
        shown = [a for i, a in enumerate(cmd) if a != "-o" and (i == 0 or cmd[i - 1] != "-o")]
        raise FetchError(f"{' '.join(shown)}: exit {p.returncode}: "
                         f"{errors[0] if errors else lines[-1] if lines else ''}"[:400])
    return p.stdout


class Apt:
    """Debian source packages without touching the system's apt state: a
    private sources.list (deb-src bookworm main), lists and cache under the
    benchmark's cache."""

    def __init__(self, root):
        self.root = root
        self.updated = False
        self.system_updated = False
        self.opts = ["-o", f"Dir::Etc::SourceList={root}/sources.list", "-o", "Dir::Etc::SourceParts=/dev/null",
                     "-o", f"Dir::State::Lists={root}/lists", "-o", f"Dir::Cache={root}/cache"]

    def _setup(self):
        for d in ("lists/partial", "cache/archives/partial"):
            os.makedirs(os.path.join(self.root, d), exist_ok=True)
        with open(os.path.join(self.root, "sources.list"), "w") as f:
            f.write("deb-src http://deb.debian.org/debian bookworm main\n")

    def versions(self, name):
        out = subprocess.run(["apt-cache", *self.opts, "showsrc", name], capture_output=True, text=True).stdout
        return re.findall(r"^Version: (\S+)", out, re.M)

    def source(self, name, version, dest):
        self._setup()
        if version not in self.versions(name) and not self.updated:
            run_fetch(["apt-get", *self.opts, "-qq", "update"])
            self.updated = True
        have = self.versions(name)
        if version not in have:
            raise FetchError(f"Debian bookworm has no source {name}={version}"
                             + (f" (it has {', '.join(have)}: bump the pin)" if have else ""))
        run_fetch(["apt-get", *self.opts, "-qq", "source", "--download-only", f"{name}={version}"], cwd=dest)


def fetch(pin, cache, apt):
    """Returns the directory holding the package's sources, fetched once:
    Debian source packages here, every other registry through the sweep's
    fetcher (wheels, sdists, npm, crates, binary .debs)."""
    _, reg, name, ver, _ = pin
    if reg != "deb-src":
        return sweep.fetch({"registry": reg, "name": name, "version": ver}, os.path.join(cache, "src"))
    base = os.path.join(cache, "src", f"{reg}-{name}-{ver}")
    src = os.path.join(base, "src")
    if os.path.exists(os.path.join(base, ".complete")):
        return src
    shutil.rmtree(base, ignore_errors=True)
    dl = os.path.join(base, "dl")
    os.makedirs(dl)
    apt.source(name, ver, dl)
    # The upstream tarball(s): `.orig.tar.*` (and `.orig-COMPONENT.tar.*`),
    # or the whole tarball of a native package; never debian/ packaging nor
    # an upstream signature (`.orig.tar.gz.asc`).
    tars = sorted(f for f in os.listdir(dl) if ".tar." in f and ".debian.tar." not in f and not f.endswith(".asc"))
    if not tars:
        raise FetchError(f"apt-get source downloaded no tarball for {name}={ver}: {os.listdir(dl)}")
    for t in tars:
        extract(os.path.join(dl, t), src, strip=1)
    shutil.rmtree(dl, ignore_errors=True)
    open(os.path.join(base, ".complete"), "w").close()
    return src


def build_corpus(lang, src, subdirs, dest):
    """Copies the language's files (by extension; Bash scripts also by their
    `#!` line) from the sub-directories into dest; returns (files, lines)."""
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    exts = {"." + e for e in EXTENSIONS[lang]}
    shebang = SHEBANGS.get(lang)
    content = CONTENT.get(lang)
    files = lines = 0
    for sub in subdirs:
        top = os.path.normpath(os.path.join(src, sub))
        if not os.path.isdir(top):
            raise FetchError(f"the package has no {sub}/")
        for d, dirs, names in os.walk(top):
            dirs.sort()
            for n in sorted(names):
                p = os.path.join(d, n)
                if os.path.islink(p) or not os.path.isfile(p):
                    continue
                ext = os.path.splitext(n)[1].lower()
                if ext not in exts:
                    if not (shebang and ext == "" and shebang.match(open(p, "rb").read(64))):
                        continue
                elif content and ext in content[0]:
                    with open(p, "rb") as f:
                        if not content[1].search(f.read()):
                            continue
                rel = os.path.relpath(p, top)
                target = os.path.join(dest, rel if len(subdirs) == 1 else os.path.join(sub, rel))
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copyfile(p, target)
                files += 1
                with open(target, "rb") as f:
                    data = f.read()
                lines += data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    if files == 0:
        raise FetchError(f"no {lang} files ({', '.join(sorted(exts))}) under {', '.join(subdirs)}")
    return files, lines


# ------------------------------------------------------------------ running

def warm_page_cache(corpus):
    for d, _, names in os.walk(corpus):
        for n in names:
            with open(os.path.join(d, n), "rb") as f:
                f.read()


def run_ken(ken, corpus, repeat):
    times, summary, kinds = [], None, None
    for _ in range(repeat):
        idx = tempfile.mkdtemp(prefix="ken-lang-idx-")
        try:
            t0 = time.perf_counter()
            p = subprocess.run([ken, "--index-dir", idx, "index", corpus, "--no-embed", "--json"],
                               capture_output=True, text=True)
            times.append(time.perf_counter() - t0)
            if p.returncode != 0:
                raise RuntimeError(f"ken index exited {p.returncode}: {p.stderr.strip()[-500:]}")
            summary = json.loads(p.stdout)
            kinds = ken_kinds(os.path.join(idx, "index.sqlite"))
        finally:
            shutil.rmtree(idx, ignore_errors=True)
    return times, summary, kinds


def ken_kinds(db):
    """Symbols by language and kind in ken's index; `module:file` is the
    module symbol ken adds for each file."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute(
            "SELECT f.language, CASE WHEN s.kind = 'module' AND s.local_path = '' THEN 'module:file' ELSE s.kind END,"
            " count(*) FROM symbols s JOIN files f ON f.id = s.file_id GROUP BY 1, 2").fetchall()
    finally:
        con.close()
    out = {}
    for lang, kind, n in rows:
        out.setdefault(lang, {})[kind] = n
    return out


def source_line(corpus, path, line, files):
    if path not in files:
        with open(os.path.join(corpus, path), encoding="utf-8", errors="replace") as f:
            files[path] = f.read().splitlines()
    lines = files[path]
    return lines[line - 1] if 0 < line <= len(lines) else ""


def run_ctags(lang, corpus, repeat):
    times, tags = [], []
    for _ in range(repeat):
        with tempfile.TemporaryFile() as out:
            t0 = time.perf_counter()
            p = subprocess.run(["ctags", "-R", f"--language-force={CTAGS_LANGUAGE[lang]}", "--sort=no",
                                "--kinds-C=+p", "--kinds-C++=+p", "--output-format=json", "--fields=+KnzZSt",
                                "-f", "-", "."],
                               cwd=corpus, stdout=out, stderr=subprocess.PIPE)
            times.append(time.perf_counter() - t0)
            if p.returncode != 0:
                raise RuntimeError(f"ctags exited {p.returncode}: {p.stderr.decode(errors='replace')[-300:]}")
            out.seek(0)
            tags = [json.loads(l) for l in out.read().decode("utf-8", "replace").splitlines() if l.strip()]
    rules = CTAGS_KINDS[lang]
    all_kinds, counted, last, files = {}, {}, None, {}
    tags = sorted((t for t in tags if t.get("_type") == "tag"), key=lambda t: (t["path"], t.get("line", 0)))
    for t in tags:
        kind = t.get("kind", "?")
        all_kinds[kind] = all_kinds.get(kind, 0) + 1
        if kind not in rules or t["name"].startswith(("__anon", "AnonymousFunction", "anonFunc")):
            continue
        rule = rules[kind]
        if rule is not None:
            t["source_line"] = source_line(corpus, t["path"], t.get("line", 0), files)
            if not rule(t):
                continue
        if lang in CLAUSES:
            key = (t["path"], t["name"], kind, t.get("scope"))
            if key == last:
                continue
            last = key
        counted[kind] = counted.get(kind, 0) + 1
    return times, all_kinds, counted


# ------------------------------------------------------------------ reports

def fmt_num(x):
    return "n/a" if x is None else f"{x:,}"


def fmt_s(x):
    return "n/a" if x is None else f"{x:.3f}"


def fmt_ratio(x):
    return "n/a" if x is None else f"{x:.2f}"


def table(results):
    head = ["language", "source pin", "files", "lines", "ken s", "ken lines/s", "ken symbols",
            "ctags symbols", "ken/ctags symbols", "ctags s", "ken/ctags time"]
    rows = []
    for r in results:
        if r.get("error"):
            rows.append([r["language"], r["pin"], "-", "-", "-", "-", "-", "-", "-", "-", "-"])
            continue
        rows.append([r["language"], r["pin"], fmt_num(r["files"]), fmt_num(r["lines"]), fmt_s(r["ken_seconds"]),
                     fmt_num(r["ken_lines_per_second"]), fmt_num(r["ken_symbols"]), fmt_num(r["ctags_symbols"]),
                     fmt_ratio(r["symbol_ratio"]), fmt_s(r["ctags_seconds"]), fmt_ratio(r["time_ratio"])])
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"
    print(line(head))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print(line(row))


def cpu_name():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        m = re.search(r"^Model name:\s*(.+)$", out, re.M)
        if m:
            return m.group(1).strip()
    except FileNotFoundError:
        pass
    return platform.processor() or "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ken", required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per tool; the median is reported")
    ap.add_argument("languages", nargs="*")
    args = ap.parse_args()

    known = [p[0] for p in PINS]
    unknown = [l for l in args.languages if l not in known]
    if unknown:
        ap.error(f"unknown language(s) {', '.join(unknown)}; use some of: {', '.join(known)}")
    pins = [p for p in PINS if not args.languages or p[0] in args.languages]

    cpu = cpu_name()
    ken_version = subprocess.run([args.ken, "--version"], capture_output=True, text=True).stdout.strip()
    ctags_version = subprocess.run(["ctags", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    load = os.getloadavg()
    print(f"CPU: {cpu}, {os.cpu_count()} cores (load average {load[0]:.1f} at the start); {ken_version}; "
          f"{ctags_version}; median of {args.repeat} cold runs")
    apt = Apt(os.path.join(args.cache, "apt"))
    results = []
    for pin in pins:
        lang, reg, name, ver, subdirs = pin
        r = {"language": lang, "pin": f"{reg}:{name} {ver}", "registry": reg, "package": name, "version": ver,
             "subdirs": subdirs, "extensions": EXTENSIONS[lang]}
        results.append(r)
        try:
            src = fetch(pin, args.cache, apt)
            corpus = os.path.join(args.cache, "corpus", lang)
            r["files"], r["lines"] = build_corpus(lang, src, subdirs, corpus)
        except FetchError as e:
            r["error"] = f"fetch failed: {e}"
            print(f"{lang}: {r['error']}", flush=True)
            continue
        warm_page_cache(corpus)
        try:
            times, summary, kinds = run_ken(args.ken, corpus, args.repeat)
        except RuntimeError as e:
            r["error"] = str(e)
            print(f"{lang}: {e}", flush=True)
            continue
        mine = kinds.get(lang, {})
        others = {l: k for l, k in kinds.items() if l != lang}
        r["ken_runs"] = times
        r["ken_seconds"] = statistics.median(times)
        r["ken_lines_per_second"] = round(r["lines"] / max(r["ken_seconds"], 1e-9))
        r["ken_kinds"] = mine
        r["ken_symbols"] = sum(mine.get(k, 0) for k in KEN_KINDS)
        r["ken_summary"] = {k: summary.get(k) for k in (
            "files", "lines", "symbols", "references", "files_by_language", "skipped", "vendored_dirs_skipped",
            "unsupported_files", "files_with_parse_errors", "parse_errors", "phases")}
        if others:
            r["ken_other_languages"] = others
        total = sum(sum(k.values()) for k in kinds.values())
        if total != summary.get("symbols"):
            r["warning"] = f"index holds {total} symbols, the summary says {summary.get('symbols')}"
        if lang in CTAGS_MISSING:
            r.update(ctags_seconds=None, ctags_symbols=None, symbol_ratio=None, time_ratio=None,
                     ctags_note=f"Universal Ctags has no {lang} parser")
        else:
            ctimes, all_kinds, counted = run_ctags(lang, corpus, args.repeat)
            r["ctags_runs"] = ctimes
            r["ctags_seconds"] = statistics.median(ctimes)
            r["ctags_all_kinds"] = all_kinds
            r["ctags_kinds"] = counted
            r["ctags_counted_kinds"] = sorted(CTAGS_KINDS[lang])
            r["ctags_symbols"] = sum(counted.values())
            r["symbol_ratio"] = r["ken_symbols"] / r["ctags_symbols"] if r["ctags_symbols"] else None
            r["time_ratio"] = r["ken_seconds"] / max(r["ctags_seconds"], 1e-9)
        print(f"{lang}: {r['files']} files, {r['lines']:,} lines; ken {r['ken_seconds']:.3f} s, "
              f"{r['ken_symbols']} symbols {dict(sorted(mine.items()))}; ctags "
              + (f"{r['ctags_seconds']:.3f} s, {r['ctags_symbols']} symbols {dict(sorted(r['ctags_kinds'].items()))}"
                 if r.get("ctags_symbols") is not None else "n/a"), flush=True)

    print()
    print(f"CPU: {cpu}, {os.cpu_count()} cores; load average {load[0]:.1f} at the start, "
          f"{os.getloadavg()[0]:.1f} at the end")
    table(results)
    print()
    print("ken symbols: module, class, struct, interface, trait, enum, function, method, constructor and "
          "constant (no fields, no per-file modules); ctags symbols: the kinds listed per language in "
          "bench/README.md. Times: wall clock of the whole command, median of the runs.")
    for r in results:
        if r.get("error"):
            print(f"- {r['language']}: {r['error']}")
        elif r.get("ctags_note"):
            print(f"- {r['language']}: {r['ctags_note']}")
        if r.get("warning"):
            print(f"- {r['language']}: {r['warning']}")
        skipped = (r.get("ken_summary") or {}).get("skipped")
        if skipped:
            print(f"- {r['language']}: ken skipped {skipped} (ctags read those files)")
        if r.get("ken_other_languages"):
            print(f"- {r['language']}: ken also mined {r['ken_other_languages']}")
    if args.languages:  # a partial run leaves the full results alone
        base, ext = os.path.splitext(args.out)
        args.out = f"{base}-{'-'.join(args.languages)}{ext}"
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"cpu": cpu, "cores": os.cpu_count(), "load_average_at_start": load[0],
                   "load_average_at_end": os.getloadavg()[0], "ken_version": ken_version, "ctags_version": ctags_version,
                   "repeat": args.repeat, "ken_kinds_counted": KEN_KINDS, "results": results}, f, indent=2)
        f.write("\n")
    print(f"wrote {os.path.relpath(args.out)}")
    return 1 if any(r.get("error") and not r["error"].startswith("fetch failed") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
