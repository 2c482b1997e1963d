#!/usr/bin/env python3
"""Dependency-graph quality benchmark: `ken graph export` against oracles
nobody on the project wrote.

Run through bench/graph_eval.sh, which makes the venv (pinned jedi and the
pinned Python corpora) and fetches the TypeScript and Rust corpora; this file
must run under that venv's python.

Oracles, per Python package (requests, flask, rich, httpx, click):
  callers     jedi `get_references(scope="project")` at the definition of a
              seeded sample of functions and methods, kept where `ast` says the
              reference is the called name of an `ast.Call`; the caller is the
              innermost enclosing def (or class body, or module) per `ast`.
  callees     jedi `goto(follow_imports=True)` at every call in the sampled
              function's own body (not nested defs), kept where it lands on a
              function, method or class defined in the corpus.
  subclasses  the transitive `__subclasses__()` closure, in a fresh venv
              python that imports every module of the package.
Coverage only (edge counts, share resolved, split by resolution kind), for
every corpus plus rxjs 7.8.1 (TypeScript, `src/`) and tokio 1.41.1 (Rust).

jedi finds only the references it can infer: ken's extra callers may be real
ones jedi missed (so precision is a lower bound), and recall is measured
against what jedi can see. Oracle results are cached per symbol in
bench/.cache/graph-oracle-<pkg>.json, keyed by package, jedi and oracle
versions, so reruns (and a full run after --quick) only ask jedi for new
symbols.
"""

import argparse
import ast
import functools
import importlib.metadata
import importlib.util
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CACHE = HERE / ".cache"
CORPORA = CACHE / "graph-corpora"
EXPORTS = CACHE / "graph-exports"
RESULTS = HERE / "results"

PY_PACKAGES = ["requests", "flask", "rich", "httpx", "click"]
OTHER_CORPORA = ["rxjs", "tokio"]  # fetched by graph_eval.sh
ALL_PACKAGES = PY_PACKAGES + OTHER_CORPORA

# Bump when the oracle logic changes, to throw cached oracle results away.
ORACLE_VERSION = 3
SEED = "kenning-graph-eval-1"
PER_PACKAGE = 80  # sampled functions and methods per package (>= 30, so >= 100 in all)
PER_PACKAGE_QUICK = 15  # --quick: the first 15 of the same seeded order
REFERENCES_TIMEOUT = 60  # seconds for one jedi get_references call
GOTO_TIMEOUT = 15  # seconds for one jedi goto call
SITE_CHECKS_PER_PACKAGE = 400  # jedi goto calls at ken's extra call sites, per package and run
COVERAGE_RELATIONS = ["calls", "imports", "derived_class_of"]
COVERAGE_PRINTED = ["calls", "instantiates", "imports", "derived_class_of"]  # the JSON has every relation
RESOLUTIONS = ["exact", "type_inferred", "unique_name", "unresolved"]
CALLABLE_KINDS = {"function", "method", "constructor", "class"}
SCOPE_KINDS = {"function", "method", "constructor", "class", "module", "struct", "enum", "union", "trait", "interface", "impl"}
SUBCLASS_MISMATCHES_SHOWN = 10


# --------------------------------------------------------------------------
# Corpora


@functools.lru_cache(maxsize=None)
def site_packages_dir(pkg):
    spec = importlib.util.find_spec(pkg)
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"{pkg} is not installed in {sys.prefix}; run bench/graph_eval.sh, which installs it")
    return Path(list(spec.submodule_search_locations)[0]).resolve()


def package_version(pkg):
    return importlib.metadata.version(pkg)


