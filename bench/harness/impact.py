"""Change impact: add a required parameter to a function's signature and ask
a type checker what breaks. The gold set is the type checker's new
diagnostics (pyright for Python, `tsc --noEmit` for TypeScript) minus the
baseline's, as {path, line} locations: call sites now missing an argument and
overrides that no longer match.

A system is asked, for the changed definition, which locations must change;
precision and recall are over locations (a predicted range counts when it
holds a gold line)."""

import ast
import json
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

from . import corpora, symbols
from .paths import CACHE

NEW_PARAM = "ken_bench_added"
CHECK_TIMEOUT = 600


class CheckerMissing(Exception):
    pass


def impact_set(name, syms, n):
    corpus = corpora.CORPORA[name]
    if corpus.language not in ("python", "typescript", "rust"):
        return None
    cache = CACHE / "impact" / f"{name}-{corpus.version}-{n}.json"
    if cache.is_file():
        return json.loads(cache.read_text())
    root = corpora.fetch(name)
    if corpus.language == "rust" and _has_dependencies(root):
        return None  # cargo check would build the crate's dependencies first; not yet
    work = Path(tempfile.mkdtemp(prefix=f"ken-impact-{name}-"))
    try:
        shutil.copytree(root, work, dirs_exist_ok=True)
        check = {"python": _pyright, "typescript": _tsc, "rust": _cargo}[corpus.language]
        if corpus.language == "typescript":
            _write_tsconfig(work)
        baseline = Counter(check(work))
        candidates = _candidates(work, syms, corpus.language)
        r = __import__("random").Random(f"kenning-bench-1/{name}/impact")
        r.shuffle(candidates)
        rows = []
        for s in candidates:
            if len(rows) >= n:
                break
            path = work / s.path
            original = path.read_bytes()
            edited = _add_parameter(original, s, corpus.language)
            if edited is None:
                continue
            path.write_bytes(edited)
            try:
                after = Counter(check(work))
            finally:
                path.write_bytes(original)
            new = after - baseline
            gold = sorted({(p, l) for p, l, _ in new.elements()
                           if not (p == s.path and l == s.name_line)})
            if not gold:
                continue  # nothing breaks: no caller the checker can see
            target = {"path": s.path, "line": s.name_line, "name": s.name, "qual": s.qual,
                      "name_line": s.name_line, "name_col": s.name_col}
            rows.append({"id": f"c{len(rows) + 1}", "set": "impact", "style": s.kind,
                         "query": f"add a required parameter to {s.qual} ({s.path}:{s.name_line})",
                         "target": target, "gold": [{"path": p, "start_line": l, "end_line": l} for p, l in gold]})
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(rows, indent=1))
        return rows
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _candidates(work, syms, language):
    """Functions and methods whose name occurs elsewhere, so a change can break something."""
    words = Counter()
    for p in symbols.source_files(work, language):
        words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", p.read_text("utf-8", "replace")))
    names = Counter(s.name for s in syms)
    return [s for s in syms if s.kind in ("function", "method") and len(s.name) > 3
            and not (s.name.startswith("__") and s.name != "__init__") and names[s.name] == 1 and words[s.name] >= 2]


