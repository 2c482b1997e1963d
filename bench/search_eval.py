"""Retrieval quality of `ken search` against peers, on pinned PyPI packages.

Two query sets, generated from the code itself:
  docstring  CodeSearchNet-style: the first sentence of a function's
             docstring is the query, the function is the gold. Every
             docstring is blanked out of the corpus copy (line numbers kept,
             the copy must still parse), so retrieval cannot match the text.
  identifier "show the X method in the Y class", the bare name, the name in
             lower case, and a misspelling (one letter dropped): the named
             symbol must come first.

Systems: ken hybrid, ken lexical (BM25 + exact names), ken semantic (dense
only), and a naive RAG baseline (fixed 1000-character chunks, the same
all-MiniLM-L6-v2 through sentence-transformers, cosine top-k).

Usage: search_eval.py KEN_BIN EXAMPLES_DIR CORPORA_DIR WORK_DIR OUT.json [PKG...]
"""
import ast
import json
import os
import random
import re
import subprocess
import sys
import time

ken, examples, corpora, work, out_path = sys.argv[1:6]
packages = sys.argv[6:] or ["requests", "flask", "click", "rich", "httpx"]
MODEL = os.environ.get("EVAL_MODEL", "minilm-int8")
random.seed(7)
PER_PACKAGE = 80


def python_files(root):
    for d, _, files in os.walk(root):
        if "/tests" in d or "dist-info" in d:
            continue
        for f in files:
            if f.endswith(".py"):
                yield os.path.join(d, f)


def first_sentence(doc):
    text = " ".join(doc.strip().split())
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    s = (m.group(1) if m else text).strip()
    s = re.sub(r"[`:]", "", s)
    return s if 4 <= len(s.split()) <= 40 else None


