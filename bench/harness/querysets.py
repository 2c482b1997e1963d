"""The query sets, generated from the pinned code itself or from oracles.

  docstring   CodeSearchNet-style: a function's docstring's first sentence
              is the query and the function is the gold, searched in a copy
              of the corpus with every docstring and doc comment blanked
              (line numbers kept, the copy must still parse).
  identifier  RepoGPT-style requests ("show the X method in the Y class",
              "show the methods in the Y class") and bare, lower-case and
              misspelled names.
  questions   hand-written natural-language questions (questions.py).
  graph       callers and callees from jedi, subclasses from
              `__subclasses__()` (bench/graph_eval.py's cached oracles).
  impact      change impact from a type checker (impact.py).
  docs        hand-written questions answered by a README, docs page or
              config file (docs.py), on the tree corpora only.

Every query is {id, set, query, gold: [{path, start_line, end_line}], ...};
generation is seeded per corpus, so a run's queries do not depend on what
else it runs."""

import ast
import json
import random
import re
import shutil
from pathlib import Path

from . import corpora, docs, questions, symbols
from .paths import CACHE

SETS = ["docstring", "identifier", "questions", "graph", "impact", "docs"]


def not_offered(name, set_name):
    """Why set_name is not run on the corpus, or None when it is. A tree
    corpus answers the docs set only: its docs repeat the docstrings (the
    docstring set's answers), and it has no graph or type-checker oracle nor
    hand-written code questions. A code corpus has no docs to ask about.
    A whole Rust crate is the exception for impact: `cargo check` is its
    type-checker oracle (impact.py skips one with dependencies)."""
    corpus = corpora.CORPORA[name]
    if corpus.tree:
        if set_name == "docs" or (set_name == "impact" and corpus.language == "rust"):
            return None
        return f"{name} is a whole-tree corpus, kept for the docs set and (Rust) the impact set"
    return "a code-only corpus (wheel or src/) has no docs or config to ask about" if set_name == "docs" else None


def rng(corpus, set_name):
    return random.Random(f"kenning-bench-1/{corpus}/{set_name}")


# ---------------------------------------------------------------- docstring

def first_sentence(doc):
    text = " ".join(doc.strip().split())
    text = re.sub(r"\[`?([^\]`]+)`?\]\([^)]*\)", r"\1", text)  # markdown links
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", text)  # Sphinx roles
    text = re.sub(r"\[`?([^\]`]+)`?\]", r"\1", text)
    text = re.sub(r"[`*]", "", text)
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    s = (m.group(1) if m else text).strip().rstrip(":")
    if s.startswith(("@", "Deprecated", "See ", "Alias", "Same as", "Note", "TODO", "Safety")):
        return None
    return s if 4 <= len(s.split()) <= 40 else None


def _blank_python(data):
    tree = ast.parse(data)
    lines = data.decode("utf-8", "replace").split("\n")
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            continue
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            doc = body[0]
            for ln in range(doc.lineno - 1, doc.end_lineno):
                lines[ln] = ""
            # `...` keeps a body that held only the docstring.
            lines[doc.lineno - 1] = " " * doc.col_offset + "..."
    return "\n".join(lines).encode()


def _blank_doc_comments(data, language):
    tree = symbols.parser(language).parse(data)
    out = bytearray(data)
    stack = [tree.root_node]
    while stack:
        n = stack.pop()
        stack.extend(n.children)
        if n.type not in ("comment", "line_comment", "block_comment"):
            continue
        t = data[n.start_byte:n.start_byte + 3]
        if t in (b"/**", b"///", b"//!", b"/*!"):
            for i in range(n.start_byte, n.end_byte):
                if out[i] != ord("\n"):
                    out[i] = ord(" ")
    return bytes(out)


def docstring_set(name, n):
    """(queries, stripped corpus root)."""
    corpus = corpora.CORPORA[name]
    root = corpora.fetch(name)
    dst = CACHE / "stripped" / f"{name}-{corpus.version}"
    stamp = dst / ".complete"
    if not stamp.is_file():
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(root, dst)
        kept = 0
        for path in symbols.source_files(dst, corpus.language):
            data = path.read_bytes()
            if not symbols.parses_cleanly(data, corpus.language):
                continue
            blanked = _blank_python(data) if corpus.language == "python" else _blank_doc_comments(data, corpus.language)
            assert blanked.count(b"\n") == data.count(b"\n"), path
            if symbols.parses_cleanly(blanked, corpus.language):
                path.write_bytes(blanked)
                kept += 1
            # else: the original stays, and its docstrings give no queries (below)
        stamp.write_text(f"{kept}\n")
    syms_orig = symbols.extract(root, corpus.language)
    stripped = {p.relative_to(dst).as_posix() for p in symbols.source_files(dst, corpus.language)
                if p.read_bytes() != (root / p.relative_to(dst)).read_bytes()}
    sentences = {}
    for s in syms_orig:
        if s.kind == "class" or not s.doc or s.path not in stripped or s.in_macro:
            continue
        sentence = first_sentence(s.doc)
        if sentence:
            sentences.setdefault(sentence.lower(), []).append((sentence, s))
    # A sentence shared by several functions does not say which one it means.
    pool = [v[0] for k, v in sorted(sentences.items()) if len(v) == 1]
    picked = rng(name, "docstring").sample(pool, min(n, len(pool)))
    return [{"id": f"d{i + 1}", "set": "docstring", "query": q, "gold": [s.gold()], "style": s.kind}
            for i, (q, s) in enumerate(picked)], dst


