"""Bug localization: given a bug report (title and the reporter's
description), rank the files and functions its fix changed.

    python -m harness.locate --ken BIN [--systems bm25,ken-search,ken-locate]
                             [--reports ../locate/reports.jsonl] [--limit N]

The set is bench/locate/reports.jsonl (see bench/locate/README.md). Each
report is searched in the registry archive of the last release before its
fix, extracted once into bench/.cache/locate/src/<name>-<version>/.

Systems, side by side in one run:
- bm25: BM25 (bm25s, k1=1.2, b=0.75) over whole files, every text file of
  the archive, code-aware tokens (snake_case and camelCase split, lower case);
- ken-search: `ken search --mode hybrid --json -k 50 QUERY` on an index made
  with `ken index --no-embed`; files ranked by their first hit;
- ken-locate: `ken locate --json -k 20` with the report on stdin, when the
  binary has the command (skipped with a note otherwise);
- ken-locate-llm: the same with `--rerank llm`: the language model that
  KEN_LLM_* names (else the local one) reorders the top 10 files.

Tests, docs and examples are removed from every ranking before scoring.
Metrics: Acc@1/5/10 (any gold file in the top k) and MRR (first gold file),
by file and by function (a predicted symbol matches a gold function in the
same file whose lines overlap), overall and per repository, language and
split. Writes bench/results/locate.json and prints a markdown table, with
each package's index time and size."""

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from .corpora import fetch_package
from .paths import BENCH, CACHE, RESULTS

sys.path.insert(0, str(BENCH / "locate"))
from repos import is_excluded  # noqa: E402  (one definition of test/docs/example paths)

SRC = CACHE / "locate" / "src"
# Indexes are cached per package; another binary (another index format) wants
# its own directory: LOCATE_IDX=...
IDX = Path(os.environ.get("LOCATE_IDX", CACHE / "locate" / "idx"))
KS = (1, 5, 10)
# Linux caps one argv string at 128 KiB (MAX_ARG_STRLEN); stay well below.
MAX_ARGV_QUERY = 100_000
MAX_FILE_BYTES = 1 << 20  # like ken's default --max-file-size


# ---------------------------------------------------------------- reports and trees

def load_reports(path, limit=None):
    reports = [json.loads(l) for l in Path(path).read_text().splitlines() if l.strip()]
    return reports[:limit] if limit else reports


def query_of(report):
    return (report["title"] + "\n\n" + (report.get("body") or "")).strip()


def package_key(report):
    p = report["package"]
    return p["registry"], p["name"], p["version"]


def package_dir(key):
    registry, name, version = key
    return fetch_package(registry, name, version, SRC / f"{name}-{version}")


def text_files(root):
    """{relative path: text} of every text file under root (no NUL byte in
    its first 8 KiB, at most 1 MiB), the way a plain retriever sees a tree."""
    files = {}
    for p in sorted(root.rglob("*")):
        if not p.is_file() or p.name == ".complete" or p.stat().st_size > MAX_FILE_BYTES:
            continue
        data = p.read_bytes()
        if b"\0" in data[:8192]:
            continue
        files[p.relative_to(root).as_posix()] = data.decode("utf-8", "replace")
    return files


# ---------------------------------------------------------------- bm25

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def code_tokens(text):
    """Words split at non-alphanumerics, underscores and camelCase humps,
    lower-cased: `getMatchesWith` and `get_matches_with` give the same three."""
    out = []
    for word in re.findall(r"[A-Za-z0-9]+", text):
        out.extend(w.lower() for w in _CAMEL.findall(word))
    return out


class Bm25Index:
    """BM25 over whole files of one tree (bm25s, Lucene's variant)."""

    def __init__(self, files):
        import bm25s
        self.paths = list(files)
        self.model = bm25s.BM25(k1=1.2, b=0.75)
        corpus = [code_tokens(path + " " + files[path]) for path in self.paths]
        self.model.index(self._ids(corpus), show_progress=False)

    def _ids(self, corpus):
        # bm25s accepts lists of token strings through its Tokenized type; build
        # the vocabulary ourselves so our code-aware tokens are used as they are.
        import bm25s
        self.vocab = {}
        ids = [[self.vocab.setdefault(t, len(self.vocab)) for t in doc] for doc in corpus]
        return bm25s.tokenization.Tokenized(ids=ids, vocab=self.vocab)

    def rank(self, query, k=100):
        q = [t for t in code_tokens(query) if t in self.vocab]
        if not q:
            return []
        import numpy as np
        scores = self.model.get_scores(q)
        order = np.argsort(-scores)[:k]
        return [self.paths[i] for i in order if scores[i] > 0]


# ---------------------------------------------------------------- ken

