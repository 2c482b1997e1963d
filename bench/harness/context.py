"""Context packs (issue 18): how much of what a task needs fits in a token
budget. Each query's gold definitions come from the harness's sets
(docstring: the function a blanked docstring describes; questions: the
hand-written questions' gold symbols). Each system packs context for the
query within 2k, 8k and 32k o200k tokens, and we count, per gold definition:

  definition  its code is in the pack (its first 30 lines, or all of it);
  located     its first lines are (a signature counts).

Systems, in the same run:
  ken context   `ken context QUERY --budget N --format json`;
  ken map       `ken map --budget N WORDS…`, personalised to the query's words
                that name symbols or paths (as aider's is);
  aider map     aider's repository map (PageRank over its tags, personalised
                by the query's words and file names; aider_worker.py);
  probe         `probe search QUERY --max-tokens N` (BM25 over tree-sitter blocks);
  naive top-k   BM25 over 40-line windows, best first until the budget is spent.
Every system's output is counted with the same tokenizer, and a pack over
its budget is cut at the budget."""

import json
import math
import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

from . import corpora, querysets, symbols
from .paths import CACHE

BUDGETS = (2048, 8192, 32768)
SYSTEMS = ("ken context", "ken map", "aider map", "probe", "naive top-k")
DEF_LINES = 30
WINDOW = 40


def tiktoken_file():
    found = sorted(Path.home().glob(".cargo/registry/src/*/tiktoken-rs-*/assets/o200k_base.tiktoken"))
    if not found:
        raise RuntimeError("o200k_base.tiktoken not found: build Kenning once (cargo fetches tiktoken-rs)")
    return str(found[-1])


class Counter200k:
    """o200k token counts, from the aider venv's tiktoken and the local ranks."""

    def __init__(self, aider_python):
        self.python = aider_python

    def count_many(self, texts):
        code = ("import json,sys; sys.path.insert(0, sys.argv[1]); import aider_worker as w; "
                "enc = w.o200k(sys.argv[2]); print(json.dumps([len(enc.encode(t, disallowed_special=())) for t in json.load(sys.stdin)]))")
        p = subprocess.run([self.python, "-c", code, str(Path(__file__).parent), tiktoken_file()],
                           input=json.dumps(texts), capture_output=True, text=True, check=True)
        return json.loads(p.stdout)


def shown_lines_from_ranges(ranges):
    out = {}
    for path, start, end in ranges:
        out.setdefault(path, set()).update(range(start, end + 1))
    return out


def score(shown, gold):
    lines = shown.get(gold["path"], set())
    start, end = gold["start_line"], gold["end_line"]
    want = range(start, min(end, start + DEF_LINES - 1) + 1)
    return all(l in lines for l in want), any(l in lines for l in range(start, start + 3))


# ---------------------------------------------------------------- systems

def ken_context(ken, root, index, query, budget):
    p = subprocess.run([ken, "--index-dir", str(index), "context", query, "--budget", str(budget), "--format", "json"],
                       cwd=root, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr[-400:])
    pack = json.loads(p.stdout)
    ranges = [(x["path"], x["start_line"], x["end_line"]) for x in pack["pieces"]]
    text = "".join(f"{x['path']}:{x['start_line']}-{x['end_line']}\n```\n{x['text']}\n```\n" for x in pack["pieces"])
    return ranges, text


