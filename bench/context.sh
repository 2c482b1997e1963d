#!/usr/bin/env bash
# Context packs (issue 18): recall of the gold definitions inside 2k, 8k and
# 32k o200k tokens, for `ken context`, aider's repository map, `probe search`
# and naive BM25 windows, on the harness's docstring and question sets.
# See bench/harness/context.py.
#
#   bench/context.sh                                requests, flask, httpx, rxjs; 40 docstring queries each
#   bench/context.sh --corpora requests --n 10      a quick check
#   KEN=path/to/ken bench/context.sh                another binary (default target/release/ken)
#
# Installs aider-chat 0.86.1 into bench/.cache/aider-venv and probe 0.6.0
# (bench/peers/install_probe.sh) once. Writes bench/results/context.json and
# prints the table with the CPU.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="$here/.cache"
source "$here/lib.sh"
python="$(harness_python)"
corpora="requests,flask,httpx,rxjs" n=40
while [ $# -gt 0 ]; do
  case "$1" in
    --corpora) corpora="$2"; shift ;;
    --n) n="$2"; shift ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
aider="$cache/aider-venv"
if [ ! -x "$aider/bin/python" ] || ! "$aider/bin/python" -c "import aider.repomap" 2>/dev/null; then
  echo "making $aider (aider-chat 0.86.1)" >&2
  rm -rf "$aider" && python3 -m venv "$aider"
  "$aider/bin/pip" install --quiet --disable-pip-version-check aider-chat==0.86.1 \
    || { echo "pip install aider-chat failed; PyPI must be reachable" >&2; exit 1; }
fi
probe="$("$here/peers/install_probe.sh")"
ken="$(bench_ken ken-context-bench)"
cd "$here"
KEN="$ken" PROBE="$probe" AIDER="$aider/bin/python" CORPORA="$corpora" N="$n" KEN_CACHE_DIR="${KEN_CACHE_DIR:-$cache/ken-cache}" \
  "$python" - <<'PY'
import json, os, platform
from harness import context
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
table = {}
os.makedirs("results", exist_ok=True)
for corpus in os.environ["CORPORA"].split(","):
    # Each corpus's rows are written as soon as they are in.
    table.update(context.run(os.environ["KEN"], os.environ["PROBE"], os.environ["AIDER"], [corpus], int(os.environ["N"]),
                             log=lambda m: None))
    text = context.render(table)
    print(f"CPU: {cpu}, {os.cpu_count()} cores\n\n{text}", flush=True)
    json.dump({"cpu": cpu, "rows": [{"corpus": k[0], "set": k[1], "system": k[2], "budget": k[3], **v} for k, v in table.items()],
               "table": text}, open("results/context.json", "w"), indent=1)
PY
