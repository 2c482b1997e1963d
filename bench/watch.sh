#!/usr/bin/env bash
# `ken watch` (issue 18): how soon a saved edit is searchable by name.
#
# For each corpus, a copy is indexed, `ken watch` starts on it, and EDITS
# times a new function is appended to one of its files (a different file
# each time). The latency runs from just before the write until
# `ken symbols NAME` (answered by the watcher, which holds the index) finds
# it, polled every 10 ms: process start and polling included. Beside it, in
# the same run:
#   rg          ripgrep finding the same name in the tree (no index at all);
#   ken index   a whole incremental `ken index --no-embed` run after the edit,
#               what a user without a watcher would run.
# Two watcher setups: lexical only (`--no-embed`), and with the model
# embedding in the background (its backlog is the whole index, so every edit
# interrupts a running embedding).
#
#   bench/watch.sh                         django 5.1.4 and flask 3.1.0, 10 edits each
#   bench/watch.sh --corpora flask,httpx@0.28.1 --edits 5
#   KEN=path/to/ken bench/watch.sh         another binary
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="$here/.cache"
source "$here/lib.sh"
corpora="django,flask" edits=10
while [ $# -gt 0 ]; do
  case "$1" in
    --corpora) corpora="$2"; shift ;;
    --edits) edits="$2"; shift ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
command -v rg >/dev/null || { apt-get update -qq && apt-get install -y -qq ripgrep; }
ken="$(bench_ken ken-watch-bench)"
trees=()
for c in ${corpora//,/ }; do
  case "$c" in
    django) trees+=("django=$(fetch_django)") ;;
    flask) trees+=("flask=$(fetch_wheel flask 3.1.0)") ;;
    *@*) trees+=("${c%@*}=$(fetch_wheel "${c%@*}" "${c#*@}")") ;;
    *) echo "unknown corpus $c (django, flask, or a PyPI NAME@VERSION)" >&2; exit 2 ;;
  esac
done
RESULTS="$here/results" KEN="$ken" EDITS="$edits" KEN_CACHE_DIR="${KEN_CACHE_DIR:-$cache/ken-cache}" python3 - "${trees[@]}" <<'PY'
import json, os, shutil, statistics, subprocess, sys, tempfile, time
from pathlib import Path

ken, edits = os.environ["KEN"], int(os.environ["EDITS"])
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")

def found(cmd, cwd, name):
    return name in subprocess.run(cmd, cwd=cwd, capture_output=True, text=True).stdout

def until_found(cmd, cwd, name, started):
    while not found(cmd, cwd, name):
        if time.monotonic() - started > 120:
            raise SystemExit(f"{name} never found by {cmd[0]}")
        time.sleep(0.01)
    return time.monotonic() - started

def stats(xs):
    return f"{min(xs):.3f} / {statistics.median(xs):.3f} / {max(xs):.3f}"

rows = []
for spec in sys.argv[1:]:
    corpus, src = spec.split("=", 1)
    work = Path(tempfile.mkdtemp(prefix=f"ken-watch-{corpus}-"))
    try:
        tree = work / "tree"
        shutil.copytree(src, tree)
        subprocess.run(["git", "init", "-q"], cwd=tree, check=True)
        files = sorted(p for p in tree.rglob("*.py") if ".kenning" not in p.parts)
        step = max(1, len(files) // (2 * edits + 1))
        targets = files[::step]
        for setup, extra in (("ken watch --no-embed", ["--no-embed"]), ("ken watch (embedding behind)", [])):
            shutil.rmtree(tree / ".kenning", ignore_errors=True)
            subprocess.run([ken, "index", "-q", "--no-embed"], cwd=tree, check=True, capture_output=True)
            watcher = subprocess.Popen([ken, "watch", "--json", *extra], cwd=tree, stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL, text=True)
            try:
                for line in watcher.stdout:
                    if json.loads(line)["event"] == "searchable":
                        break
                time.sleep(1.0)  # the embedding, if any, is under way
                lat, rg = [], []
                for i in range(edits):
                    name = f"ken_watch_probe_{'lexical' if extra else 'embedding'}_{i}"
                    path = targets[(i + (edits if extra else 0)) % len(targets)]
                    t0 = time.monotonic()
                    with open(path, "a") as f:
                        f.write(f"\n\ndef {name}():\n    return {i}\n")
                    lat.append(until_found([ken, "symbols", name], tree, name, t0))
                    t1 = time.monotonic()
                    until_found(["rg", "--no-messages", "--no-filename", name, "."], tree, name, t1)
                    rg.append(time.monotonic() - t1)
                    time.sleep(0.3)
                rows.append({"corpus": corpus, "files": len(files), "setup": setup, "latency": lat, "rg": rg})
                print(f"{corpus:8} {setup:30} latency {stats(lat)} s   rg {stats(rg)} s", flush=True)
            finally:
                watcher.terminate()
                watcher.wait()
        # Without a watcher: one edit, then a whole incremental run.
        full = []
        for i in range(3):
            with open(targets[i], "a") as f:
                f.write(f"\n\ndef ken_index_probe_{i}():\n    return {i}\n")
            t0 = time.monotonic()
            subprocess.run([ken, "index", "-q", "--no-embed"], cwd=tree, check=True, capture_output=True)
            full.append(time.monotonic() - t0)
        rows.append({"corpus": corpus, "setup": "ken index --no-embed (no watcher)", "latency": full})
        print(f"{corpus:8} {'ken index --no-embed':30} whole run {stats(full)} s", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

print(f"\nCPU: {cpu}, {os.cpu_count()} cores; min / median / max seconds from the write until found\n")
print("| corpus | setup | edits | ken: write → found by name | rg over the tree | ratio (median) |")
print("|---|---|---|---|---|---|")
for r in rows:
    if "rg" in r:
        ratio = statistics.median(r["latency"]) / max(statistics.median(r["rg"]), 1e-9)
        print(f"| {r['corpus']} | {r['setup']} | {len(r['latency'])} | {stats(r['latency'])} | {stats(r['rg'])} | {ratio:.1f}× |")
    else:
        print(f"| {r['corpus']} | {r['setup']} | {len(r['latency'])} | {stats(r['latency'])} (whole run) | | |")
out = Path(os.environ["RESULTS"])
out.mkdir(parents=True, exist_ok=True)
(out / "watch.json").write_text(json.dumps({"cpu": cpu, "rows": rows}, indent=1))
PY