def ken_map(ken, root, index, query, budget):
    """`ken map` personalised, as aider's is, to the query's words that name
    symbols or paths (words naming nothing are left out with a note); with
    none, the whole repository's map."""
    words = sorted(set(re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", query)))
    base = [ken, "--index-dir", str(index), "map", "--budget", str(budget), "--json"]
    p = subprocess.run(base + ["--"] + words, cwd=root, capture_output=True, text=True)
    if p.returncode != 0:
        p = subprocess.run(base, cwd=root, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr[-400:])
    m = json.loads(p.stdout)
    ranges = [(f["path"], s["line"], s["line"]) for f in m["files"] for s in f["symbols"]]
    text = "".join(f"{f['path']}:\n" + "".join(f"{s['line']:>6}│ {'    ' * s['depth']}{s['signature']}\n" for s in f["symbols"])
                   for f in m["files"])
    return ranges, text


def probe_search(probe, root, query, budget):
    p = subprocess.run([probe, "search", query, str(root), "--max-tokens", str(budget), "--format", "json"],
                       capture_output=True, text=True)
    # The JSON sits between a preamble and, when a limit cut the results, a
    # "Limits applied" trailer.
    try:
        results = json.JSONDecoder().raw_decode(p.stdout[p.stdout.index("{"):])[0]["results"]
    except (ValueError, KeyError):
        return [], ""
    ranges, text = [], ""
    for r in results:
        path = os.path.relpath(r["file"] if os.path.isabs(r["file"]) else os.path.join(root, r["file"]), root)
        start, end = r["lines"]
        ranges.append((path, start, end))
        text += f"{path}:{start}-{end}\n```\n{r.get('code', '')}\n```\n"
    return ranges, text


def aider_maps(aider_python, root, files, queries, budgets):
    request = {"root": str(root), "files": files, "queries": [{"id": q["id"], "query": q["query"]} for q in queries],
               "budgets": list(budgets), "tiktoken": tiktoken_file()}
    p = subprocess.run([aider_python, str(Path(__file__).parent / "aider_worker.py")], input=json.dumps(request),
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"aider worker failed: {p.stderr[-600:]}")
    return json.loads(p.stdout)


def aider_ranges(root, text):
    """The file lines an aider map shows: blocks `path:` then `│line` rows."""
    shown = []
    path, lines, cursor = None, [], 0
    for row in text.splitlines():
        if row and not row.startswith(("│", "⋮", " ")) and row.endswith(":"):
            path = row[:-1].strip()
            try:
                lines = (root / path).read_text("utf-8", "replace").split("\n")
            except OSError:
                path, lines = None, []
            cursor = 0
        elif path and row.startswith("│"):
            body = row[1:]
            for i in range(cursor, len(lines)):
                if lines[i] == body:
                    shown.append((path, i + 1, i + 1))
                    cursor = i + 1
                    break
    return shown


class NaiveBm25:
    """BM25 over fixed 40-line windows of the corpus's code."""

    def __init__(self, root, language):
        self.windows = []
        for p in symbols.source_files(root, language):
            rel = p.relative_to(root).as_posix()
            lines = p.read_text("utf-8", "replace").split("\n")
            for start in range(0, len(lines), WINDOW):
                chunk = lines[start:start + WINDOW]
                self.windows.append((rel, start + 1, start + len(chunk), "\n".join(chunk)))
        self.docs = [Counter(self.tokens(w[3])) for w in self.windows]
        self.df = Counter(t for d in self.docs for t in d)
        self.avg = sum(sum(d.values()) for d in self.docs) / max(1, len(self.docs))

    @staticmethod
    def tokens(text):
        out = []
        for word in re.findall(r"[A-Za-z][A-Za-z0-9]*", text):
            out.extend(p.lower() for p in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", word) or [word])
        return out

    def rank(self, query):
        n = len(self.docs)
        q = set(self.tokens(query))
        scores = []
        for i, d in enumerate(self.docs):
            length = sum(d.values())
            s = 0.0
            for t in q:
                if d[t]:
                    idf = math.log(1 + (n - self.df[t] + 0.5) / (self.df[t] + 0.5))
                    s += idf * d[t] * 2.2 / (d[t] + 1.2 * (0.25 + 0.75 * length / self.avg))
            scores.append((s, i))
        return [self.windows[i] for s, i in sorted(scores, reverse=True) if s > 0]


def fit(items, budget, counter):
    """Items (ranges, text) best first while they fit: the same cut for every system."""
    texts = [t for _, t in items]
    counts = counter.count_many(texts) if texts else []
    out, used = [], 0
    for (rng, _), c in zip(items, counts):
        if used + c > budget:
            continue
        used += c
        out.append(rng)
    return out, used


# ---------------------------------------------------------------- run

def run(ken, probe, aider_python, names, n, log=print):
    counter = Counter200k(aider_python)
    table = {}
    for name in names:
        corpus = corpora.CORPORA[name]
        sets = []
        doc_queries, stripped = querysets.docstring_set(name, n)
        sets.append(("docstring", doc_queries, stripped))
        root = corpora.fetch(name)
        questions = querysets.question_set(name, symbols.extract(root, corpus.language))
        if questions:
            sets.append(("questions", questions, root))
        for set_name, queries, src in sets:
            work = Path(tempfile.mkdtemp(prefix=f"ken-context-{name}-"))
            try:
                tree = work / "tree"
                shutil.copytree(src, tree)
                index = work / "index"
                subprocess.run([ken, "--index-dir", str(index), "index", str(tree), "-q"], check=True, capture_output=True)
                files = [p.relative_to(tree).as_posix() for p in symbols.source_files(tree, corpus.language)]
                maps = aider_maps(aider_python, tree, files, queries, BUDGETS) if aider_python else {}
                naive = NaiveBm25(tree, corpus.language)
                for q in queries:
                    for budget in BUDGETS:
                        outputs = {}
                        ranges, text = ken_context(ken, tree, index, q["query"], budget)
                        outputs["ken context"] = ([(ranges, text)], None)
                        outputs["ken map"] = ([ken_map(ken, tree, index, q["query"], budget)], None)
                        if probe:
                            r, t = probe_search(probe, tree, q["query"], budget)
                            outputs["probe"] = ([(r, t)], None)
                        if maps:
                            m = maps[q["id"]][str(budget)]
                            outputs["aider map"] = ([(aider_ranges(tree, m), m)], None)
                        outputs["naive top-k"] = ([([(w[0], w[1], w[2])], f"{w[0]}:{w[1]}-{w[2]}\n```\n{w[3]}\n```\n")
                                                   for w in naive.rank(q["query"])[:400]], None)
                        for system, (items, _) in outputs.items():
                            if system == "naive top-k":
                                kept, used = fit(items, budget, counter)
                                ranges = [r for rs in kept for r in rs]
                            else:
                                (ranges, text), = items
                                used = counter.count_many([text])[0]
                            shown = shown_lines_from_ranges(ranges)
                            for g in q["gold"]:
                                d, l = score(shown, g)
                                row = table.setdefault((name, set_name, system, budget), {"n": 0, "def": 0, "loc": 0, "tokens": 0, "over": 0})
                                row["n"] += 1
                                row["def"] += d
                                row["loc"] += l
                            row = table[(name, set_name, system, budget)]
                            row["tokens"] += used
                            row["over"] += used > budget
                    log(f"{name} {set_name} {q['id']} done")
            finally:
                shutil.rmtree(work, ignore_errors=True)
    return table


def render(table):
    systems = sorted({k[2] for k in table}, key=lambda s: SYSTEMS.index(s) if s in SYSTEMS else 99)
    lines = ["| set | system | " + " | ".join(f"def@{b // 1024}k | loc@{b // 1024}k" for b in BUDGETS) + " |",
             "|---|---|" + "---|---|" * len(BUDGETS)]
    sets = sorted({(k[0], k[1]) for k in table}) + [("all", "all")]
    for corpus, set_name in sets:
        for s in systems:
            cells = []
            for b in BUDGETS:
                rows = [v for k, v in table.items() if k[2] == s and k[3] == b and (corpus == "all" or (k[0], k[1]) == (corpus, set_name))]
                n = sum(r["n"] for r in rows)
                if not n:
                    cells += ["-", "-"]
                    continue
                cells += [f"{sum(r['def'] for r in rows) / n:.2f}", f"{sum(r['loc'] for r in rows) / n:.2f}"]
            label = "all" if corpus == "all" else f"{corpus} {set_name}"
            lines.append(f"| {label} | {s} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