def prepare_python_corpus(pkg):
    """Copies site-packages/<pkg> to graph-corpora/<pkg>/<pkg>; returns the root."""
    version = package_version(pkg)
    root = CORPORA / pkg
    stamp = root / ".version"
    if stamp.is_file() and stamp.read_text().strip() == version and (root / pkg).is_dir():
        return root
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    shutil.copytree(site_packages_dir(pkg), root / pkg, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    stamp.write_text(version + "\n")
    return root


def map_to_corpus(path, pkg, root):
    """A path jedi reports, as a path relative to the corpus root, or None
    when it lies outside the corpus (site-packages copies of the package map
    onto the corpus: they are the same files)."""
    if path is None:
        return None
    path = Path(path).resolve()
    for base in (root, site_packages_dir(pkg).parent):
        try:
            rel = path.relative_to(base)
        except ValueError:
            continue
        if rel.parts and rel.parts[0] == pkg and rel.suffix == ".py":
            return rel.as_posix()
    return None


# --------------------------------------------------------------------------
# ast: call sites, their enclosing scopes, and the sample


DEF_RE = re.compile(rb"(?:async\s+)?def\s+")


def split_lines(text):
    return re.split(r"\r\n|\r|\n", text)


def char_to_byte(line, col):
    return len(line[:col].encode("utf-8"))


def byte_to_char(line, col):
    return len(line.encode("utf-8")[:col].decode("utf-8", errors="ignore"))


def called_name_pos(func):
    """(line, 0-based byte column) of the called name, or None."""
    if isinstance(func, ast.Name):
        return (func.lineno, func.col_offset)
    if isinstance(func, ast.Attribute) and func.end_lineno is not None:
        return (func.end_lineno, func.end_col_offset - len(func.attr.encode("utf-8")))
    return None


def is_overload(node):
    for d in node.decorator_list:
        name = d.attr if isinstance(d, ast.Attribute) else d.id if isinstance(d, ast.Name) else None
        if name == "overload":
            return True
    return False


class FileInfo:
    """One corpus file seen through `ast`.

    calls: (line, byte col) of each called name -> the scope it runs in,
      as the name line of the enclosing def/class (0 for module level).
    scope_calls: scope line -> the call positions directly in that scope
      (decorators, defaults and annotations of a def run in the outer scope;
      lambdas and comprehensions belong to the scope around them).
    defs: every def, with its qualified name and whether it is nested in a def.
    """

    def __init__(self, root, rel):
        self.rel = rel
        self.text = (root / rel).read_text(encoding="utf-8")
        self.lines = split_lines(self.text)
        self.calls = {}
        self.scope_calls = defaultdict(list)
        self.defs = []
        tree = ast.parse(self.text)
        self._visit_body(tree.body, 0, [], False, False)

    def _visit_body(self, stmts, scope, qual, in_func, in_class):
        for stmt in stmts:
            self._visit(stmt, scope, qual, in_func, in_class)

    def _visit(self, node, scope, qual, in_func, in_class):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in node.decorator_list:
                self._visit(d, scope, qual, in_func, in_class)
            a = node.args
            for x in a.defaults + [k for k in a.kw_defaults if k is not None]:
                self._visit(x, scope, qual, in_func, in_class)
            for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
                if arg is not None and arg.annotation is not None:
                    self._visit(arg.annotation, scope, qual, in_func, in_class)
            if node.returns is not None:
                self._visit(node.returns, scope, qual, in_func, in_class)
            line_bytes = self.lines[node.lineno - 1].encode("utf-8")
            m = DEF_RE.match(line_bytes, node.col_offset)
            if m and line_bytes[m.end():].startswith(node.name.encode("utf-8")):
                self.defs.append({
                    "name": node.name,
                    "qual": ".".join(qual + [node.name]),
                    "line": node.lineno,
                    "bytecol": m.end(),
                    "kind": "method" if in_class else "function",
                    "nested_in_def": in_func,
                    "overload": is_overload(node),
                })
            self._visit_body(node.body, node.lineno, qual + [node.name], True, False)
            return
        if isinstance(node, ast.ClassDef):
            for x in node.decorator_list + node.bases + [k.value for k in node.keywords]:
                self._visit(x, scope, qual, in_func, in_class)
            self._visit_body(node.body, node.lineno, qual + [node.name], in_func, True)
            return
        if isinstance(node, ast.Call):
            pos = called_name_pos(node.func)
            if pos is not None:
                self.calls[pos] = scope
                self.scope_calls[scope].append(pos)
        for child in ast.iter_child_nodes(node):
            self._visit(child, scope, qual, in_func, in_class)


class Corpus:
    def __init__(self, pkg, root):
        self.pkg = pkg
        self.root = root
        self._files = {}
        self.parse_errors = []

    def file(self, rel):
        if rel not in self._files:
            try:
                self._files[rel] = FileInfo(self.root, rel)
            except (SyntaxError, UnicodeDecodeError, ValueError, OSError) as err:
                self.parse_errors.append(f"{rel}: {err}")
                self._files[rel] = None
        return self._files[rel]

    def py_files(self):
        return sorted(p.relative_to(self.root).as_posix() for p in (self.root / self.pkg).rglob("*.py"))


def sample_symbols(corpus, n):
    """A seeded sample of the package's functions and methods.

    Left out, by rule rather than by jedi's say: dunder methods other than
    __init__ and __call__ (called through operators and protocols, not by
    name), `@overload` stubs (the implementation is the symbol), and defs
    nested in another def (local helpers). No name is left out for being
    generic: jedi handles them all, only slower.
    """
    candidates = []
    excluded = Counter()
    for rel in corpus.py_files():
        info = corpus.file(rel)
        if info is None:
            continue
        for d in info.defs:
            name = d["name"]
            if name.startswith("__") and name.endswith("__") and name not in ("__init__", "__call__"):
                excluded["dunder"] += 1
            elif d["overload"]:
                excluded["overload"] += 1
            elif d["nested_in_def"]:
                excluded["nested_in_def"] += 1
            else:
                candidates.append(dict(d, path=rel, key=f"{rel}:{d['line']}:{name}"))
    candidates.sort(key=lambda c: (c["path"], c["line"]))
    random.Random(f"{SEED}:{corpus.pkg}").shuffle(candidates)
    return candidates[:n], len(candidates), dict(excluded)


# --------------------------------------------------------------------------
# jedi oracle


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout()


def with_timeout(seconds, fn, *args, **kwargs):
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn(*args, **kwargs)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


class JediOracle:
    def __init__(self, corpus):
        import jedi

        self.jedi = jedi
        self.corpus = corpus
        # In-process inference: a timed-out call just unwinds (a subprocess
        # environment would be left half-way through a request).
        self.env = jedi.InterpreterEnvironment()
        self.project = jedi.Project(str(corpus.root))
        self._scripts = {}

    def script(self, rel):
        if rel not in self._scripts:
            self._scripts[rel] = self.jedi.Script(path=str(self.corpus.root / rel), project=self.project, environment=self.env)
        return self._scripts[rel]

    def callers(self, sym):
        """Call sites of sym and their callers, from jedi's references."""
        info = self.corpus.file(sym["path"])
        line = info.lines[sym["line"] - 1]
        col = byte_to_char(line, sym["bytecol"])
        script = self.script(sym["path"])
        refs = with_timeout(REFERENCES_TIMEOUT, script.get_references, sym["line"], col, scope="project")
        sites, callers, non_call = set(), set(), 0
        for r in refs:
            if r.is_definition():
                continue
            rel = map_to_corpus(r.module_path, self.corpus.pkg, self.corpus.root)
            ref_info = self.corpus.file(rel) if rel else None
            if ref_info is None or r.line is None or r.line > len(ref_info.lines):
                non_call += 1
                continue
            pos = (r.line, char_to_byte(ref_info.lines[r.line - 1], r.column))
            scope = ref_info.calls.get(pos)
            if scope is None:
                non_call += 1
                continue
            sites.add((rel, pos[0], pos[1]))
            callers.add((rel, scope))
        return {"sites": sorted(sites), "callers": sorted(callers), "non_call_references": non_call}

    def callees(self, sym):
        """What each call in sym's own body lands on, from jedi's goto."""
        info = self.corpus.file(sym["path"])
        script = self.script(sym["path"])
        pairs, resolved, failed, calls = set(), [], 0, 0
        for line, bytecol in info.scope_calls.get(sym["line"], []):
            calls += 1
            col = byte_to_char(info.lines[line - 1], bytecol)
            try:
                defs = with_timeout(GOTO_TIMEOUT, script.goto, line, col, follow_imports=True)
            except Exception:  # noqa: BLE001 - one bad call site must not lose the symbol
                failed += 1
                continue
            if defs:
                resolved.append((line, bytecol))
            for d in defs:
                if d.type not in ("function", "class") or d.line is None:
                    continue
                rel = map_to_corpus(d.module_path, self.corpus.pkg, self.corpus.root)
                if rel is None:
                    continue
                pairs.add((line, bytecol, rel, d.line))
        callees = sorted({(p[2], p[3]) for p in pairs})
        return {"pairs": sorted(pairs), "callees": callees, "calls": calls, "resolved_sites": sorted(resolved), "goto_errors": failed}

    def site_defs(self, rel, line, bytecol):
        """jedi's goto at one position: [(corpus path or None, line, type)]."""
        info = self.corpus.file(rel)
        col = byte_to_char(info.lines[line - 1], bytecol)
        defs = with_timeout(GOTO_TIMEOUT, self.script(rel).goto, line, col, follow_imports=True)
        return [(map_to_corpus(d.module_path, self.corpus.pkg, self.corpus.root), d.line, d.type) for d in defs]


class SiteChecker:
    """Asks jedi about the call sites ken reports and the callers oracle does
    not list: does jedi's goto there land on the symbol (jedi's references
    missed it), somewhere else (ken is wrong), or nowhere (nobody knows)?
    Answers are cached with the oracle, per site."""

    def __init__(self, corpus, cache_path, cache, limit):
        self.corpus, self.cache_path, self.cache = corpus, cache_path, cache
        self.sites = cache.setdefault("sites", {})
        self.limit = limit
        self.asked = 0
        self.oracle = None

    def classify(self, rel, line, bytecol, target):
        info = self.corpus.file(rel) if rel else None
        if info is None or not line or line > len(info.lines) or (line, bytecol) not in info.calls:
            return "not_a_call"
        key = f"{rel}:{line}:{bytecol}"
        if key not in self.sites:
            if self.asked >= self.limit:
                return "unknown"
            if self.oracle is None:
                self.oracle = JediOracle(self.corpus)
            self.asked += 1
            try:
                self.sites[key] = self.oracle.site_defs(rel, line, bytecol)
            except Exception:  # noqa: BLE001 - timeouts and jedi errors: unknown
                self.sites[key] = None
        defs = self.sites[key]
        if not defs:
            return "unknown"
        return "agree" if any(d[0] == target[0] and d[1] == target[1] for d in defs) else "wrong"

    def save(self):
        if self.asked:
            save_oracle_cache(self.cache_path, self.cache)


def oracle_cache_key(pkg):
    import jedi

    return {
        "package": pkg,
        "version": package_version(pkg),
        "jedi": jedi.__version__,
        "oracle": ORACLE_VERSION,
        "python": ".".join(map(str, sys.version_info[:3])),
    }


def load_oracle_cache(pkg):
    path = CACHE / f"graph-oracle-{pkg}.json"
    key = oracle_cache_key(pkg)
    if path.is_file():
        try:
            data = json.loads(path.read_text())
            if data.get("key") == key:
                return path, data
        except (ValueError, OSError):
            pass
    return path, {"key": key, "symbols": {}, "subclasses": None}


def save_oracle_cache(path, data):
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)


