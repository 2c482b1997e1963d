#!/usr/bin/env bash
# Plan and execute (issue 17): seed edits that force derived edits on pinned
# corpora, carried out by `ken plan --execute` three ways (seed only, an
# oracle-guided repair loop, Kenning's plan) and checked by pyright or tsc.
# See bench/harness/execute.py.
#
#   bench/execute.sh                                 requests, flask, httpx, rxjs; 6 targets each
#   bench/execute.sh --corpora requests --n 3        a quick check
#   bench/execute.sh --systems "plan,plan llm"       the language model as the editor too
#   KEN=path/to/ken bench/execute.sh                 another binary (default target/release/ken)
#
# Needs pyright and tsc (scripts/test.sh installs both). Writes
# bench/results/execute.json and prints the table with the CPU.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="$here/.cache"
source "$here/lib.sh"
python="$(harness_python)"
corpora="requests,flask,httpx,rxjs" n=6 systems="seed only,repair,plan"
while [ $# -gt 0 ]; do
  case "$1" in
    --corpora) corpora="$2"; shift ;;
    --n) n="$2"; shift ;;
    --systems) systems="$2"; shift ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
ken="$(bench_ken ken-execute-bench)"
command -v pyright >/dev/null && command -v tsc >/dev/null || { echo "pyright and tsc are needed (scripts/test.sh installs them)" >&2; exit 1; }
cd "$here"
KEN="$ken" CORPORA="$corpora" N="$n" SYSTEMS="$systems" "$python" - <<'PY'
import json, os, platform, subprocess
from harness import execute
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
results = execute.run(os.environ["KEN"], os.environ["CORPORA"].split(","), int(os.environ["N"]), os.environ["SYSTEMS"].split(","))
table = execute.table(results)
print(f"\nCPU: {cpu}, {os.cpu_count()} cores\n\n{table}")
os.makedirs("results", exist_ok=True)
out = "results/execute.json" if "llm" not in os.environ["SYSTEMS"] else "results/execute-llm.json"
json.dump({"cpu": cpu, "results": results, "table": table}, open(out, "w"), indent=1)
PY
