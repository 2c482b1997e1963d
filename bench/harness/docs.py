"""Hand-written questions answered by documentation and configuration,
bench/queries/docs/<corpus>.json, for the tree corpora (corpora.py: the whole
sdist or crate, README, docs/, changelog and config files with the code).

Each gold is a file and the line range of the section that answers it, read
in the pinned file: {"path": "GUIDE.md", "lines": [541, 627], "note": ...}.
A gold whose file is missing or whose range runs past the file's end fails
loudly when loaded, so a re-pinned corpus cannot silently score 0.

    python -m harness.docs check [CORPUS...]   # resolve and list them
"""

import json
import sys

from . import corpora
from .paths import QUERIES

DIR = QUERIES / "docs"


def load(corpus_name):
    """[{id, query, gold: [range], note}] for the corpus, or [] when it has no file."""
    path = DIR / f"{corpus_name}.json"
    if not path.is_file():
        return []
    root = corpora.fetch(corpus_name)
    data = json.loads(path.read_text())
    out = []
    for i, q in enumerate(data["questions"]):
        gold = []
        for ref in q["gold"]:
            where = f"{path.name} question {i + 1} ({q['query']!r}): gold {ref['path']}"
            f = root / ref["path"]
            if not f.is_file():
                raise ValueError(f"{where} is not a file in {corpus_name}; fix the path")
            start, end = ref["lines"]
            # Count lines as editors do: a last line without "\n" still counts.
            n = len(f.read_bytes().splitlines())
            if not 1 <= start <= end <= n:
                raise ValueError(f"{where} lines {start}-{end} are not within its {n} lines; re-read the file")
            gold.append({"path": ref["path"], "start_line": start, "end_line": end, "symbol": ref.get("note", "")})
        out.append({"id": f"c{i + 1}", "query": q["query"], "gold": gold,
                    "style": "config" if all(_is_config(g["path"]) for g in gold) else "docs"})
    return out


def _is_config(path):
    """Answers in configuration (CI, tox, Cargo, hooks), against prose docs."""
    name = path.rsplit("/", 1)[-1]
    return path.startswith(".github/workflows/") or name.startswith(".") or \
        name.endswith((".toml", ".ini", ".cfg", ".yml", ".yaml", ".orig"))


def check(names):
    ok = True
    for name in names:
        try:
            qs = load(name)
        except (ValueError, corpora.CorpusUnavailable) as e:
            print(f"{name}: {e}")
            ok = False
            continue
        for q in qs:
            golds = ", ".join(f"{g['path']}:{g['start_line']}-{g['end_line']}" for g in q["gold"])
            print(f"{name} {q['id']:>4} [{q['style']}] {q['query']}\n          -> {golds}")
        print(f"{name}: {len(qs)} questions")
    return ok


if __name__ == "__main__":
    names = sys.argv[2:] if len(sys.argv) > 2 else [p.stem for p in sorted(DIR.glob("*.json"))]
    sys.exit(0 if len(sys.argv) > 1 and sys.argv[1] == "check" and check(names) else 1)