def run_jedi_oracle(corpus, sample, cache_path, cache, deadline):
    oracle = None
    symbols = cache["symbols"]
    asked = 0
    for i, sym in enumerate(sample):
        if sym["key"] in symbols:
            continue
        if time.monotonic() > deadline:
            print(f"  {corpus.pkg}: oracle time budget spent; {len(sample) - i} symbols left unasked", flush=True)
            break
        if oracle is None:
            oracle = JediOracle(corpus)
        entry = {"name": sym["name"], "qual": sym["qual"], "kind": sym["kind"], "errors": {}}
        t0 = time.monotonic()
        for what, fn in (("callers", oracle.callers), ("callees", oracle.callees)):
            try:
                entry[what] = fn(sym)
            except Timeout:
                entry["errors"][what] = "timeout"
            except Exception as err:  # noqa: BLE001 - jedi errors are counted, not fatal
                entry["errors"][what] = f"{type(err).__name__}: {err}"[:300]
        entry["seconds"] = round(time.monotonic() - t0, 3)
        symbols[sym["key"]] = entry
        asked += 1
        if asked % 5 == 0:
            save_oracle_cache(cache_path, cache)
    if asked:
        save_oracle_cache(cache_path, cache)
    return asked


# --------------------------------------------------------------------------
# __subclasses__ oracle (runs in a fresh interpreter: --subclasses-worker)


