"""Change impact: edit a definition mechanically and ask a type checker what
breaks. Four kinds of edit, each a set of rows (`category`):

- add-parameter: a required parameter appended to a function or method;
- constructor: the same, on a class's constructor (`__init__`,
  `constructor`, Rust's `new`);
- delete: a function or method removed (its lines blanked, so every other
  line keeps its number);
- rename: a function or method renamed where it is defined, not where it is
  used;
- field-rename: a field renamed where it is declared (a Python class-level
  field or the `self.x = …` of `__init__`, a TypeScript class property, a
  Rust struct field), not where it is used;
- base-class: a class's only base class, one of the corpus's, removed
  (`class A(B):` becomes `class A:`, `class A extends B` becomes `class
  A`); Rust has no inheritance, so no rows.

The gold set is the type checker's new diagnostics (pyright for Python,
`tsc --noEmit` for TypeScript, `cargo check` for Rust) minus the baseline's,
as {path, line} locations: call sites now missing an argument or calling
what is gone, overrides that no longer match.

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


# Each kind: (row id prefix, what the query says, the seed's name in it).
KINDS = {
    "add-parameter": ("c", "add a required parameter to"),
    "constructor": ("k", "add a required parameter to the constructor"),
    "delete": ("d", "delete"),
    "rename": ("r", "rename"),
    "field-rename": ("f", "rename the field"),
    "base-class": ("b", "remove the base class of"),
}
RENAMED = "_ken_bench_renamed"


def impact_set(name, syms, n):
    """n rows of each kind of edit (fewer where the corpus has fewer
    candidates that break something)."""
    rows = []
    for kind in KINDS:
        part = _kind_set(name, syms, n, kind)
        if part is None:
            return None
        rows += [{**r, "category": kind} for r in part]
    return rows


def _kind_set(name, syms, n, kind):
    corpus = corpora.CORPORA[name]
    if corpus.language not in ("python", "typescript", "rust"):
        return None
    # add-parameter keeps its first file name: the rows measured before the other kinds.
    suffix = "" if kind == "add-parameter" else f"-{kind}"
    cache = CACHE / "impact" / f"{name}-{corpus.version}{suffix}-{n}.json"
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
        if kind == "constructor":
            candidates = _constructors(work, syms, corpus.language)
        elif kind == "field-rename":
            candidates = _fields(work, corpus.language)
        elif kind == "base-class":
            candidates = _derived_classes(work, syms, corpus.language)
        else:
            candidates = _candidates(work, syms, corpus.language)
        seed = f"kenning-bench-1/{name}/impact" + ("" if kind == "add-parameter" else f"/{kind}")
        r = __import__("random").Random(seed)
        r.shuffle(candidates)
        prefix, verb = KINDS[kind]
        rows = []
        for s in candidates:
            if len(rows) >= n:
                break
            path = work / s.path
            original = path.read_bytes()
            target = {"path": s.path, "line": s.name_line, "name": s.name, "qual": s.qual,
                      "name_line": s.name_line, "name_col": s.name_col, "edit": kind,
                      "start_line": s.start_line, "end_line": s.end_line}
            if kind == "constructor":
                target["class"] = s.container
            edited = apply_edit(original, target, corpus.language)
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
            shown = s.container if kind == "constructor" else s.qual
            rows.append({"id": f"{prefix}{len(rows) + 1}", "set": "impact", "style": s.kind,
                         "query": f"{verb} {shown} ({s.path}:{s.name_line})",
                         "target": target, "gold": [{"path": p, "start_line": l, "end_line": l} for p, l in gold]})
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(rows, indent=1))
        return rows
    finally:
        shutil.rmtree(work, ignore_errors=True)


_CALLS = {}


def call_sites(root, language, target):
    """The calls of the target in the corpus, found in the syntax tree by
    name (a constructor's by its class's name): the checker's diagnostics
    are a lower bound, and a call of what changed is no false alarm even
    where the checker stays silent (it reports the import of a deleted
    function, not its calls). Precision is also given against the gold set
    plus these (`P+calls`)."""
    key = (str(root), language)
    if key not in _CALLS:
        _CALLS[key] = _call_index(Path(root), language)
    name = target.get("class") or target["name"]
    return [{"path": p, "start_line": l, "end_line": l} for p, l in sorted(_CALLS[key].get(name, ()))]


def _call_index(root, language):
    index = {}
    for path in symbols.source_files(root, language):
        rel = str(path.relative_to(root))
        data = path.read_bytes()
        if language == "python":
            try:
                tree = ast.parse(data)
            except (SyntaxError, ValueError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Call):
                    f = node.func
                    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
                    if name:
                        index.setdefault(name, set()).add((rel, node.lineno))
            continue
        stack = [symbols.parser(language).parse(data).root_node]
        while stack:
            node = stack.pop()
            stack.extend(node.children)
            if node.type not in ("call_expression", "new_expression"):
                continue
            callee = node.child_by_field_name("function") or node.child_by_field_name("constructor")
            while callee is not None and callee.type not in ("identifier", "property_identifier", "field_identifier", "type_identifier"):
                callee = (callee.child_by_field_name("property") or callee.child_by_field_name("field")
                          or callee.child_by_field_name("name") or (callee.named_children[-1] if callee.named_children else None))
            if callee is not None:
                name = data[callee.start_byte:callee.end_byte].decode("utf-8", "replace")
                index.setdefault(name, set()).add((rel, callee.start_point[0] + 1))
    return index


def apply_edit(data, target, language):
    """The source with the target's edit made, or None when it cannot be made
    simply (see each kind)."""
    from types import SimpleNamespace
    s = SimpleNamespace(**{k: target[k] for k in ("name", "name_line", "name_col")})
    kind = target.get("edit", "add-parameter")
    if kind in ("add-parameter", "constructor"):
        return _add_parameter(data, s, language)
    if kind in ("rename", "field-rename"):
        return _rename(data, s, language)
    if kind == "base-class":
        return _drop_base(data, s, language)
    if kind == "delete":
        return _delete(data, target["start_line"], target["end_line"], language)
    raise ValueError(f"unknown edit {kind}")


def _rename(data, s, language):
    """The definition's name, and only it, renamed."""
    text = data.decode("utf-8")
    lines = text.split("\n")
    offset = sum(len(l) + 1 for l in lines[:s.name_line - 1]) + s.name_col
    if text[offset:offset + len(s.name)] != s.name:
        return None
    edited = (text[:offset] + s.name + RENAMED + text[offset + len(s.name):]).encode()
    return edited if symbols.parses_cleanly(edited, language) else None


