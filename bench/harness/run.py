"""Runs the harness: every chosen system on every chosen corpus and query
set, side by side, in one run. Prints a table of Kenning against each peer
with ratios, writes bench/results/harness.json (+ per-query detail) and draws
bench/results/harness.png (quality against latency per system).

    python -m harness.run [--corpora a,b] [--sets s,t] [--systems x,y] [--quick | --smoke]
"""

import argparse
import json
import os
import platform
import shutil
import sys
import time
import traceback
from pathlib import Path

from . import corpora, impact, metrics, querysets, symbols, systems
from .paths import CACHE, REPO, RESULTS
from .proc import Failure

ALL_SYSTEMS = ["ken", "ken impact", "ken dsl", "ken keywords", "ken intents", "ken intents only", "ken lexical", "ken semantic", "ken pipeline", "ken pipeline seed003", "ken static", "ken static semantic", "ken static lexical", "ken static-distilled", "ken static-distilled semantic", "ken cli", "ripgrep", "probe", "ck", "semble",
               "codexlens", "naive RAG", "jedi"]
SIZES = {  # queries per corpus and set: full, --quick, --smoke
    "docstring": (100, 30, 10), "identifier": (40, 12, 5), "graph": (120, 40, 10), "impact": (12, 5, 2),
}
DEFAULT_CORPORA = list(corpora.CORPORA)
QUICK_CORPORA = ["requests", "flask", "rxjs"]
SMOKE_CORPORA = ["requests"]


def make_systems(names, ken):
    table = {
        "ken": lambda: systems.Ken(ken), "ken dsl": lambda: systems.Ken(ken, "dsl"),
        "ken keywords": lambda: systems.Ken(ken, "keywords"),
        "ken impact": lambda: systems.Ken(ken, "impact"),
        # MutaGReP's intent lane in hybrid, and alone (`ken index --intents` first).
        "ken intents": lambda: systems.Ken(ken, intents=True),
        "ken intents only": lambda: systems.Ken(ken, "intents", intents=True),
        "ken lexical": lambda: systems.Ken(ken, "lexical"),
        "ken semantic": lambda: systems.Ken(ken, "semantic"), "ken pipeline": lambda: systems.Ken(ken, "pipeline"),
        "ken pipeline seed003": lambda: systems.Ken(ken, "pipeline seed003"),
        "ken static": lambda: systems.Ken(ken, model="static"),
        "ken static semantic": lambda: systems.Ken(ken, "semantic", model="static"),
        # BM25 alone, on an index that needs no transformer (minutes sooner).
        "ken static lexical": lambda: systems.Ken(ken, "lexical", model="static"),
        # The table distilled from MiniLM, before training on code (bench/static/).
        "ken static-distilled": lambda: systems.Ken(ken, model="static-distilled"),
        "ken static-distilled semantic": lambda: systems.Ken(ken, "semantic", model="static-distilled"),
        "ken cli": lambda: systems.KenCli(ken), "ripgrep": systems.Ripgrep, "probe": systems.Probe,
        "naive RAG": systems.NaiveRag, "jedi": systems.Jedi, "codexlens": systems.Codexlens, "ck": systems.Ck, "semble": systems.Semble,
    }
    out, skipped = [], {}
    for n in names:
        s = table[n]()
        why = s.unavailable()
        if why:
            skipped[n] = why
        else:
            out.append(s)
    return out, skipped


def task_of(set_name):
    return {"graph": "graph", "impact": "impact"}.get(set_name, "search")


def run_queries(system, set_name, queries, k=10):
    if set_name == "graph":
        queries = [q for q in queries if q["relation"] in system.relations]
    rows = []
    for q in queries:
        start = time.perf_counter()
        row = {"id": q["id"], "style": q.get("style")}
        try:
            if set_name == "graph":
                answer = system.graph(q["relation"], q["target"])
                row.update(metrics.set_valued(answer, q["gold"], by_name=q["relation"] == "subclasses"))
            elif set_name == "impact":
                answer = system.impact(q["target"])
                row.update(metrics.set_valued(answer, q["gold"]))
                row["precision_calls"] = metrics.set_valued(answer, q["gold"] + q.get("calls", []))["precision"]
                # `top` keeps three: the misses and the extras are what a
                # recall or precision figure is read from.
                row["missed"] = [g for g in q["gold"] if not any(metrics.overlaps(a, g) for a in answer)]
                row["extra"] = [a for a in answer if not any(metrics.overlaps(a, g) for g in q["gold"])]
            else:
                answer = system.search(q["query"], k)
                row.update(metrics.ranked(answer, q["gold"], k))
                row.update({f"file_{m}": v for m, v in metrics.ranked_by_file(answer, q["gold"], k).items()})
            row["top"] = answer[:3]
            if answer and "start_line" in answer[0]:
                spans = [a["end_line"] - a["start_line"] + 1 for a in answer[:k]]
                row["span"] = sum(spans) / len(spans)
        except Failure as e:
            row["failure"] = str(e)
        except Exception as e:  # an adapter bug must not end the run either
            row["failure"] = f"{type(e).__name__}: {e}"
        row["ms"] = (time.perf_counter() - start) * 1000
        rows.append(row)
    return rows