def subclasses_worker(pkg):
    import gc
    import importlib
    import io
    import pkgutil

    out = sys.stdout
    sys.stdout = io.StringIO()  # rich and click print when some modules are imported
    sys.stderr = io.StringIO()
    os.chdir("/")
    failed = []
    try:
        top = importlib.import_module(pkg)
    except BaseException as err:  # noqa: BLE001
        out.write(json.dumps({"error": f"cannot import {pkg}: {err!r}"}))
        return
    pkg_dir = Path(top.__file__).resolve().parent
    names = [pkg]
    for m in pkgutil.walk_packages(top.__path__, pkg + ".", onerror=lambda name: failed.append(name)):
        names.append(m.name)
    for name in names:
        if name.rsplit(".", 1)[-1] == "__main__":
            continue  # running it is its only purpose
        try:
            importlib.import_module(name)
        except BaseException:  # noqa: BLE001 - missing optional deps, SystemExit, ...
            failed.append(name)

    classdefs = {}  # module file -> set of qualnames with a `class` statement

    def has_classdef(path, qualname):
        if path not in classdefs:
            found = set()

            def walk(body, prefix):
                for node in body:
                    if isinstance(node, ast.ClassDef):
                        q = prefix + node.name
                        found.add(q)
                        walk(node.body, q + ".")
                    elif isinstance(node, (ast.If, ast.Try, ast.With)):
                        for field in ("body", "orelse", "finalbody"):
                            walk(getattr(node, field, []) or [], prefix)
                        for h in getattr(node, "handlers", []) or []:
                            walk(h.body, prefix)

            try:
                walk(ast.parse(Path(path).read_text(encoding="utf-8")).body, "")
            except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
                pass
            classdefs[path] = found
        return qualname in classdefs[path]

    modules = {}
    for mname, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if (mname == pkg or mname.startswith(pkg + ".")) and path and Path(path).resolve().is_relative_to(pkg_dir):
            modules[mname] = module

    def lookup(module, qualname):
        obj = module
        for part in qualname.split("."):
            obj = getattr(obj, "__dict__", {}).get(part)
            if obj is None:
                return None
        return obj

    def defining_module(cls, qualname):
        """The module whose source holds the `class` statement of cls. Not
        always __module__: httpx sets `__module__ = "httpx"` on its public
        classes, which live in httpx._client and friends."""
        first = cls.__module__
        for mname in [first] + sorted(m for m in modules if m != first):
            module = modules.get(mname)
            if module is not None and has_classdef(module.__file__, qualname) and lookup(module, qualname) is cls:
                return mname
        if first in modules and has_classdef(modules[first].__file__, qualname):
            return first  # no longer reachable by name (redefined or deleted), but declared there
        return None

    static, dynamic, local = {}, [], 0
    renamed = []
    seen = set()
    for obj in gc.get_objects():
        if not isinstance(obj, type) or id(obj) in seen:
            continue
        seen.add(id(obj))
        mod = getattr(obj, "__module__", None)
        if not isinstance(mod, str) or not (mod == pkg or mod.startswith(pkg + ".")):
            continue
        qualname = getattr(obj, "__qualname__", obj.__name__)
        if "<locals>" in qualname:
            local += 1
            continue
        where = defining_module(obj, qualname)
        if where is None:
            dynamic.append(f"{mod}.{qualname}")
            continue
        if where != mod:
            renamed.append(f"{mod}.{qualname} -> {where}.{qualname}")
        static.setdefault(id(obj), (f"{where}.{qualname}", obj))

    by_id = {k: v[0] for k, v in static.items()}
    direct = defaultdict(set)
    for cid, (name, cls) in static.items():
        try:
            subs = type.__subclasses__(cls)
        except TypeError:
            continue
        for sub in subs:
            if id(sub) in by_id:
                direct[name].add(by_id[id(sub)])
    closure = {}
    for name in {n for n, _ in static.values()}:
        todo, found = list(direct.get(name, ())), set()
        while todo:
            s = todo.pop()
            if s not in found and s != name:
                found.add(s)
                todo.extend(direct.get(s, ()))
        if found:
            closure[name] = sorted(found)
    out.write(json.dumps({
        "classes": sorted({n for n, _ in static.values()}),
        "direct": {k: sorted(v) for k, v in sorted(direct.items()) if v},
        "closure": dict(sorted(closure.items())),
        "failed_modules": sorted(set(failed)),
        "skipped_dynamic": sorted(dynamic),
        "skipped_local": local,
        "module_differs_from_file": sorted(renamed),
        "modules": len(names),
    }))


def run_subclasses_oracle(pkg, cache_path, cache):
    if cache.get("subclasses"):
        return cache["subclasses"]
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--subclasses-worker", pkg],
        capture_output=True, text=True, timeout=600, cwd="/",
    )
    try:
        data = json.loads(proc.stdout)
    except ValueError:
        data = {"error": f"subclasses worker failed (exit {proc.returncode}): {proc.stderr[-2000:]}"}
    if "error" not in data:
        cache["subclasses"] = data
        save_oracle_cache(cache_path, cache)
    return data


# --------------------------------------------------------------------------
# ken


def run_ken(ken, pkg, root, reindex):
    """Indexes root and writes its export; returns (export path or None, error, seconds)."""
    EXPORTS.mkdir(parents=True, exist_ok=True)
    out = EXPORTS / f"{pkg}.json"
    if not reindex:
        return (out, None, 0.0) if out.is_file() else (None, f"--no-index: {out} does not exist", 0.0)
    t0 = time.monotonic()
    # `.` explicitly: with no path, ken takes the nearest ancestor holding a
    # .git, which is this repository, not the corpus. --rebuild so a new ken
    # binary re-resolves every file.
    proc = subprocess.run([ken, "-C", str(root), "index", "-q", "--rebuild", "."], capture_output=True, text=True)
    if proc.returncode != 0:
        return None, f"ken index failed (exit {proc.returncode}): {proc.stderr.strip()[-1000:]}", time.monotonic() - t0
    tmp = out.with_suffix(".tmp")
    with open(tmp, "w") as f:
        proc = subprocess.run([ken, "-C", str(root), "graph", "export", "--format", "json"], stdout=f, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        tmp.unlink(missing_ok=True)
        out.unlink(missing_ok=True)
        return None, f"ken graph export failed (exit {proc.returncode}): {proc.stderr.strip()[-1000:]}", time.monotonic() - t0
    os.replace(tmp, out)
    return out, None, time.monotonic() - t0


class Export:
    def __init__(self, path):
        data = json.loads(Path(path).read_text())
        self.symbols = {s["id"]: s for s in data["symbols"]}
        self.edges = data["edges"]
        self.by_pos = defaultdict(list)  # (path, name_line) -> symbols
        self.by_qname = defaultdict(list)
        for s in self.symbols.values():
            self.by_pos[(s.get("path"), s.get("name_line"))].append(s)
            if s.get("qualified_name"):
                self.by_qname[s["qualified_name"]].append(s)
        self.by_dst = defaultdict(list)
        self.by_src = defaultdict(list)
        for e in self.edges:
            if e.get("dst") is not None:
                self.by_dst[e["dst"]].append(e)
            self.by_src[e.get("src")].append(e)

    def ident(self, sid):
        """(path, name line) of a symbol; module symbols are line 0."""
        s = self.symbols.get(sid)
        if s is None:
            return ("?", sid)
        if s.get("kind") == "module":
            return (s.get("path"), 0)
        return (s.get("path"), s.get("name_line"))

    def find_def(self, sym):
        """ken's symbol for a sampled def, matched by (path, name line, name)."""
        for s in self.by_pos.get((sym["path"], sym["line"]), []):
            if s.get("name") == sym["name"] and s.get("kind") in CALLABLE_KINDS:
                return s
        return None


# --------------------------------------------------------------------------
# Comparison


class PR:
    def __init__(self):
        self.tp = self.fp = self.fn = 0

    def add(self, oracle, ken):
        oracle, ken = set(oracle), set(ken)
        self.tp += len(oracle & ken)
        self.fp += len(ken - oracle)
        self.fn += len(oracle - ken)

    @property
    def precision(self):
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self):
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    def merge(self, other):
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn

    def json(self):
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn, "precision": self.precision, "recall": self.recall}