def _delete(data, start_line, end_line, language):
    """The definition's lines (decorators included) blanked, so every other
    line keeps its number; a Python body left empty gets a `pass`."""
    lines = data.decode("utf-8").split("\n")
    if not (1 <= start_line <= end_line <= len(lines)):
        return None
    indent = re.match(r"\s*", lines[start_line - 1]).group(0)
    for i in range(start_line - 1, end_line):
        lines[i] = ""
    edited = "\n".join(lines).encode()
    if language == "python" and not symbols.parses_cleanly(edited, language):
        lines[start_line - 1] = indent + "pass"
        edited = "\n".join(lines).encode()
    return edited if symbols.parses_cleanly(edited, language) else None


def _word_counts(work, language):
    """How often each identifier-like word occurs in the corpus's sources."""
    words = Counter()
    for p in symbols.source_files(work, language):
        words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", p.read_text("utf-8", "replace")))
    return words


def _candidates(work, syms, language):
    """Functions and methods whose name occurs elsewhere, so a change can break something."""
    words = _word_counts(work, language)
    names = Counter(s.name for s in syms)
    return [s for s in syms if s.kind in ("function", "method") and len(s.name) > 3
            and not (s.name.startswith("__") and s.name != "__init__") and names[s.name] == 1 and words[s.name] >= 2]


_PY_BASE = r"class\s+{name}\s*\(\s*([A-Za-z_][\w.]*)\s*\)\s*:"
_TS_BASE = r"class\s+{name}(\s*<[^>{{}}]*>)?\s+(extends\s+([A-Za-z_][\w.]*))\s*(\{{|implements\b)"


def _derived_classes(work, syms, language):
    """Classes with one base class written plainly (`class A(B):`, `class A
    extends B`), B a class of the corpus with a name of its own."""
    if language not in ("python", "typescript"):
        return []
    classes = Counter(s.name for s in syms if s.kind == "class")
    out = []
    for s in syms:
        if s.kind != "class" or classes[s.name] != 1:
            continue
        line = (work / s.path).read_text("utf-8", "replace").split("\n")[s.name_line - 1]
        pattern = (_PY_BASE if language == "python" else _TS_BASE).format(name=re.escape(s.name))
        m = re.search(pattern, line)
        base = m and (m.group(1) if language == "python" else m.group(3))
        if base and classes[base.rsplit(".", 1)[-1]] == 1:
            out.append(s)
    return out