def breakdown(queries, rows):
    """Rows of a hand-written set by category and by split: `questions/prose`,
    `questions/heldout`, … (the held-out split is never tuned on)."""
    by_id = {q["id"]: q for q in queries}
    parts = {}
    for r in rows:
        q = by_id.get(r["id"], {})
        for key in ("category", "split"):
            if key in q:
                parts.setdefault(f"{q.get('set', 'questions')}/{q[key]}", []).append(r)
    return dict(sorted(parts.items()))


def summarise(rows, set_name):
    ok = [r for r in rows if "failure" not in r]
    lat = [r["ms"] for r in ok]
    out = {"queries": len(rows), "failures": len(rows) - len(ok),
           "p50_ms": metrics.percentile(lat, 50), "p95_ms": metrics.percentile(lat, 95)}
    # Failures score 0: a system that crashes on a query did not answer it.
    if set_name in ("graph", "impact"):
        out["precision"] = metrics.mean([r.get("precision", 0.0) for r in rows])
        out["recall"] = metrics.mean([r.get("recall", 0.0) for r in rows])
        out["f1"] = metrics.mean([r.get("f1", 0.0) for r in rows])
        if set_name == "impact":
            out["precision_calls"] = metrics.mean([r.get("precision_calls", 0.0) for r in rows])
    else:
        out["mrr@10"] = metrics.mean([r.get("rr", 0.0) for r in rows])
        out["recall@10"] = metrics.mean([r.get("recall", 0.0) for r in rows])
        out["ndcg@10"] = metrics.mean([r.get("ndcg", 0.0) for r in rows])
        # By file: any hit in a gold definition's file matches it.
        out["file_mrr@10"] = metrics.mean([r.get("file_rr", 0.0) for r in rows])
        out["file_ndcg@10"] = metrics.mean([r.get("file_ndcg", 0.0) for r in rows])
    # How many lines a hit covers: a system answering with whole classes
    # matches more golds by overlap than one answering with functions.
    out["mean_hit_lines"] = metrics.mean([r["span"] for r in rows if "span" in r])
    failures = [r["failure"] for r in rows if "failure" in r]
    if failures:
        out["failure_examples"] = sorted(set(failures))[:3]
    return out


def build_sets(name, wanted, size_index):
    corpus = corpora.CORPORA[name]
    root = corpora.fetch(name)
    built, notes = {}, {}
    for s in wanted:
        why = querysets.not_offered(name, s)
        if why:
            notes[s] = why
    wanted = [s for s in wanted if s not in notes]
    # The docs set needs no definitions; the code sets do.
    syms = symbols.extract(root, corpus.language) if set(wanted) - {"docs"} else []
    for s in wanted:
        n = SIZES.get(s, (0, 0, 0))[size_index]
        try:
            if s == "docstring":
                qs, stripped = querysets.docstring_set(name, n)
                built[s] = (qs, stripped)
            elif s == "identifier":
                built[s] = (querysets.identifier_set(name, syms, n), root)
            elif s == "questions":
                qs = querysets.question_set(name, syms)
                if size_index == 2:
                    qs = qs[:5]
                if qs:
                    built[s] = (qs, root)
                else:
                    notes[s] = "no hand-written questions for this corpus"
            elif s == "graph":
                qs = querysets.graph_set(name, syms, n) if name in corpora.GRAPH_CORPORA else None
                if qs:
                    built[s] = (qs, root)
                else:
                    notes[s] = ("no oracle cache; run bench/graph_eval.sh --oracle-only"
                                if name in corpora.GRAPH_CORPORA else "jedi oracles cover Python corpora only")
            elif s == "impact":
                qs = impact.impact_set(name, syms, n)
                for q in qs or []:
                    q["calls"] = impact.call_sites(root, corpus.language, q["target"])
                if qs:
                    built[s] = (qs, root)
                else:
                    notes[s] = "no type-checker oracle for this language yet" if qs is None else "no change broke anything"
            elif s == "docs":
                qs = querysets.docs_set(name)
                if size_index == 2:
                    qs = qs[:5]
                if qs:
                    built[s] = (qs, root)
                else:
                    notes[s] = "no hand-written docs questions for this corpus"
        except (impact.CheckerMissing, ValueError) as e:
            notes[s] = str(e)
    return built, notes