def t(pairs):
    return {tuple(p) for p in pairs}


def site_of(e):
    return (e.get("path"), e.get("line"), (e.get("col") or 1) - 1)


def compare_callers(export, sample, oracle_symbols, checker):
    m = {k: PR() for k in ("callers", "sites", "callers_no_unique", "sites_no_unique")}
    stats = Counter()
    extra = Counter()  # ken's extra call sites, by what jedi's goto says there
    extra_by_resolution = defaultdict(Counter)
    details = []
    for sym in sample:
        entry = oracle_symbols.get(sym["key"])
        if entry is None or "callers" not in entry:
            stats["jedi_error" if entry else "not_asked"] += 1
            continue
        stats["evaluated"] += 1
        o_callers, o_sites = t(entry["callers"]["callers"]), t(entry["callers"]["sites"])
        ken_sym = export.find_def(sym)
        edges = []
        if ken_sym is None:
            stats["ken_missing_symbol"] += 1
        else:
            edges = [e for e in export.by_dst.get(ken_sym["id"], []) if e.get("relation") == "calls"]
        for suffix, es in (("", edges), ("_no_unique", [e for e in edges if e.get("resolution") != "unique_name"])):
            m["callers" + suffix].add(o_callers, {export.ident(e["src"]) for e in es})
            m["sites" + suffix].add(o_sites, {site_of(e) for e in es})
        verdicts = {}
        for e in edges:
            site = site_of(e)
            if site in o_sites or site in verdicts:
                continue
            verdicts[site] = checker.classify(*site, (sym["path"], sym["line"]))
            extra[verdicts[site]] += 1
            extra_by_resolution[verdicts[site]][e.get("resolution")] += 1
        k_callers = {export.ident(e["src"]) for e in edges}
        if k_callers != o_callers:
            details.append({
                "symbol": sym["key"], "qual": sym["qual"], "ken_symbol": ken_sym["id"] if ken_sym else None,
                "missing_callers": sorted(o_callers - k_callers), "extra_callers": sorted(k_callers - o_callers),
                "extra_sites": sorted([list(k) + [v] for k, v in verdicts.items()]),
            })
    tp = m["sites"].tp + extra["agree"]
    wrong = extra["wrong"] + extra["not_a_call"]
    checked = tp / (tp + wrong) if tp + wrong else None
    return m, stats, {"checked_site_precision": checked, "extra_sites": dict(extra),
                      "extra_sites_by_resolution": {k: dict(v) for k, v in extra_by_resolution.items()}}, details


def compare_callees(export, sample, oracle_symbols, corpus):
    m = {k: PR() for k in ("callees", "pairs", "callees_no_unique", "pairs_no_unique")}
    stats = Counter()
    other_kinds = Counter()
    extra = Counter()
    extra_by_resolution = defaultdict(Counter)
    details = []
    for sym in sample:
        entry = oracle_symbols.get(sym["key"])
        if entry is None or "callees" not in entry:
            stats["jedi_error" if entry else "not_asked"] += 1
            continue
        stats["evaluated"] += 1
        stats["goto_errors"] += entry["callees"]["goto_errors"]
        o_callees = t(entry["callees"]["callees"])
        o_pairs = {(p[0], p[1], (p[2], p[3])) for p in entry["callees"]["pairs"]}
        resolved = t(entry["callees"]["resolved_sites"])
        body_calls = set(corpus.file(sym["path"]).scope_calls.get(sym["line"], []))
        ken_sym = export.find_def(sym)
        edges = []
        if ken_sym is None:
            stats["ken_missing_symbol"] += 1
        else:
            for e in export.by_src.get(ken_sym["id"], []):
                if e.get("relation") not in ("calls", "instantiates") or e.get("dst") is None:
                    continue
                kind = export.symbols.get(e["dst"], {}).get("kind")
                if kind not in CALLABLE_KINDS:
                    other_kinds[kind] += 1
                    continue
                edges.append(e)
        for suffix, es in (("", edges), ("_no_unique", [e for e in edges if e.get("resolution") != "unique_name"])):
            m["callees" + suffix].add(o_callees, {export.ident(e["dst"]) for e in es})
            m["pairs" + suffix].add(o_pairs, {(e.get("line"), (e.get("col") or 1) - 1, export.ident(e["dst"])) for e in es})
        for e in edges:
            pair = (e.get("line"), (e.get("col") or 1) - 1, export.ident(e["dst"]))
            if pair in o_pairs:
                continue
            pos = pair[:2]
            verdict = "wrong" if pos in resolved else "unknown" if pos in body_calls else "not_a_call"
            extra[verdict] += 1
            extra_by_resolution[verdict][e.get("resolution")] += 1
        k_callees = {export.ident(e["dst"]) for e in edges}
        if k_callees != o_callees:
            details.append({
                "symbol": sym["key"], "qual": sym["qual"],
                "missing_callees": sorted(o_callees - k_callees), "extra_callees": sorted(k_callees - o_callees),
            })
    tp = m["pairs"].tp
    wrong = extra["wrong"] + extra["not_a_call"]
    checked = tp / (tp + wrong) if tp + wrong else None
    return m, stats, {"checked_pair_precision": checked, "extra_pairs": dict(extra), "ken_edges_to_other_kinds": dict(other_kinds),
                      "extra_pairs_by_resolution": {k: dict(v) for k, v in extra_by_resolution.items()}}, details


