"""Hand-written natural-language questions, bench/queries/questions/<corpus>.json.

Each question names its answers as "path::Qualified.name" (see symbols.py);
they are resolved to line ranges against the pinned corpus when loaded, so a
question whose answer moved or vanished fails loudly instead of scoring 0.
A question is "identifier-free" when none of its words is the name of a
definition in the corpus (compared case-insensitively, underscores ignored);
at least half of each corpus's questions must be.

Each question has a category, reported separately by the harness:
  symbol        names or plainly points at one definition ("the retry
                adapter's send", "where is Session.request")
  prose         describes behaviour in words, with no names
  architecture  how a mechanism works across several definitions ("how does
                a request flow from the session to the socket")
and questions marked "heldout": true are kept out of all tuning: the harness
reports them apart from the tuning split.

    python -m harness.questions check [CORPUS...]   # resolve and summarise
"""

import json
import re
import sys

from . import corpora, symbols
from .paths import QUERIES

DIR = QUERIES / "questions"
CATEGORIES = ("symbol", "prose", "architecture")


def fold(word):
    return word.lower().replace("_", "")


def identifier_words(query, syms):
    names = {fold(s.name) for s in syms}
    return [w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", query) if len(w) >= 3 and fold(w) in names]


def load(corpus_name, syms):
    """[{query, gold: [range], identifier_free, note}] for the corpus, or [] when it has no file."""
    path = DIR / f"{corpus_name}.json"
    if not path.is_file():
        return []
    data = json.loads(path.read_text())
    out = []
    for i, q in enumerate(data["questions"]):
        category = q.get("category", "prose")
        if category not in CATEGORIES:
            raise ValueError(f"{path.name} question {i + 1}: category {category!r} is not one of {', '.join(CATEGORIES)}")
        gold = []
        for ref in q["gold"]:
            found = symbols.resolve(syms, ref)
            if not found:
                raise ValueError(f"{path.name} question {i + 1} ({q['query']!r}): gold {ref!r} is not a definition "
                                 f"in {corpus_name}; fix the reference (path::Container.name)")
            gold.extend(s.gold() for s in found)
        words = identifier_words(q["query"], syms)
        out.append({"id": f"q{i + 1}", "query": q["query"], "gold": gold, "identifier_free": not words,
                    "identifier_words": words, "note": q.get("note", ""),
                    "category": category, "split": "heldout" if q.get("heldout") else "tune"})
    return out


def check(names):
    ok = True
    for name in names:
        corpus = corpora.CORPORA[name]
        syms = symbols.extract(corpora.fetch(name), corpus.language)
        try:
            qs = load(name, syms)
        except ValueError as e:
            print(f"{name}: {e}")
            ok = False
            continue
        if not qs:
            continue
        free = sum(q["identifier_free"] for q in qs)
        for q in qs:
            golds = ", ".join(f"{g['path']}:{g['start_line']}-{g['end_line']} {g['symbol']}" for g in q["gold"])
            flag = "free" if q["identifier_free"] else "ids: " + ",".join(q["identifier_words"])
            print(f"{name} {q['id']:>4} [{flag}] [{q['category']} {q['split']}] {q['query']}\n          -> {golds}")
        by = {c: sum(q["category"] == c for q in qs) for c in CATEGORIES}
        held = sum(q["split"] == "heldout" for q in qs)
        print(f"{name}: {len(qs)} questions, {free} identifier-free ({free / len(qs):.0%}); "
              + ", ".join(f"{c} {n}" for c, n in by.items()) + f"; held out {held}")
        if free * 2 < len(qs):
            print(f"{name}: fewer than half the questions are identifier-free; reword some")
            ok = False
    return ok


if __name__ == "__main__":
    names = sys.argv[2:] if len(sys.argv) > 2 else [p.stem for p in sorted(DIR.glob("*.json"))]
    sys.exit(0 if len(sys.argv) > 1 and sys.argv[1] == "check" and check(names) else 1)