# ---------------------------------------------------------------- identifier

def identifier_set(name, syms, n):
    """n sampled methods, each asked for in every style; the gold is every
    definition the words name (a property's getter and setter, overloads, a
    function and a method of the same name)."""
    language = corpora.CORPORA[name].language
    container_word = {"python": "class", "typescript": "class", "rust": "type"}[language]
    fold = lambda w: w.lower().replace("_", "")
    by_name, by_fold, by_pair, by_container = {}, {}, {}, {}
    for s in syms:
        by_name.setdefault(s.name, []).append(s.gold())
        by_fold.setdefault(fold(s.name), []).append(s.gold())
        if s.container:
            by_pair.setdefault((s.container, s.name), []).append(s.gold())
            by_container.setdefault(s.container, []).append(s.gold())
    methods = [s for s in syms if s.kind == "method" and not s.name.startswith("_") and len(s.name) >= 6
               and (s.container, s.name) in by_pair and not s.in_macro]
    r = rng(name, "identifier")
    rows = []
    for s in r.sample(methods, min(n, len(methods))):
        m, c = s.name, s.container
        rows.append({"query": f"show the {m} method in the {c} {container_word}", "style": "repogpt", "gold": by_pair[(c, m)]})
        rows.append({"query": m, "style": "bare", "gold": by_name[m]})
        if fold(m) != m:
            rows.append({"query": fold(m), "style": "lowercase", "gold": by_fold[fold(m)]})
        i = r.randrange(1, len(m) - 1)
        typo = m[:i] + m[i + 1:]
        if fold(typo) not in by_fold:
            rows.append({"query": typo, "style": "misspelled", "gold": by_name[m]})
    plain = {}
    for s in syms:
        if s.container and not s.in_macro:
            plain[s.container] = plain.get(s.container, 0) + 1
    containers = sorted(c for c, count in plain.items() if 3 <= count <= 30)
    for c in r.sample(containers, min(n // 4, len(containers))):
        rows.append({"query": f"show the methods in the {c} {container_word}", "style": "methods-of", "gold": by_container[c]})
    for i, row in enumerate(rows):
        row.update(id=f"i{i + 1}", set="identifier")
    return rows


# ---------------------------------------------------------------- questions

def question_set(name, syms):
    rows = questions.load(name, syms)
    for row in rows:
        row["set"] = "questions"
        row["style"] = "identifier-free" if row["identifier_free"] else "with identifiers"
    return rows


# ---------------------------------------------------------------- docs

def docs_set(name):
    rows = docs.load(name)
    for row in rows:
        row["set"] = "docs"
    return rows


# ---------------------------------------------------------------- graph

def graph_set(name, syms, n):
    """callers/callees/subclasses questions with a non-empty oracle answer.
    Needs bench/.cache/graph-oracle-<name>.json (bench/graph_eval.sh --oracle-only)."""
    path = CACHE / f"graph-oracle-{name}.json"
    if not path.is_file():
        return None
    oracle = json.loads(path.read_text())
    if oracle["key"]["version"] != corpora.CORPORA[name].version:
        raise ValueError(f"{path} is for {name} {oracle['key']['version']}, not {corpora.CORPORA[name].version}; "
                         "rerun bench/graph_eval.sh --oracle-only")
    by_loc = {(s.path, s.name_line, s.name): s for s in syms}
    rows = []
    for key, entry in sorted(oracle["symbols"].items()):
        p, line, sym_name = key.split(":")
        s = by_loc.get((p, int(line), sym_name))
        if s is None or entry.get("errors"):
            continue
        target = {"path": p, "line": int(line), "name": sym_name, "qual": entry["qual"], "name_line": int(line)}
        for relation in ("callers", "callees"):
            gold = [{"path": gp, "start_line": gl, "end_line": gl} for gp, gl in entry[relation][relation]]
            if gold:
                rows.append({"relation": relation, "target": target, "gold": gold,
                             "query": f"{relation} of {entry['qual']}"})
    classes = {}
    for s in syms:
        if s.kind == "class":
            module = s.path[:-3].replace("/", ".").removesuffix(".__init__")
            classes[f"{module}.{s.qual}"] = s
    for base, subs in sorted(oracle["subclasses"]["closure"].items()):
        s = classes.get(base)
        if s is None or not subs:
            continue
        target = {"path": s.path, "line": s.name_line, "name": s.name, "qual": s.qual, "name_line": s.name_line}
        rows.append({"relation": "subclasses", "target": target, "query": f"subclasses of {s.qual}",
                     "gold": [{"qual": q.rsplit(".", 1)[-1]} for q in subs]})
    r = rng(name, "graph")
    r.shuffle(rows)
    rows = sorted(rows[:n], key=lambda q: (q["relation"], q["query"]))
    for i, row in enumerate(rows):
        row.update(id=f"g{i + 1}", set="graph", style=row["relation"])
    return rows