def main(argv=None):
    ap = argparse.ArgumentParser(prog="bench/eval.sh", description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", help=f"comma-separated, from: {', '.join(corpora.CORPORA)}")
    ap.add_argument("--sets", help=f"comma-separated, from: {', '.join(querysets.SETS)}")
    ap.add_argument("--systems", help=f"comma-separated, from: {', '.join(ALL_SYSTEMS)}")
    ap.add_argument("--quick", action="store_true", help="fewer corpora and queries (about 15 minutes)")
    ap.add_argument("--smoke", action="store_true", help="CI's subset: requests, a few queries, ken and ripgrep")
    ap.add_argument("--ken", default=os.environ.get("KEN", str(REPO / "target" / "release" / "ken")))
    ap.add_argument("--out", help="default bench/results/harness.json (harness-smoke.json with --smoke)")
    args = ap.parse_args(argv)
    args.out = args.out or str(RESULTS / ("harness-smoke.json" if args.smoke else "harness.json"))

    size_index = 2 if args.smoke else 1 if args.quick else 0
    names = args.corpora.split(",") if args.corpora else SMOKE_CORPORA if args.smoke else QUICK_CORPORA if args.quick else DEFAULT_CORPORA
    sets = args.sets.split(",") if args.sets else querysets.SETS
    wanted = args.systems.split(",") if args.systems else (["ken", "ripgrep"] if args.smoke else ALL_SYSTEMS)
    for bad in [n for n in names if n not in corpora.CORPORA]:
        sys.exit(f"unknown corpus {bad!r}; choose from {', '.join(corpora.CORPORA)}")
    for bad in [s for s in sets if s not in querysets.SETS]:
        sys.exit(f"unknown set {bad!r}; choose from {', '.join(querysets.SETS)}")
    for bad in [s for s in wanted if s not in ALL_SYSTEMS]:
        sys.exit(f"unknown system {bad!r}; choose from {', '.join(ALL_SYSTEMS)}")

    # Kenning's HTTP rows first: `ken cli` stops the shared server.
    wanted.sort(key=ALL_SYSTEMS.index)
    active, skipped = make_systems(wanted, args.ken)
    for n, why in skipped.items():
        print(f"skipping {n}: {why}", flush=True)
    report = {"started": time.strftime("%Y-%m-%d %H:%M:%S"), "machine": machine(), "argv": sys.argv[1:],
              "skipped_systems": skipped, "corpora": {}}
    detail = {}
    # Its own directory lets two runs (two binaries) go side by side.
    work_root = Path(os.environ.get("KEN_HARNESS_WORK", CACHE / "harness-work"))
    try:
        for name in names:
            entry = report["corpora"][name] = {"pin": corpora.CORPORA[name].pin, "index": {}, "sets": {}, "notes": {}}
            try:
                built, notes = build_sets(name, sets, size_index)
            except corpora.CorpusUnavailable as e:
                print(f"{name}: {e}", flush=True)
                entry["notes"]["corpus"] = str(e)
                continue
            entry["notes"].update(notes)
            for s, why in notes.items():
                print(f"{name} {s}: {why}", flush=True)
            language = corpora.CORPORA[name].language
            # The docs set searches every file (systems.TREE), the code sets
            # the corpus's language; a peer indexes once per root and scope.
            variants = {}
            for s, (qs, root) in built.items():
                variants.setdefault((root, systems.TREE if s == "docs" else language), []).append(s)
            for (root, scope), set_names in variants.items():
                variant = "stripped" if "stripped" in str(root) else "tree" if scope == systems.TREE else "original"
                work = work_root / f"{name}-{variant}"
                work.mkdir(parents=True, exist_ok=True)
                servers = {}  # one index and server per embedding model
                for system in active:
                    if scope not in system.languages:
                        continue
                    todo = [s for s in set_names if task_of(s) in system.tasks]
                    if not todo:
                        continue
                    try:
                        if isinstance(system, (systems.Ken, systems.KenCli)):
                            model = getattr(system, "model", None)
                            intents = getattr(system, "intents", False)
                            key = (model, intents)
                            if key not in servers:
                                label = " ".join(["ken"] + ([model] if model else []) + (["intents"] if intents else []))
                                print(f"{name} [{variant}]: {label} index + serve", flush=True)
                                # Embed only where a ken row sharing this index searches.
                                embed = any(getattr(o, "model", None) == model and getattr(o, "intents", False) == intents
                                            and o.tasks != ("impact",) for o in active if isinstance(o, (systems.Ken, systems.KenCli)))
                                servers[key] = systems.KenServer(args.ken, root, scope, work, model, intents, embed)
                                if variant != "stripped":
                                    entry["index"][label] = vars(servers[key].stats)
                            system.attach(servers[key])
                        else:
                            print(f"{name} [{variant}]: preparing {system.name}", flush=True)
                            stats = system.prepare(root, scope, work)
                            if stats and variant != "stripped":
                                entry["index"][system.name] = vars(stats)
                    except Failure as e:
                        print(f"{name} [{variant}]: {system.name} could not index: {e}", flush=True)
                        entry["notes"][f"{system.name} index"] = str(e)
                        continue
                    for s in todo:
                        qs = built[s][0]
                        rows = run_queries(system, s, qs)
                        summary = summarise(rows, s)
                        entry["sets"].setdefault(s, {})[system.name] = summary
                        detail.setdefault(name, {}).setdefault(s, {})[system.name] = rows
                        print(f"{name} {s:10} {system.name:13} {fmt_summary(summary)}", flush=True)
                        for part, part_rows in breakdown(qs, rows).items():
                            entry["sets"].setdefault(part, {})[system.name] = summarise(part_rows, s)
                for server in servers.values():
                    server.close()
                for system in active:
                    system.close()
    finally:
        for system in active:
            system.close()
        systems.EmbedServer.stop()
    report["sets"] = aggregate(report)
    report["finished"] = time.strftime("%Y-%m-%d %H:%M:%S")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1))
    out.with_name(out.stem + "-queries.json").write_text(json.dumps(detail))
    print_table(report)
    if not report["sets"]:
        print(f"\nwrote {out} (no query set ran: no plot)")
        return
    try:
        from . import plot
        png = plot.draw(report, out.with_suffix(".png"))
        print(f"\nwrote {out}, {out.with_name(out.stem + '-queries.json')} and {png}")
    except ImportError as e:
        print(f"\nwrote {out} (no plot: {e}; bench/eval.sh installs matplotlib)")
    if args.smoke:
        problems = smoke_problems(report, sets)
        for p in problems:
            print(f"smoke check failed: {p}")
        if problems:
            sys.exit(1)
        print("smoke check passed")
    return report