def strip_docstrings(src_root, dst_root):
    """Copies the package with every docstring blanked; returns (docstring queries, symbols)."""
    queries, symbols = [], []
    for path in python_files(src_root):
        rel = os.path.relpath(path, src_root)
        text = open(path, encoding="utf-8", errors="replace").read()
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        lines = text.split("\n")
        parents = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
                continue
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str):
                doc = body[0]
                if not isinstance(node, ast.Module):
                    sentence = first_sentence(doc.value.value)
                    if sentence:
                        queries.append({"query": sentence, "path": rel, "line": node.lineno, "name": node.name})
                # Blank the docstring's lines; `...` keeps a body that held only it.
                indent = " " * doc.col_offset
                for ln in range(doc.lineno - 1, doc.end_lineno):
                    lines[ln] = ""
                lines[doc.lineno - 1] = indent + "..."
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                parent = parents.get(node)
                symbols.append({"method": node.name, "class": parent.name if isinstance(parent, ast.ClassDef) else None,
                                "is_def": not isinstance(node, ast.ClassDef), "path": rel, "line": node.lineno})
        stripped = "\n".join(lines)
        ast.parse(stripped)  # the copy must still parse
        dst = os.path.join(dst_root, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        open(dst, "w").write(stripped)
    return queries, symbols


def identifier_queries(symbols):
    """The gold is every definition the words name: a property's getter and
    setter, overloads, and a function and a method of the same name all count."""
    rows = []
    fold = lambda n: n.lower().replace("_", "")
    by_name, by_fold, by_pair = {}, {}, {}
    for s in symbols:
        loc = {"path": s["path"], "line": s["line"]}
        by_name.setdefault(s["method"], []).append(loc)
        by_fold.setdefault(fold(s["method"]), []).append(loc)
        by_pair.setdefault((s["class"], s["method"]), []).append(loc)
    methods = [s for s in symbols if s["is_def"] and s["class"] and not s["method"].startswith("__") and len(s["method"]) >= 6]
    for s in random.sample(methods, min(len(methods), PER_PACKAGE // 2)):
        m, c = s["method"], s["class"]
        rows.append({"query": f"show the {m} method in the {c} class", "style": "repogpt", "gold": by_pair[(c, m)]})
        rows.append({"query": m, "style": "bare", "gold": by_name[m]})
        rows.append({"query": fold(m), "style": "lowercase", "gold": by_fold[fold(m)]})
        i = random.randrange(1, len(m) - 1)
        typo = m[:i] + m[i + 1:]
        if fold(typo) not in by_fold:
            rows.append({"query": typo, "style": "misspelled", "gold": by_name[m]})
    return rows


def run_ken(idx, queries, mode, k=10):
    qfile = os.path.join(work, "queries.jsonl")
    with open(qfile, "w") as f:
        for q in queries:
            f.write(json.dumps(q) + "\n")
    start = time.perf_counter()
    out = subprocess.run([os.path.join(examples, "batch_search"), idx, qfile, mode, str(k)],
                         capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - start
    return [json.loads(l) for l in out.stdout.splitlines()], seconds


def hit_matches(hit, gold):
    return hit["path"] == gold["path"] and hit["start_line"] <= gold["line"] <= hit["end_line"]


def rank_of(hits, golds):
    for i, h in enumerate(hits[:10]):
        if any(hit_matches(h, g) for g in golds):
            return i + 1
    return None


def naive_rag(root, queries, model):
    """Fixed 1000-character chunks, MiniLM, cosine: the baseline RepoGPT criticises."""
    import numpy as np
    chunks = []
    for path in python_files(root):
        rel = os.path.relpath(path, root)
        text = open(path, encoding="utf-8", errors="replace").read()
        for start in range(0, len(text), 1000):
            piece = text[start:start + 1000]
            first = text.count("\n", 0, start) + 1
            chunks.append({"path": rel, "start_line": first, "end_line": first + piece.count("\n"), "text": piece})
    vecs = model.encode([c["text"] for c in chunks], batch_size=32, normalize_embeddings=True)
    qv = model.encode(queries, batch_size=32, normalize_embeddings=True)
    results = []
    for v in qv:
        order = np.argsort(-(vecs @ v))[:10]
        results.append([chunks[i] for i in order])
    return results


def main():
    os.makedirs(work, exist_ok=True)
    report = {"model": MODEL, "packages": {}, "systems": {}}
    model = None
    totals = {}
    for pkg in packages:
        random.seed(pkg)  # the same queries for a package whatever else runs
        src = os.path.join(corpora, pkg)
        dst = os.path.join(work, f"{pkg}-stripped")
        subprocess.run(["rm", "-rf", dst], check=True)
        docs, symbols = strip_docstrings(src, dst)
        docs = random.sample(docs, min(len(docs), PER_PACKAGE))
        idents = identifier_queries(symbols)
        idx = os.path.join(work, f"{pkg}-index-{MODEL}")
        t = time.perf_counter()
        subprocess.run([ken, "--index-dir", idx, "index", dst, "-q", "--model", MODEL], check=True, stdout=subprocess.DEVNULL)
        index_seconds = time.perf_counter() - t
        entry = {"docstring_queries": len(docs), "identifier_queries": len(idents), "index_seconds": index_seconds}
        for mode in ["hybrid", "lexical", "semantic"]:
            hits, secs = run_ken(idx, [d["query"] for d in docs], mode)
            ranks = [rank_of(h, [d]) for h, d in zip(hits, docs)]
            entry[f"ken_{mode}"] = ranks
            totals.setdefault(f"ken {mode}", []).extend(ranks)
        hits, _ = run_ken(idx, [q["query"] for q in idents], "hybrid")
        by_style = {}
        for h, q in zip(hits, idents):
            by_style.setdefault(q["style"], []).append(rank_of(h, q["gold"]) == 1)
            totals.setdefault("identifier", []).append(rank_of(h, q["gold"]) == 1)
            if rank_of(h, q["gold"]) != 1:
                entry.setdefault("identifier_misses", []).append({"query": q["query"], "got": h[:1]})
        entry["identifier_top1"] = {s: sum(v) / len(v) for s, v in by_style.items()}
        if MODEL == "minilm-int8":
            if model is None:
                from sentence_transformers import SentenceTransformer
                model_dir = os.path.join(os.environ.get("KEN_CACHE_DIR", os.path.expanduser("~/.cache/ken")), "models", "minilm")
                model = SentenceTransformer(model_dir, device="cpu")
                model.max_seq_length = 256
            naive = naive_rag(dst, [d["query"] for d in docs], model)
            ranks = [rank_of(h, [d]) for h, d in zip(naive, docs)]
            entry["naive_rag"] = ranks
            totals.setdefault("naive RAG (1000-char chunks, MiniLM)", []).extend(ranks)
        report["packages"][pkg] = entry
        print(pkg, {k: round(mrr(v), 3) for k, v in entry.items() if isinstance(v, list) and k.startswith(("ken", "naive"))},
              entry["identifier_top1"], flush=True)
    for name, ranks in totals.items():
        if name == "identifier":
            report["identifier_top1"] = sum(ranks) / len(ranks)
            report["identifier_queries"] = len(ranks)
        else:
            report["systems"][name] = {"mrr@10": mrr(ranks), "recall@10": sum(r is not None for r in ranks) / len(ranks),
                                       "queries": len(ranks)}
    json.dump(report, open(out_path, "w"), indent=2)
    print(f"\ndocstring-to-code ({MODEL}), docstrings stripped, {packages}:")
    print(f"{'system':45} {'MRR@10':>7} {'R@10':>6} {'n':>5}")
    for name, s in sorted(report["systems"].items(), key=lambda kv: -kv[1]["mrr@10"]):
        print(f"{name:45} {s['mrr@10']:7.3f} {s['recall@10']:6.2f} {s['queries']:5d}")
    print(f"identifier queries: named symbol at rank 1 for {report['identifier_top1']:.1%} of {report['identifier_queries']}")


def mrr(ranks):
    return sum(1 / r for r in ranks if r) / max(len(ranks), 1)


main()