def _drop_base(data, s, language):
    """The class's base class removed from its header line."""
    lines = data.decode("utf-8").split("\n")
    line = lines[s.name_line - 1]
    pattern = (_PY_BASE if language == "python" else _TS_BASE).format(name=re.escape(s.name))
    m = re.search(pattern, line)
    if not m:
        return None
    # Python: from `(` to the `:` kept; TypeScript: the `extends B` clause.
    start, end = (line.index("(", m.start()), m.end() - 1) if language == "python" else (m.start(2), m.end(2))
    lines[s.name_line - 1] = line[:start].rstrip() + line[end:]
    edited = "\n".join(lines).encode()
    return edited if symbols.parses_cleanly(edited, language) else None


def _fields(work, language):
    """Fields declared once in the corpus whose name occurs elsewhere: a
    Python class-level field (`timeout: float = 5`) or the first `self.x =
    …` of `__init__`, a TypeScript class property, a Rust struct field."""
    from .symbols import Sym
    words = _word_counts(work, language)
    found = []
    for path in symbols.source_files(work, language):
        rel = path.relative_to(work).as_posix()
        data = path.read_bytes()
        found.extend(_python_fields(rel, data) if language == "python" else _tree_sitter_fields(rel, data, language))
    names = Counter(f.name for f in found)
    return [Sym(f.path, f.name, f.container, "field", f.start_line, f.end_line, name_line=f.name_line, name_col=f.name_col)
            for f in found if len(f.name) > 3 and not f.name.startswith("__") and names[f.name] == 1 and words[f.name] >= 2]


def _python_fields(rel, data):
    from types import SimpleNamespace as F
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return []
    out = []
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        seen = set()
        for stmt in cls.body:
            target = stmt.target if isinstance(stmt, ast.AnnAssign) else (
                stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None)
            if isinstance(target, ast.Name) and target.id not in seen:
                seen.add(target.id)
                out.append(F(path=rel, name=target.id, container=cls.name, start_line=stmt.lineno,
                             end_line=stmt.end_lineno, name_line=target.lineno, name_col=target.col_offset))
        init = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
        for node in ast.walk(init) if init else ():
            target = node.target if isinstance(node, ast.AnnAssign) else (
                node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None)
            if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
                    and target.attr not in seen and target.lineno == target.end_lineno):
                seen.add(target.attr)
                out.append(F(path=rel, name=target.attr, container=cls.name, start_line=node.lineno,
                             end_line=node.end_lineno, name_line=target.lineno,
                             name_col=target.end_col_offset - len(target.attr)))
    return out


def _tree_sitter_fields(rel, data, language):
    from types import SimpleNamespace as F
    tree = symbols.parser(language).parse(data)
    kinds = {"typescript": ("public_field_definition", "class_declaration"),
             "rust": ("field_declaration", "struct_item")}[language]
    out = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type != kinds[0]:
            continue
        name = node.child_by_field_name("name")
        owner = node.parent
        while owner is not None and owner.type not in (kinds[1], "abstract_class_declaration"):
            owner = owner.parent
        owner_name = owner.child_by_field_name("name") if owner is not None else None
        if name is None or owner_name is None or name.type not in ("property_identifier", "field_identifier"):
            continue
        text = lambda n: data[n.start_byte:n.end_byte].decode("utf-8", "replace")
        out.append(F(path=rel, name=text(name), container=text(owner_name), start_line=node.start_point[0] + 1,
                     end_line=node.end_point[0] + 1, name_line=name.start_point[0] + 1, name_col=name.start_point[1]))
    return out


def _constructors(work, syms, language):
    """Constructors (`__init__`, `constructor`, `new`) of classes whose name
    occurs elsewhere, so an instantiation can break."""
    words = _word_counts(work, language)
    classes = Counter(s.name for s in syms if s.kind == "class")
    return [s for s in syms if s.kind == "method" and s.name in ("__init__", "constructor", "new") and s.container
            and classes[s.container] == 1 and words[s.container] >= 2]


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