def compare_subclasses(export, oracle):
    universe = set(oracle["classes"])
    children = defaultdict(set)  # base qname -> derived qnames, from ken's edges
    for e in export.edges:
        if e.get("relation") != "derived_class_of" or e.get("dst") is None:
            continue
        src, dst = export.symbols.get(e["src"]), export.symbols.get(e["dst"])
        if src and dst and src.get("qualified_name") and dst.get("qualified_name"):
            children[dst["qualified_name"]].add(src["qualified_name"])
    dropped = set()

    def closure(base):
        todo, found = list(children.get(base, ())), set()
        while todo:
            s = todo.pop()
            if s not in found and s != base:
                found.add(s)
                todo.extend(children.get(s, ()))
        dropped.update(found - universe)
        return found & universe

    pairs, direct = PR(), PR()
    exact, bases, mismatches = 0, 0, []
    for base in sorted(universe):
        o = set(oracle["closure"].get(base, ()))
        k = closure(base)
        pairs.add({(base, s) for s in o}, {(base, s) for s in k})
        direct.add({(base, s) for s in oracle["direct"].get(base, ())}, {(base, s) for s in children.get(base, ()) if s in universe})
        if o:
            bases += 1
            if o == k:
                exact += 1
            else:
                mismatches.append({
                    "base": base, "in_ken": bool(export.by_qname.get(base)),
                    "missing": sorted(o - k), "extra": sorted(k - o),
                })
    missing_classes = sorted(c for c in universe if not export.by_qname.get(c))
    return {
        "bases": bases, "exact": exact, "exact_fraction": exact / bases if bases else None,
        "pairs": pairs, "direct": direct, "mismatches": mismatches,
        "ken_names_outside_oracle": len(dropped), "classes_missing_in_ken": missing_classes,
    }


def coverage(export):
    out = {}
    relations = sorted({e.get("relation") for e in export.edges} | set(COVERAGE_RELATIONS))
    for rel in relations:
        es = [e for e in export.edges if e.get("relation") == rel]
        res = Counter(e.get("resolution") for e in es)
        resolved = sum(1 for e in es if e.get("dst") is not None)
        out[rel] = {"edges": len(es), "resolved": resolved, "resolved_fraction": resolved / len(es) if es else None, "by_resolution": dict(res)}
    src_kinds = Counter(export.symbols.get(e.get("src"), {}).get("kind") for e in export.edges if e.get("relation") in ("calls", "instantiates"))
    return out, dict(src_kinds)


# --------------------------------------------------------------------------
# Output


def fmt(x):
    return "n/a" if x is None else f"{x:.2f}"


def pr_pair(m):
    return f"{fmt(m.precision)}/{fmt(m.recall)}"


LEGEND = """\
callers: over the callers (enclosing def, class or module) of each sampled function, micro-averaged;
  site = over call positions (path, line, col). jedi finds only the references it can infer, so ken's
  extra callers may be real ones jedi missed: precision is a lower bound, recall is against what jedi sees.
  checked P = site precision after asking jedi's goto at each extra site: counted right where goto lands
  on the symbol, wrong where it lands elsewhere (or the site is no call), left out where goto finds nothing.
callees: over the defs called from each sampled function's own body; site = (call position, callee) pairs;
  checked P leaves out extra pairs at calls jedi's goto could not resolve.
subclasses: precision/recall over transitive (base, subclass) pairs; exact = bases whose subclass set
  matches __subclasses__() exactly; direct = P/R of direct derived_class_of pairs."""


