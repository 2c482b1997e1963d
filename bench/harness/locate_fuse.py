"""Try `ken locate`'s weights without running its lanes again.

`ken locate --explain` gives each lane's ranked files and each file's prior;
a file's score is the sum over lanes of weight / (rrf_k + rank), times its
prior. This module runs `ken locate --explain` once per report of
bench/locate/reports.jsonl (on the indexes `bench/locate.sh` built), keeps
the lanes, and redoes the fusion for any weights, as `ken locate` would, in
a fraction of a second per setting:

    python -m harness.locate_fuse --ken BIN --dump /tmp/lanes.json      # once: the lanes
    python -m harness.locate_fuse --lanes /tmp/lanes.json --weights '{"frames": 4}'
    python -m harness.locate_fuse --lanes /tmp/lanes.json --search      # coordinate search on the tune split

Scores as `bench/locate.sh` does (tests, docs and examples removed), but
over every file a lane ranks rather than the 20 `ken locate` returns, so
MRR reads a little higher. Choose on the tune split; the held-out figures
are printed beside it to confirm.
"""
import argparse
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from . import locate as L

# The lanes `--explain` lists, by their names in `LocateWeights`.
LANES = ["frames", "paths", "names", "example_names", "graph", "phrases", "literals", "raisers", "text", "definitions", "path_words", "semantic"]
# Values a coordinate search tries for each weight.
GRID = {
    "frames": [0, 0.5, 1, 2, 3, 4, 8], "paths": [0, 0.5, 1, 2, 3, 4], "names": [0, 0.25, 0.5, 0.75, 1, 1.5, 2],
    "example_names": [0, 0.06, 0.125, 0.25, 0.5], "graph": [0, 0.1, 0.25, 0.5], "phrases": [0, 0.25, 0.5, 1, 1.5, 2, 3],
    "literals": [0, 0.25, 0.5, 1, 2], "raisers": [0, 0.25, 0.5, 1, 2], "text": [1, 1.5, 2, 2.5, 3, 4], "definitions": [0, 0.5, 1, 1.5, 2, 2.5, 3], "path_words": [0, 0.5, 0.75, 1, 1.25, 1.5, 2],
    "rrf_k": [1, 3, 5, 10, 20, 40, 60],
}


REPORTS = str(L.BENCH / "locate" / "reports.jsonl")


def dump(ken, out, k=20, reports_file=REPORTS):
    """Runs `ken locate --explain` on every report; writes {id: explain}."""
    reports = L.load_reports(reports_file)
    # `graph` ranks files only when its weight is above 0.
    weights = json.dumps({"graph": 0.0001})

    def one(report):
        key = L.package_key(report)
        idx = L.IDX / f"{key[1]}-{key[2]}"
        p = subprocess.run([ken, "locate", "--index-dir", str(idx), "--json", "--explain", "-k", str(k), "--weights", weights],
                           input=L.query_of(report), capture_output=True, text=True, timeout=900)
        if p.returncode != 0:
            raise RuntimeError(f"{report['id']}: {p.stderr.strip()[-300:]}")
        return report["id"], json.loads(p.stdout)["explain"]

    with ThreadPoolExecutor(2) as pool:
        lanes = dict(pool.map(one, reports))
    with open(out, "w") as f:
        json.dump(lanes, f)


class Fusion:
    def __init__(self, lanes_file, reports_file=REPORTS):
        self.reports = {r["id"]: r for r in L.load_reports(reports_file)}
        with open(lanes_file) as f:
            explained = json.load(f)
        self.lanes = {rid: {lane["lane"]: lane["files"] for lane in e["lanes"]} for rid, e in explained.items()}
        self.weights = {lane["lane"]: lane["weight"] for e in explained.values() for lane in e["lanes"]}
        self.weights["graph"] = 0.0
        self.weights["rrf_k"] = next(iter(explained.values()))["rrf_k"]
        self.priors = {rid: {p["path"]: p["prior"] for p in e["priors"]} for rid, e in explained.items()}

    def rank(self, rid, weights):
        """The first gold file's rank (from 1) under these weights, or None."""
        scores = {}
        for lane in LANES:
            weight = weights.get(lane, 0.0)
            if weight:
                for i, path in enumerate(self.lanes[rid].get(lane, [])):
                    scores[path] = scores.get(path, 0.0) + weight / (weights["rrf_k"] + i + 1)
        priors = self.priors[rid]
        ranked = sorted(scores, key=lambda p: (-scores[p] * priors.get(p, 1.0), p))
        files = [p for p in ranked if not L.is_excluded(p)]
        gold = set(self.reports[rid]["files"])
        return next((i + 1 for i, p in enumerate(files) if p in gold), None)

    def metrics(self, weights, split=None):
        ranks = [self.rank(rid, weights) for rid in self.lanes if split is None or self.reports[rid]["split"] == split]
        return L.summarize(ranks)

    def line(self, weights):
        parts = []
        for split in ("tune", "heldout", None):
            m = self.metrics(weights, split)
            parts.append(f"{split or 'all'} " + " / ".join(f"{m[k]:.3f}" for k in ("acc@1", "acc@5", "acc@10", "mrr")))
        return "   ".join(parts)


def search(fusion, rounds=4):
    """Coordinate search on the tune split (Acc@5 + Acc@1 / 2 + MRR)."""
    def objective(w):
        m = fusion.metrics(w, "tune")
        return m["acc@5"] + m["acc@1"] / 2 + m["mrr"]

    best = dict(fusion.weights)
    score = objective(best)
    print("as given:", fusion.line(best))
    for _ in range(rounds):
        moved = False
        for key, values in GRID.items():
            for value in values:
                trial = dict(best, **{key: value})
                trial_score = objective(trial)
                if trial_score > score + 1e-9:
                    best, score, moved = trial, trial_score, True
        print({k: best[k] for k in GRID}, "\n   ", fusion.line(best))
        if not moved:
            break


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ken", help="the binary whose lanes --dump records")
    ap.add_argument("--dump", help="run ken locate --explain on every report and write the lanes here")
    ap.add_argument("--lanes", help="lanes written by --dump")
    ap.add_argument("--reports", default=REPORTS, help="the reports (default: the whole set)")
    ap.add_argument("--weights", default="{}",
                    help="JSON over the lanes' weights as --explain lists them (example_names' is already times names')")
    ap.add_argument("--search", action="store_true", help="coordinate search over every weight on the tune split")
    args = ap.parse_args()
    if args.dump:
        if not args.ken:
            sys.exit("--dump needs --ken")
        dump(args.ken, args.dump, reports_file=args.reports)
        args.lanes = args.lanes or args.dump
    if not args.lanes:
        sys.exit("give --lanes (or --dump with --ken)")
    fusion = Fusion(args.lanes, args.reports)
    if args.search:
        search(fusion)
    else:
        print(fusion.line(dict(fusion.weights, **json.loads(args.weights))))


if __name__ == "__main__":
    main()
