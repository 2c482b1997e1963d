"""Scores. A hit or predicted range matches a gold definition when they are in
the same file and their line ranges overlap; each gold counts once, at its
first matching rank. Relevance is binary."""

import math


def overlaps(h, g):
    return h["path"] == g["path"] and h["start_line"] <= g["end_line"] and g["start_line"] <= h["end_line"]


def ranked(hits, gold, k=10):
    """{rr, recall, ndcg} of one ranked answer."""
    found, gains = set(), []
    for h in hits[:k]:
        new = [i for i, g in enumerate(gold) if i not in found and overlaps(h, g)]
        if new:
            found.add(new[0])
        gains.append(1.0 if new else 0.0)
    first = next((i for i, g in enumerate(gains) if g), None)
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(gold), k)))
    return {"rr": 1 / (first + 1) if first is not None else 0.0,
            "recall": len(found) / len(gold) if gold else 0.0,
            "ndcg": dcg / ideal if ideal else 0.0}


def ranked_by_file(hits, gold, k=10):
    """`ranked` where any hit in a gold definition's file matches it: the
    view of benchmarks whose targets are whole files, where a second hit in
    a file already found earns nothing."""
    files = list(dict.fromkeys(g["path"] for g in gold))
    return ranked(hits, [{"path": f, "start_line": 0, "end_line": 1 << 40} for f in files], k)


def set_valued(predicted, gold, by_name=False):
    """{precision, recall, f1} of a predicted set against a gold set."""
    return _with_f1(_set_valued(predicted, gold, by_name))


def _with_f1(m):
    p, r = m["precision"], m["recall"]
    m["f1"] = 2 * p * r / (p + r) if p + r else 0.0
    return m


def _set_valued(predicted, gold, by_name):
    if by_name:
        p = {x["qual"].rsplit(".", 1)[-1] for x in predicted}
        g = {x["qual"] for x in gold}
        tp = len(p & g)
        return {"precision": tp / len(p) if p else (1.0 if not g else 0.0), "recall": tp / len(g) if g else 1.0}
    hit_pred = sum(1 for x in predicted if any(overlaps(x, y) for y in gold))
    hit_gold = sum(1 for y in gold if any(overlaps(x, y) for x in predicted))
    return {"precision": hit_pred / len(predicted) if predicted else (1.0 if not gold else 0.0),
            "recall": hit_gold / len(gold) if gold else 1.0}


def percentile(values, q):
    if not values:
        return None
    v = sorted(values)
    i = min(len(v) - 1, max(0, math.ceil(q / 100 * len(v)) - 1))
    return v[i]


def mean(values):
    return sum(values) / len(values) if values else None