def row(relation, pkg, st, m, key, site, checked):
    return {
        "relation": relation, "package": pkg, "n": st["evaluated"], "p": m[key].precision, "r": m[key].recall,
        "site": pr_pair(m[site]), "no_unique": f"{pr_pair(m[key + '_no_unique'])}; {pr_pair(m[site + '_no_unique'])}",
        "checked": fmt(checked),
        "note": "; ".join(x for x in (
            f"ken lacks {st['ken_missing_symbol']} sampled defs" if st["ken_missing_symbol"] else "",
            f"jedi failed on {st['jedi_error']}" if st["jedi_error"] else "",
            f"{st['not_asked']} not asked (time budget)" if st["not_asked"] else "",
        ) if x),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("packages", nargs="*", metavar="PACKAGE", help=f"any of {', '.join(ALL_PACKAGES)} (default: all)")
    ap.add_argument("--quick", action="store_true", help=f"{PER_PACKAGE_QUICK} sampled symbols per package instead of {PER_PACKAGE}")
    ap.add_argument("--ken", default=os.environ.get("KEN", str(REPO / "target/release/ken")))
    ap.add_argument("--oracle-only", action="store_true", help="compute (and cache) the oracles; do not run ken")
    ap.add_argument("--no-index", action="store_true", help="do not run ken; compare the exports already in bench/.cache/graph-exports/")
    ap.add_argument("--budget", type=float, default=12 * 60, help="seconds of jedi time for the whole run (default 720)")
    ap.add_argument("--subclasses-worker", metavar="PKG", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.subclasses_worker:
        subclasses_worker(args.subclasses_worker)
        return 0
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    packages = args.packages or ALL_PACKAGES
    for p in packages:
        if p not in ALL_PACKAGES:
            ap.error(f"unknown package {p!r}; use any of {', '.join(ALL_PACKAGES)}")
    n = PER_PACKAGE_QUICK if args.quick else PER_PACKAGE
    run_ken_now = not args.oracle_only
    if run_ken_now and not args.no_index and not os.access(args.ken, os.X_OK):
        sys.exit(f"no ken binary at {args.ken}; build it (cargo build --release -p ken) or set KEN")

    t_start = time.monotonic()
    deadline = t_start + args.budget
    results = {"quick": args.quick, "per_package": n, "seed": SEED, "packages": {}, "coverage": {}, "failures": {}}
    rows = []
    totals = defaultdict(lambda: defaultdict(PR))
    checked_totals = defaultdict(Counter)
    sub_totals = {"bases": 0, "exact": 0, "pairs": PR()}

    for pkg in packages:
        t_pkg = time.monotonic()
        pres = {}
        if pkg in PY_PACKAGES:
            root = prepare_python_corpus(pkg)
        else:
            root = CORPORA / pkg
            if not (root / ".complete").is_file():
                sys.exit(f"{root} is missing; bench/graph_eval.sh fetches it")
        export, ken_error, ken_seconds = None, None, 0.0
        if run_ken_now:
            export_path, ken_error, ken_seconds = run_ken(args.ken, pkg, root, reindex=not args.no_index)
            if export_path is not None:
                try:
                    export = Export(export_path)
                except (ValueError, KeyError, TypeError) as err:
                    ken_error = f"cannot read the export {export_path}: {err}"
            if ken_error:
                results["failures"][pkg] = ken_error
                print(f"  {pkg}: {ken_error}", flush=True)
        if export is not None:
            cov, src_kinds = coverage(export)
            results["coverage"][pkg] = {"relations": cov, "calls_src_kinds": src_kinds, "symbols": len(export.symbols), "edges": len(export.edges), "ken_seconds": round(ken_seconds, 2)}

        if pkg in PY_PACKAGES:
            corpus = Corpus(pkg, root)
            sample, n_candidates, excluded = sample_symbols(corpus, n)
            cache_path, cache = load_oracle_cache(pkg)
            cached_before = sum(1 for s in sample if s["key"] in cache["symbols"])
            t0 = time.monotonic()
            asked = run_jedi_oracle(corpus, sample, cache_path, cache, deadline)
            jedi_s = time.monotonic() - t0
            t0 = time.monotonic()
            sub_oracle = run_subclasses_oracle(pkg, cache_path, cache)
            sub_s = time.monotonic() - t0
            errs = Counter(w for s in sample for w in cache["symbols"].get(s["key"], {}).get("errors", {}))
            pres.update({
                "version": package_version(pkg), "candidates": n_candidates, "excluded_from_sample": excluded,
                "sample": [s["key"] for s in sample], "jedi_seconds": round(jedi_s, 1), "jedi_asked": asked,
                "jedi_cached": cached_before, "jedi_errors": dict(errs), "subclasses_seconds": round(sub_s, 1),
                "ast_parse_errors": corpus.parse_errors,
            })
            if "error" in sub_oracle:
                pres["subclasses_oracle_error"] = sub_oracle["error"]
            else:
                pres["subclasses_oracle"] = {k: sub_oracle[k] for k in ("failed_modules", "skipped_dynamic", "skipped_local", "module_differs_from_file", "modules")}
                pres["subclasses_oracle"]["classes"] = len(sub_oracle["classes"])
                pres["subclasses_oracle"]["bases_with_subclasses"] = len(sub_oracle["closure"])
            print(f"{pkg} {pres['version']}: {len(sample)} symbols of {n_candidates} (jedi asked {asked}, cached {cached_before}, "
                  f"{jedi_s:.1f} s, errors {dict(errs) or 0}); subclasses oracle "
                  + (f"{len(sub_oracle['closure'])} bases, {len(sub_oracle['classes'])} classes, "
                     f"{len(sub_oracle['skipped_dynamic'])} dynamic + {sub_oracle['skipped_local']} local classes skipped, "
                     f"{len(sub_oracle['failed_modules'])} modules not importable ({sub_s:.1f} s)"
                     if "error" not in sub_oracle else f"FAILED: {sub_oracle['error'][:200]}")
                  + (f"; ken {ken_seconds:.1f} s" if export is not None else ""), flush=True)

            if export is not None:
                checker = SiteChecker(corpus, cache_path, cache, limit=SITE_CHECKS_PER_PACKAGE)
                m, st, chk, det = compare_callers(export, sample, cache["symbols"], checker)
                checker.save()
                pres["callers"] = {k: v.json() for k, v in m.items()} | {"stats": dict(st), **chk, "jedi_site_checks": checker.asked, "mismatches": det}
                rows.append(row("callers", pkg, st, m, "callers", "sites", chk["checked_site_precision"]))
                for k, v in m.items():
                    totals["callers"][k].merge(v)
                for k, v in chk["extra_sites"].items():
                    checked_totals["callers"][k] += v
                m, st, chk, det = compare_callees(export, sample, cache["symbols"], corpus)
                pres["callees"] = {k: v.json() for k, v in m.items()} | {"stats": dict(st), **chk, "mismatches": det}
                rows.append(row("callees", pkg, st, m, "callees", "pairs", chk["checked_pair_precision"]))
                for k, v in m.items():
                    totals["callees"][k].merge(v)
                for k, v in chk["extra_pairs"].items():
                    checked_totals["callees"][k] += v
                if "error" not in sub_oracle:
                    s = compare_subclasses(export, sub_oracle)
                    pres["subclasses"] = {k: (v.json() if isinstance(v, PR) else v) for k, v in s.items()}
                    rows.append({
                        "relation": "subclasses", "package": pkg, "n": s["bases"], "p": s["pairs"].precision, "r": s["pairs"].recall,
                        "site": f"exact {s['exact']}/{s['bases']}" + (f" = {s['exact_fraction']:.0%}" if s["bases"] else ""),
                        "no_unique": f"direct {pr_pair(s['direct'])}", "checked": "",
                        "note": f"{len(s['classes_missing_in_ken'])} oracle classes not in ken" if s["classes_missing_in_ken"] else "",
                    })
                    sub_totals["bases"] += s["bases"]
                    sub_totals["exact"] += s["exact"]
                    sub_totals["pairs"].merge(s["pairs"])
        else:
            print(f"{pkg}: coverage only" + (f"; ken {ken_seconds:.1f} s" if export is not None else ""), flush=True)
        pres["seconds"] = round(time.monotonic() - t_pkg, 1)
        results["packages"][pkg] = pres

    # ---- tables
    if rows:
        print()
        header = f"{'relation':<10} {'package':<9} {'symbols':<8} {'precision':<10} {'recall':<7} {'(site P/R)':<17} {'(no unique_name P/R; site)':<27} {'checked P':<10} notes"
        print(header)
        print("-" * len(header))
        order = {"callers": 0, "callees": 1, "subclasses": 2}
        for r in sorted(rows, key=lambda r: order[r["relation"]]):
            print(f"{r['relation']:<10} {r['package']:<9} {r['n']:<8} {fmt(r['p']):<10} {fmt(r['r']):<7} {r['site']:<17} {r['no_unique']:<27} {r['checked']:<10} {r['note']}")
        print("-" * len(header))
        for rel, key, site in (("callers", "callers", "sites"), ("callees", "callees", "pairs")):
            m = totals[rel]
            if key in m:
                c = checked_totals[rel]
                tp = m[site].tp + c["agree"]
                wrong = c["wrong"] + c["not_a_call"]
                checked = fmt(tp / (tp + wrong)) if tp + wrong else "n/a"
                print(f"{rel:<10} {'TOTAL':<9} {sum(r['n'] for r in rows if r['relation'] == rel):<8} {fmt(m[key].precision):<10} {fmt(m[key].recall):<7} "
                      f"{pr_pair(m[site]):<17} {pr_pair(m[key + '_no_unique']) + '; ' + pr_pair(m[site + '_no_unique']):<27} {checked:<10}")
        if sub_totals["bases"]:
            frac = sub_totals["exact"] / sub_totals["bases"]
            print(f"{'subclasses':<10} {'TOTAL':<9} {sub_totals['bases']:<8} {fmt(sub_totals['pairs'].precision):<10} {fmt(sub_totals['pairs'].recall):<7} "
                  f"exact {sub_totals['exact']}/{sub_totals['bases']} = {frac:.0%}  (target >= 95%)")
        print(LEGEND)
        results["totals"] = {rel: {k: v.json() for k, v in m.items()} for rel, m in totals.items()}
        for rel, c in checked_totals.items():
            results["totals"][rel]["extra"] = dict(c)
        if sub_totals["bases"]:
            results["totals"]["subclasses"] = {"bases": sub_totals["bases"], "exact": sub_totals["exact"],
                                               "exact_fraction": sub_totals["exact"] / sub_totals["bases"], "pairs": sub_totals["pairs"].json()}

    for pkg in packages:
        s = results["packages"][pkg].get("subclasses")
        if s and s["mismatches"]:
            print(f"\nsubclasses mismatches in {pkg} (first {SUBCLASS_MISMATCHES_SHOWN} of {len(s['mismatches'])}):")
            for mm in s["mismatches"][:SUBCLASS_MISMATCHES_SHOWN]:
                where = "" if mm["in_ken"] else "  [base not in ken's symbols]"
                print(f"  {mm['base']}{where}")
                if mm["missing"]:
                    print(f"    missing: {', '.join(mm['missing'][:8])}{' …' if len(mm['missing']) > 8 else ''}")
                if mm["extra"]:
                    print(f"    extra:   {', '.join(mm['extra'][:8])}{' …' if len(mm['extra']) > 8 else ''}")

    if results["coverage"]:
        print("\ncoverage   relation          edges  resolved  " + "  ".join(f"{r:>13}" for r in RESOLUTIONS) + "  other")
        for pkg, cov in results["coverage"].items():
            for rel in COVERAGE_PRINTED:
                c = cov["relations"].get(rel)
                if c is None or (rel not in COVERAGE_RELATIONS and not c["edges"]):
                    continue
                by = c["by_resolution"]
                shares = "  ".join(f"{(by.get(r, 0) / c['edges'] if c['edges'] else 0):>13.0%}" for r in RESOLUTIONS)
                other = sum(v for k, v in by.items() if k not in RESOLUTIONS)
                print(f"{pkg:<10} {rel:<16} {c['edges']:>6}  {fmt(c['resolved_fraction']) if c['edges'] else 'n/a':>8}  {shares}  {other}")
            odd = {k: v for k, v in cov["calls_src_kinds"].items() if k not in SCOPE_KINDS}
            if odd:
                print(f"{'':<10} calls/instantiates edges whose src is not a def, class or module: {odd}")
        print("resolved = dst not null; calls to the standard library and dependencies stay unresolved by design.")

    results["seconds"] = round(time.monotonic() - t_start, 1)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "graph_eval.json"
    out.write_text(json.dumps(results, indent=1, default=list))
    print(f"\nwrote {out.relative_to(REPO)} ({results['seconds']:.0f} s)")
    if results["failures"]:
        print(f"ken failed on: {', '.join(results['failures'])}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