# What CI holds Kenning to on the smoke subset; far below what a full run
# measures, so only a real regression (or a broken adapter) trips it.
SMOKE_FLOOR = {"identifier": 0.8, "docstring": 0.3, "questions": 0.3, "graph": 0.5, "impact": 0.5, "docs": 0.3}


def smoke_problems(report, sets):
    problems = []
    for s in sets:
        # A set no corpus of the run offers (docs on requests' wheel) is not a regression.
        if all(querysets.not_offered(name, s) for name in report["corpora"]):
            continue
        ken = report["sets"].get(s, {}).get("ken")
        if ken is None:
            problems.append(f"ken has no result for the {s} set (see the notes above)")
            continue
        if ken["failures"]:
            problems.append(f"ken failed {ken['failures']} {s} queries")
        if (primary(ken) or 0) < SMOKE_FLOOR[s]:
            problems.append(f"ken's {s} score {primary(ken):.3f} is below the smoke floor {SMOKE_FLOOR[s]}")
    return problems


def machine():
    return {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
            "mem_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)}


def aggregate(report):
    """Per set and system, over every corpus: query-weighted means and pooled latency percentiles (approximated by
    the query-weighted mean of the per-corpus percentiles)."""
    out = {}
    for name, entry in report["corpora"].items():
        for s, per_system in entry["sets"].items():
            for system, m in per_system.items():
                acc = out.setdefault(s, {}).setdefault(system, {"queries": 0, "failures": 0, "corpora": []})
                n = m["queries"]
                acc["corpora"].append(name)
                for key, v in m.items():
                    if key in ("queries", "failures", "failure_examples"):
                        continue
                    if v is not None:
                        acc.setdefault("_" + key, []).append((v, n))
                acc["queries"] += n
                acc["failures"] += m["failures"]
    for s, per_system in out.items():
        for system, acc in per_system.items():
            for key in [k for k in acc if k.startswith("_")]:
                pairs = acc.pop(key)
                total = sum(n for _, n in pairs)
                acc[key[1:]] = sum(v * n for v, n in pairs) / total if total else None
    return out


def fmt(v, digits=3):
    return "-" if v is None else f"{v:.{digits}f}"


def fmt_summary(m):
    if "mrr@10" in m:
        q = (f"MRR@10 {fmt(m['mrr@10'])} R@10 {fmt(m['recall@10'])} nDCG@10 {fmt(m['ndcg@10'])} "
             f"by file MRR@10 {fmt(m.get('file_mrr@10'))} nDCG@10 {fmt(m.get('file_ndcg@10'))}")
    else:
        q = f"P {fmt(m['precision'])} R {fmt(m['recall'])} F1 {fmt(m['f1'])}"
        if "precision_calls" in m:
            q += f" P+calls {fmt(m['precision_calls'])}"
    return f"{q}  p50 {fmt(m['p50_ms'], 1)} ms  p95 {fmt(m['p95_ms'], 1)} ms  n {m['queries']}  failed {m['failures']}"


def primary(m):
    return m.get("mrr@10", m.get("f1"))


def print_table(report):
    print("\nKenning against each peer, per query set, over every corpus run "
          "(ratios: ken's quality ÷ the system's, and the system's p50 latency ÷ ken's)")
    for s, per_system in report["sets"].items():
        ranked = "mrr@10" in next(iter(per_system.values()))
        ken = per_system.get("ken")
        print(f"\n{s}")
        head = f"  {'system':13} {'MRR@10':>7} {'R@10':>6} {'nDCG@10':>7}" if ranked else f"  {'system':13} {'P':>7} {'R':>6} {'F1':>7}"
        head += f" {'file MRR':>8} {'file nDCG':>9}" if ranked else f" {'P+calls':>8} {'':>9}"
        print(head + f" {'p50 ms':>8} {'p95 ms':>8} {'n':>5} {'fail':>4} {'ken ×quality':>12} {'×latency':>9} {'hit lines':>9}  corpora")
        for system, m in sorted(per_system.items(), key=lambda kv: -(primary(kv[1]) or 0)):
            a, b, c = (m.get("mrr@10"), m.get("recall@10"), m.get("ndcg@10")) if ranked else (m.get("precision"), m.get("recall"), m.get("f1"))
            q_ratio = l_ratio = "-"
            if ken and system != "ken":
                if primary(m):
                    q_ratio = f"{primary(ken) / primary(m):.2f}×"
                if m.get("p50_ms") and ken.get("p50_ms"):
                    l_ratio = f"{m['p50_ms'] / ken['p50_ms']:.2f}×"
            print(f"  {system:13} {fmt(a):>7} {fmt(b):>6} {fmt(c):>7} {fmt(m.get('file_mrr@10', m.get('precision_calls'))):>8} {fmt(m.get('file_ndcg@10')):>9} "
                  f"{fmt(m.get('p50_ms'), 1):>8} {fmt(m.get('p95_ms'), 1):>8} "
                  f"{m['queries']:5d} {m['failures']:4d} {q_ratio:>12} {l_ratio:>9} {fmt(m.get('mean_hit_lines'), 0):>9}  {','.join(m['corpora'])}")
    rows = [(n, sys_, st) for n, e in report["corpora"].items() for sys_, st in e["index"].items()]
    if rows:
        print("\nindexing (cold: fresh index; warm: the same run again, nothing changed)")
        print(f"  {'corpus':20} {'system':11} {'cold s':>8} {'warm s':>8} {'size MiB':>9} {'peak RSS MiB':>13}")
        for n, sys_, st in rows:
            print(f"  {n:20} {sys_:11} {fmt(st.get('cold_s'), 1):>8} {fmt(st.get('warm_s'), 1):>8} "
                  f"{fmt(st.get('size_mib'), 1):>9} {fmt(st.get('peak_rss_mib'), 0):>13}  {st.get('note', '')}")
    if report["skipped_systems"]:
        print("\nskipped: " + "; ".join(f"{k} ({v})" for k, v in report["skipped_systems"].items()))


if __name__ == "__main__":
    main()
