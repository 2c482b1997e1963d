"""Ranking knobs against the tuning split: one index and server per corpus
and model (kept under bench/.cache/tune), then every setting of a grid sent
as a request's `ranking` overrides. Only questions without "heldout" are
asked, plus the generated identifier set (a knob must not cost names);
`--split heldout` asks the held-out third instead, to report a choice
once it is made.

    python -m harness.tune [--corpora a,b] [--models static,minilm-int8] [--grid NAME] [--intents]

`--intents` indexes with `ken index --intents` (the language model KEN_LLM_*
names, else the local one; hours on a CPU for large corpora).

`--set docs` asks the docs set instead (`--corpora attrs,ripgrep`: answers
in docs and configuration).

`--trees` indexes each corpus's whole published archive instead (the sdist,
crate or npm tarball: tests, benchmarks, docs, examples and config beside
the code, as a repository holds them), so that the priors for tests and
docs meet the competition they exist for; a hit's path is read without the
archive's prefix before the package (`src/flask/app.py` is `flask/app.py`).

Prints MRR@10 and nDCG@10 per setting: over all tuning questions, per
category, the identifier set's rank-1 rate, and MRR and nDCG by file (any
hit in a gold definition's file matches it)."""

import argparse
import json
import shutil
import socket
import subprocess
import time
import urllib.request

from . import corpora, metrics, querysets, symbols
from .paths import CACHE, REPO

TUNE = CACHE / "tune"
CODE_CORPORA = ["flask", "requests", "httpx", "tokio", "rxjs"]

# Each grid: name → list of (label, overrides). The first row is the baseline.
GRIDS = {
    "defaults": [("defaults", {})],
    "weights": [(f"code {c} prose {p}", {"code_weights": c, "prose_weights": p}) for c, p in [
        ([1, 1, 2], [1, 1, 2]),
        ([1, 1, 2], [2, 1, 2]), ([1, 1, 2], [1, 2, 2]), ([1, 1, 2], [0.5, 1, 2]), ([1, 1, 2], [1, 1, 0.5]),
        ([1, 1, 2], [2, 1, 1]), ([1, 1, 2], [3, 1, 1]), ([1, 1, 2], [2, 1, 0.5]), ([1, 1, 2], [1.5, 1, 1]),
        ([0.5, 1, 2], [1, 1, 2]), ([1, 2, 2], [1, 1, 2]), ([0.5, 1, 3], [1, 1, 2]), ([1, 1, 4], [1, 1, 2]),
    ]],
    "static": [(f"static {w}", {"static_weight": w}) for w in [0.5, 0, 0.25, 0.75, 1]],
    "fusion": [(f"{f} k={k}", {"fusion": f, "rrf_k": k}) for f, k in [
        ("rrf", 60), ("rrf", 20), ("rrf", 10), ("rrf", 100), ("scores", 60),
    ]],
    "intents": [(f"intents {w}", {"intent_weight": w}) for w in [1, 0, 0.25, 0.5, 2]],
    "members": [(f"members {w}", {"member_weight": w}) for w in [1, 0.75, 0.5, 0.25]],
    "decay": [(f"decay {d}", {"file_decay": d}) for d in [1, 0.9, 0.85, 0.75, 0.5, 0.25]],
    "paths": [(f"tests {t} docs {d}", {"test_weight": t, "docs_weight": d}) for t, d in [
        (1, 0.75), (0.75, 0.75), (0.5, 0.75), (0.25, 0.75), (0.5, 0.5), (0.5, 1), (1, 1), (0.5, 0.35), (0.5, 0.25), (0.35, 0.5),
        (0.5, 0.85), (0.5, 0.9),
    ]],
    "coherence": [(f"file boost {b}", {"file_boost": b}) for b in [0, 0.05, 0.1, 0.2]],
    "spans": [(f"short span {s}", {"short_span": s}) for s in [8, 0, 2, 4, 16]],
    "priors": [(f"file {b} tests {t}", {"file_boost": b, "test_weight": t}) for b, t in [
        (0, 1), (0.05, 1), (0.1, 1), (0.15, 1), (0.25, 1), (0.5, 1), (0, 0.5), (0, 0.25), (0.1, 0.5),
    ]],
}


TREE_REGISTRY = {"pypi": "pypi-sdist", "pypi-sdist": "pypi-sdist", "npm": "npm", "crates": "crates"}


def tree(corpus):
    """The corpus's whole published archive, and the path prefix its code
    sits under there (`src/` where an sdist keeps the package in `src/`)."""
    c = corpora.CORPORA[corpus]
    root = corpora.fetch_package(TREE_REGISTRY[c.registry], c.package, c.version, CACHE / "trees" / f"{corpus}-{c.version}")
    code = corpora.fetch(corpus)
    first = next(p for p in sorted(code.rglob("*")) if p.is_file() and p.name != ".complete").relative_to(code)
    prefix = next((pre for pre in ("", "src/") if (root / pre / first).is_file()), None)
    if prefix is None:
        raise SystemExit(f"{corpus}: {first} is not in its archive {root}")
    return root, prefix