def _add_parameter(data, s, language):
    """The source with NEW_PARAM appended to s's parameter list, or None when
    that cannot be done simply (Python **kwargs, overloads)."""
    text = data.decode("utf-8")
    lines = text.split("\n")
    offset = sum(len(l) + 1 for l in lines[:s.name_line - 1]) + s.name_col
    if text[offset:offset + len(s.name)] != s.name:
        return None
    if language == "python":
        tree = ast.parse(data)
        node = next((d for d in ast.walk(tree) if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and d.lineno == s.name_line and d.name == s.name), None)
        if node is None or node.args.kwarg is not None:
            return None
    open_at = text.find("(", offset + len(s.name))
    if language == "rust" and 0 <= text.find("<", offset + len(s.name)) < open_at:
        return None  # generic functions: keep the tasks simple
    if language == "typescript":
        generic = text.find("<", offset + len(s.name))
        if 0 <= generic < open_at:  # skip type parameters
            depth, i = 0, generic
            while i < len(text):
                depth += {"<": 1, ">": -1}.get(text[i], 0)
                if depth == 0:
                    break
                i += 1
            open_at = text.find("(", i)
    if open_at < 0:
        return None
    depth, i, close_at = 0, open_at, None
    in_str = None
    while i < len(text):
        c = text[i]
        if in_str:
            if c == "\\":
                i += 1
            elif c == in_str:
                in_str = None
        elif c in ("\"" if language == "rust" else "\"'`"):  # Rust's ' starts a lifetime too
            in_str = c
        elif c == "#" and language == "python":
            i = text.find("\n", i)
            continue
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                close_at = i
                break
        i += 1
    if close_at is None:
        return None
    inside = text[open_at + 1:close_at].strip()
    param = {"python": NEW_PARAM, "typescript": f"{NEW_PARAM}: number", "rust": f"{NEW_PARAM}: usize"}[language]
    if not inside:
        insert = param
    elif inside.endswith(","):
        insert = " " + param
    else:
        insert = ", " + param
    if language == "typescript":
        last = inside.split(",")[-1]
        if re.search(r"(^|,)\s*\.\.\.", inside) or "?" in last.split(":")[0] or "=" in last:
            return None  # a required parameter cannot follow a rest or optional one
    edited = (text[:close_at] + insert + text[close_at:]).encode()
    if language == "python" and not symbols.parses_cleanly(edited, language):
        # After a parameter with a default: make the new one keyword-only.
        edited = (text[:close_at] + insert.replace(NEW_PARAM, "*, " + NEW_PARAM) + text[close_at:]).encode()
    return edited if symbols.parses_cleanly(edited, language) else None


def _pyright(work):
    exe = shutil.which("pyright")
    if not exe:
        raise CheckerMissing("pyright is not installed (npm install -g pyright@1.1.408)")
    venv_python = CACHE / "graph-venv" / "bin" / "python"
    cmd = [exe, "--outputjson"] + (["--pythonpath", str(venv_python)] if venv_python.exists() else []) + ["."]
    p = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=CHECK_TIMEOUT)
    try:
        diags = json.loads(p.stdout)["generalDiagnostics"]
    except (json.JSONDecodeError, KeyError) as e:
        raise RuntimeError(f"pyright gave no JSON (exit {p.returncode}): {p.stderr[-300:]}") from e
    return [(str(Path(d["file"]).relative_to(work)), d["range"]["start"]["line"] + 1,
             re.sub(NEW_PARAM, "", d["message"]))
            for d in diags if d["severity"] == "error"]


def _write_tsconfig(work):
    (work / "tsconfig.bench.json").write_text(json.dumps({
        "compilerOptions": {"strict": True, "target": "es2020", "module": "commonjs", "moduleResolution": "node",
                            "lib": ["es2020", "dom"], "noEmit": True, "skipLibCheck": True, "baseUrl": "src",
                            "paths": {"rxjs": ["./"], "rxjs/*": ["./*"]}},
        "include": ["src/**/*.ts"]}))


def _has_dependencies(root):
    manifest = (Path(root) / "Cargo.toml").read_text("utf-8", "replace")
    return re.search(r"^\[(target\..*\.)?dependencies\]\s*\n\s*[A-Za-z]", manifest, re.M) is not None


def _cargo(work):
    p = subprocess.run(["cargo", "check", "--all-targets", "--message-format=short", "--quiet"], cwd=work,
                       capture_output=True, text=True, timeout=CHECK_TIMEOUT,
                       env={**__import__("os").environ, "CARGO_TARGET_DIR": str(Path(work) / "target")})
    out = []
    for line in p.stderr.splitlines():
        m = re.match(r"(.+?):(\d+):\d+: error(\[E\d+\])?: (.*)", line)
        if m:
            out.append((m.group(1), int(m.group(2)), re.sub(NEW_PARAM, "", m.group(4))))
    return out


def _tsc(work):
    exe = shutil.which("tsc")
    if not exe:
        raise CheckerMissing("tsc is not installed (npm install -g typescript@5.9.3)")
    p = subprocess.run([exe, "--noEmit", "--pretty", "false", "-p", "tsconfig.bench.json"], cwd=work,
                       capture_output=True, text=True, timeout=CHECK_TIMEOUT)
    out = []
    for line in p.stdout.splitlines():
        m = re.match(r"(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)", line)
        if m:
            out.append((m.group(1), int(m.group(2)), m.group(4) + re.sub(NEW_PARAM, "", m.group(5))))
    return out
