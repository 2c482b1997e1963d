"""Mines (query, code) pairs for training the static model: a documented
symbol's docstring, cut to its first paragraph, is the query; the text ken
embeds for the symbol, with the docstring taken out, is the document.

    python bench/static/mine.py --ken target/release/ken --out bench/.cache/static/pairs.jsonl

Packages come from bench/sweep/packages.tsv and bench/static/packages.tsv
(pinned; fetched into bench/.cache/sweep as the crash sweep does), minus every package a quality
benchmark searches (EXCLUDED): no evaluation corpus is trained on."""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import sweep  # noqa: E402
from common import embed_text, query_of, strip_docstring, symbols  # noqa: E402

# The corpora of bench/harness (search quality), bench/locate (bug reports)
# and their families: held out of training.
EXCLUDED = {
    "django", "langchain-core", "langchain-community", "requests", "flask", "click", "rich", "httpx", "attrs",
    "pydantic", "pytest", "black", "sphinx", "pythonnet", "tokio", "clap_builder", "ripgrep", "semver", "rxjs",
    "express", "webpack", "eslint", "undici", "svelte",
}
KINDS = {"function", "method", "class", "struct", "enum", "trait", "interface", "type", "constant", "macro", "module",
         "variable", "field", "constructor", "impl"}
PER_PACKAGE = 4000


def mine(ken, pkg, cache):
    src = sweep.fetch(pkg, cache)
    with tempfile.TemporaryDirectory() as index:
        r = subprocess.run([ken, "--index-dir", index, "index", src, "--no-embed", "-q"], capture_output=True, text=True,
                           timeout=1800)
        if r.returncode != 0:
            raise RuntimeError(r.stderr[-500:])
        db = next(Path(index).glob("*.sqlite*"), None) or next(Path(index).rglob("*.db"))
        syms = symbols(db)
    pairs = []
    seen = set()
    for s in syms:
        doc = s["docstring"]
        if not doc or s["kind"] not in KINDS:
            continue
        q = query_of(doc)
        if len(q.split()) < 4 or q.lower() in seen:
            continue
        seen.add(q.lower())
        code = strip_docstring(s["code"], doc)
        pairs.append({"q": q, "d": embed_text(s, docstring=False, code=code), "pkg": pkg["name"],
                      "lang": pkg["language"], "path": s["path"]})
    random.Random(pkg["name"]).shuffle(pairs)
    return pairs[:PER_PACKAGE], len(syms)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ken", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--cache", default=str(HERE.parent / ".cache" / "sweep"))
    args = ap.parse_args()
    lists = [HERE.parent / "sweep" / "packages.tsv", HERE / "packages.tsv"]
    pkgs = [p for l in lists for p in sweep.read_packages(str(l)) if p["name"] not in EXCLUDED]
    done = set()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.exists():
        done = {json.loads(l)["pkg"] for l in out.open()}
    with out.open("a") as f:
        for pkg in pkgs:
            if pkg["name"] in done:
                continue
            try:
                pairs, nsyms = mine(os.path.abspath(args.ken), pkg, args.cache)
            except Exception as e:  # a package that cannot be had is skipped, and said
                print(f"{pkg['name']}: skipped: {e}", flush=True)
                continue
            for p in pairs:
                f.write(json.dumps(p) + "\n")
            f.flush()
            print(f"{pkg['name']} ({pkg['language']}): {nsyms} symbols, {len(pairs)} pairs", flush=True)


if __name__ == "__main__":
    main()