def ken_index(ken, key, root):
    """(index dir, {seconds, index_bytes, ...}); built once, the timing kept beside it."""
    registry, name, version = key
    idx = IDX / f"{name}-{version}"
    stats_file = idx.with_name(idx.name + ".stats.json")
    if stats_file.is_file() and idx.is_dir():
        return idx, json.loads(stats_file.read_text())
    subprocess.run(["rm", "-rf", str(idx)], check=True)
    IDX.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    r = subprocess.run([ken, "index", str(root), "--no-embed", "--index-dir", str(idx), "-q", "--json"],
                       capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"ken index {name} {version} failed: {r.stderr.strip()[-400:]}")
    summary = json.loads(r.stdout)
    stats = {"seconds": round(seconds, 2), "index_bytes": dir_bytes(idx), "source_bytes": dir_bytes(root),
             "files": summary.get("files"), "symbols": summary.get("symbols")}
    stats_file.write_text(json.dumps(stats))
    return idx, stats


def dir_bytes(path):
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def ken_search(ken, idx, query, k=50):
    """(file ranking, symbol ranking, note) from `ken search --json`."""
    note = None
    if len(query.encode()) > MAX_ARGV_QUERY:
        query, note = query.encode()[:MAX_ARGV_QUERY].decode("utf-8", "ignore"), "query cut to fit argv"
    r = subprocess.run([ken, "search", "--index-dir", str(idx), "--mode", "hybrid", "--json", "-k", str(k), query],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return [], [], f"ken search failed: {r.stderr.strip()[-200:]}"
    hits = json.loads(r.stdout).get("hits", [])
    symbols = [{"path": h["path"], "start_line": h["start_line"], "end_line": h["end_line"],
                "name": h.get("qualified_name") or h.get("name"), "kind": h.get("kind")} for h in hits]
    return unique([h["path"] for h in hits]), symbols, note


def has_locate(ken):
    r = subprocess.run([ken, "locate", "--help"], capture_output=True, text=True)
    return r.returncode == 0


def ken_locate(ken, idx, report, k=20, rerank=None):
    """(file ranking, symbol ranking, note) from `ken locate --json`, the report on stdin."""
    extra = ["--rerank", rerank] if rerank else []
    r = subprocess.run([ken, "locate", "--index-dir", str(idx), "--json", "-k", str(k)] + extra, input=query_of(report),
                       capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        return [], [], f"ken locate failed: {r.stderr.strip()[-200:]}"
    answer = json.loads(r.stdout)
    files = answer.get("files", [])
    # A failed rerank keeps ken locate's order, and says so.
    failed = [n[:200] for n in answer.get("notes", []) if "language model" in n]
    # The list across files where ken gives one (since stop 59), else each
    # file's symbols after the previous file's.
    across = answer.get("functions")
    if across is None:
        across = [dict(s, path=f["path"]) for f in files for s in f.get("symbols", [])]
    symbols = [{"path": s["path"], "start_line": s["start_line"], "end_line": s["end_line"],
                "name": s.get("qualified_name") or s.get("name"), "kind": s.get("kind")} for s in across]
    return unique([f["path"] for f in files]), symbols, (failed[0] if failed else None)


def unique(items):
    return list(dict.fromkeys(items))


# ---------------------------------------------------------------- scoring

def first_rank(ranked, is_gold):
    """1-based rank of the first gold item, or None."""
    return next((i + 1 for i, x in enumerate(ranked) if is_gold(x)), None)


def score_report(report, files, symbols):
    """{file_rank, function_rank} after tests, docs and examples are removed."""
    gold_files = set(report["files"])
    files = [f for f in files if not is_excluded(f)]
    out = {"file_rank": first_rank(files, lambda f: f in gold_files), "top_files": files[:10]}
    if symbols is not None and report["functions"]:
        symbols = [s for s in symbols if not is_excluded(s["path"])]
        gold = report["functions"]

        def overlaps(s):
            return any(s["path"] == g["file"] and s["start_line"] <= g["end_line"] and g["start_line"] <= s["end_line"]
                       for g in gold)
        out["function_rank"] = first_rank(symbols, overlaps)
        # Stricter: only a function or method counts, not a class that holds the changed one.
        out["callable_rank"] = first_rank(symbols, lambda s: s.get("kind") in CALLABLE_KINDS and overlaps(s))
    return out


CALLABLE_KINDS = {"function", "method", "constructor"}


def summarize(ranks):
    """Acc@k and MRR of a list of first-gold ranks (None = not found)."""
    n = len(ranks)
    if not n:
        return None
    m = {f"acc@{k}": sum(1 for r in ranks if r is not None and r <= k) / n for k in KS}
    m["mrr"] = sum(1 / r for r in ranks if r is not None) / n
    m["n"] = n
    return m


def aggregate(reports, results):
    """Per group (overall, repo, language, split) and system: file and function metrics."""
    groups = defaultdict(list)
    for r in reports:
        for g in ("all", "repo:" + r["repo"], "language:" + r["language"], "split:" + r["split"]):
            groups[g].append(r["id"])
    table = {}
    for g, ids in groups.items():
        table[g] = {}
        for system, per in results.items():
            done = [per[i] for i in ids if i in per]
            table[g][system] = {
                "file": summarize([d["file_rank"] for d in done]),
                "function": summarize([d["function_rank"] for d in done if "function_rank" in d]),
                "callable": summarize([d["callable_rank"] for d in done if "callable_rank" in d]),
            }
    return table


# ---------------------------------------------------------------- output

def fmt(m, key="mrr"):
    return "n/a" if not m else f"{m[key]:.3f}"


def markdown(table, systems):
    lines = ["| group | n | " + " | ".join(f"{s} file Acc@1 / @5 / @10 / MRR" for s in systems) + " | "
             + " | ".join(f"{s} function Acc@5 / MRR (functions and methods only)" for s in systems) + " |",
             "|---|---|" + "---|" * (2 * len(systems))]
    order = sorted(table, key=lambda g: (g != "all", g.split(":")[0], g))
    for g in order:
        n = next((v["file"]["n"] for v in table[g].values() if v["file"]), 0)
        cells = []
        for s in systems:
            m = table[g].get(s, {}).get("file")
            cells.append("n/a" if not m else " / ".join(fmt(m, k) for k in ("acc@1", "acc@5", "acc@10", "mrr")))
        for s in systems:
            m = table[g].get(s, {}).get("function")
            c = table[g].get(s, {}).get("callable")
            strict = f" ({fmt(c, 'acc@5')} / {fmt(c)})" if c else ""
            cells.append("n/a" if not m else f"{fmt(m, 'acc@5')} / {fmt(m)}{strict}")
        lines.append(f"| {g} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def index_table(stats):
    lines = ["| package | files | source MB | index s | index MB | index/source |", "|---|---|---|---|---|---|"]
    for name, s in sorted(stats.items()):
        lines.append(f"| {name} | {s['files']} | {s['source_bytes'] / 1e6:.1f} | {s['seconds']:.1f} | "
                     f"{s['index_bytes'] / 1e6:.1f} | {s['index_bytes'] / max(1, s['source_bytes']):.1f}× |")
    tot_src = sum(s["source_bytes"] for s in stats.values())
    tot_idx = sum(s["index_bytes"] for s in stats.values())
    tot_sec = sum(s["seconds"] for s in stats.values())
    lines.append(f"| **all {len(stats)}** | | {tot_src / 1e6:.1f} | {tot_sec:.0f} | {tot_idx / 1e6:.1f} | "
                 f"{tot_idx / max(1, tot_src):.1f}× |")
    return "\n".join(lines)


# ---------------------------------------------------------------- main

def run(args):
    reports = load_reports(args.reports, args.limit)
    systems = [s for s in args.systems.split(",") if s]
    notes, skipped = [], {}
    for system in ("ken-locate", "ken-locate-llm"):
        if system in systems and not has_locate(args.ken):
            skipped[system] = f"`{args.ken} locate --help` failed: this binary has no locate command"
            systems.remove(system)
    by_package = defaultdict(list)
    for r in reports:
        by_package[package_key(r)].append(r)
    results = {s: {} for s in systems}
    index_stats = {}
    for n, (key, group) in enumerate(sorted(by_package.items()), 1):
        root = package_dir(key)
        label = f"{key[1]}-{key[2]}"
        print(f"[{n}/{len(by_package)}] {label}: {len(group)} reports", file=sys.stderr)
        if "bm25" in systems:
            bm25 = Bm25Index(text_files(root))
            for r in group:
                results["bm25"][r["id"]] = score_report(r, bm25.rank(query_of(r)), None)
        if {"ken-search", "ken-locate", "ken-locate-llm"} & set(systems):
            idx, index_stats[label] = ken_index(args.ken, key, root)
        if "ken-search" in systems:
            for r in group:
                files, symbols, note = ken_search(args.ken, idx, query_of(r))
                if note:
                    notes.append(f"{r['id']}: ken-search: {note}")
                results["ken-search"][r["id"]] = score_report(r, files, symbols)
        if "ken-locate" in systems:
            for r in group:
                files, symbols, note = ken_locate(args.ken, idx, r)
                if note:
                    notes.append(f"{r['id']}: ken-locate: {note}")
                results["ken-locate"][r["id"]] = score_report(r, files, symbols)
        if "ken-locate-llm" in systems:
            for r in group:
                files, symbols, note = ken_locate(args.ken, idx, r, rerank="llm")
                if note:
                    notes.append(f"{r['id']}: ken-locate-llm: {note}")
                results["ken-locate-llm"][r["id"]] = score_report(r, files, symbols)
    table = aggregate(reports, results)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = {"reports": len(reports), "systems": systems, "skipped": skipped, "notes": notes,
           "metrics": table, "index": index_stats, "per_report": results}
    (RESULTS / "locate.json").write_text(json.dumps(out, indent=1))
    print(markdown(table, systems))
    if index_stats:
        print()
        print(index_table(index_stats))
    for s, why in skipped.items():
        print(f"\nskipped {s}: {why}")
    for note in notes:
        print(f"note: {note}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ken", default=os.environ.get("KEN", "/tmp/ken-locate-bench"))
    ap.add_argument("--systems", default="bm25,ken-search,ken-locate")
    ap.add_argument("--reports", default=str(BENCH / "locate" / "reports.jsonl"))
    ap.add_argument("--limit", type=int, help="only the first N reports (a quick check)")
    run(ap.parse_args())


if __name__ == "__main__":
    main()