def serve(ken, corpus, model, intents=False, root=None):
    """An index of the corpus (or of `root`, its whole tree) embedded with
    `model`, built once, and a server on it."""
    index = TUNE / (f"{corpus}-{model}" + ("-intents" if intents else "") + ("-tree" if root else ""))
    root = root or corpora.fetch(corpus)
    if not (index / ".tuned").is_file():
        shutil.rmtree(index, ignore_errors=True)
        started = time.time()
        subprocess.run([ken, "--index-dir", str(index), "index", str(root), "-q", "--model", model]
                       + (["--intents"] if intents else []), check=True)
        (index / ".tuned").write_text(f"{time.time() - started:.1f}\n")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([ken, "--index-dir", str(index), "serve", "--addr", f"127.0.0.1:{port}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(base + "/ready", timeout=2).read()
            return server, base
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit(f"ken serve on {index} did not come up")


def search(base, query, ranking):
    body = {"query": query, "k": 10, "ranking": ranking}
    req = urllib.request.Request(base + "/api/v1/search", data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        hits = json.loads(r.read())["hits"]
    return [{"path": h["path"], "start_line": h["start_line"], "end_line": h["end_line"]} for h in hits]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="bench/tune.sh")
    ap.add_argument("--corpora", default=",".join(CODE_CORPORA))
    ap.add_argument("--models", default="static,minilm-int8")
    ap.add_argument("--grid", default="weights", choices=sorted(GRIDS))
    ap.add_argument("--base", default="{}", help="overrides under every row of the grid (JSON)")
    ap.add_argument("--ken", default=str(REPO / "target" / "release" / "ken"))
    ap.add_argument("--intents", action="store_true", help="index with `ken index --intents`")
    ap.add_argument("--set", default="questions", choices=["questions", "docs"],
                    help="the question set: questions about the code, or the docs set (corpora attrs and ripgrep)")
    ap.add_argument("--trees", action="store_true", help="index each corpus's whole published archive (tests, docs, config)")
    ap.add_argument("--split", default="tune", choices=["tune", "heldout"],
                    help="the questions asked: the tuning split, or the held-out third (to report a choice made, never to make it)")
    args = ap.parse_args(argv)
    base_overrides = json.loads(args.base)
    grid = GRIDS[args.grid]
    # rows[(model, label)] = list of per-query dicts
    rows = {}
    for corpus in args.corpora.split(","):
        lang = corpora.CORPORA[corpus].language
        syms = symbols.extract(corpora.fetch(corpus), lang)
        if args.set == "docs":
            questions = querysets.docs_set(corpus)
        else:
            questions = [q for q in querysets.question_set(corpus, syms) if q["split"] == args.split]
        identifiers = querysets.identifier_set(corpus, syms, 12)
        root, prefix = tree(corpus) if args.trees else (None, "")
        for model in args.models.split(","):
            server, base = serve(args.ken, corpus, model, args.intents, root)
            try:
                for label, overrides in grid:
                    ranking = {**base_overrides, **overrides}
                    out = rows.setdefault((model, label), [])
                    for q in questions + identifiers:
                        hits = [{**h, "path": h["path"].removeprefix(prefix)} for h in search(base, q["query"], ranking)]
                        m = metrics.ranked(hits, q["gold"])
                        f = {f"file_{k}": v for k, v in metrics.ranked_by_file(hits, q["gold"]).items()}
                        out.append({"set": q["set"], "category": q.get("category"), **m, **f})
            finally:
                server.kill()
    split = "tuning split only" if args.split == "tune" else "the held-out third"
    print(f"grid {args.grid}, base {base_overrides}; {split}" + ("; whole archives" if args.trees else ""))
    print(f"{'model':12} {'setting':34} {'MRR':>6} {'nDCG':>6} {'symbol':>7} {'prose':>7} {'arch':>7} {'ident@1':>8} "
          f"{'fileMRR':>8} {'filenDCG':>8}  n")
    for (model, label), rs in rows.items():
        qs = [r for r in rs if r["set"] == args.set]
        ids = [r for r in rs if r["set"] == "identifier"]
        cat = lambda c: metrics.mean([r["rr"] for r in qs if r["category"] == c]) or float("nan")  # noqa: E731
        print(f"{model:12} {label:34} {metrics.mean([r['rr'] for r in qs]):6.3f} {metrics.mean([r['ndcg'] for r in qs]):6.3f} "
              f"{cat('symbol'):7.3f} {cat('prose'):7.3f} {cat('architecture'):7.3f} "
              f"{metrics.mean([1.0 if r['rr'] == 1.0 else 0.0 for r in ids]):8.3f} "
              f"{metrics.mean([r['file_rr'] for r in qs]):8.3f} {metrics.mean([r['file_ndcg'] for r in qs]):8.3f}  {len(qs)}")


if __name__ == "__main__":
    main()
