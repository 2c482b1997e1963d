#!/usr/bin/env bash
# Dependency-graph performance (graph issue), on Django 5.1.4 from PyPI.
#   1. What graph building and resolution add to a cold index: `ken index`
#      against `ken index --no-graph`, interleaved, median of 3 (target: at
#      most +50%).
#   2. Query latency from a warm process: callers --depth 3 and subclasses
#      for the 200 most important symbols (target: under 20 ms).
#   3. The peer, in the same run: jedi 0.19.2 get_references (what a Python
#      developer's editor runs for "find callers") on three of those symbols.
#
# Usage: bench/graph.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cache="$here/.cache"
mkdir -p "$cache"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"

(cd "$root" && cargo build --release -p ken -p ken-graph --example graph_query_latency --quiet)
ken="$root/target/release/ken"
corpus="$(fetch_django)"
idx="$(mktemp -d)"
trap 'rm -rf "$idx"' EXIT

echo "django 5.1.4: cold index, with and without the graph (3 runs each, interleaved)"
with=(); without=()
for _ in 1 2 3; do
  rm -rf "$idx"/*; read -r s _ < <(measure "$ken" index "$corpus" --index-dir "$idx" -q --no-graph); without+=("$s")
  rm -rf "$idx"/*; read -r s _ < <(measure "$ken" index "$corpus" --index-dir "$idx" -q); with+=("$s")
done
"$ken" index "$corpus" --index-dir "$idx" --json -q > "$idx/summary.json"
python3 - "${without[*]}" "${with[*]}" "$idx/summary.json" <<'PY'
import json, statistics, sys
without = statistics.median(map(float, sys.argv[1].split()))
with_graph = statistics.median(map(float, sys.argv[2].split()))
g = json.load(open(sys.argv[3]))["graph"]
print(f"  without graph {without:.2f} s   with graph {with_graph:.2f} s   "
      f"graph adds {100 * (with_graph / without - 1):.0f}%   (target <= 50%)")
print(f"  edges {g['edges']:,}, resolved {g['resolved']:,}: {g['by_resolution']}")
PY

echo "query latency, warm process (release build)"
"$root/target/release/examples/graph_query_latency" "$idx" 200

venv="$cache/graph-venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check jedi==0.19.2 parso==0.8.7
fi
echo "peer: jedi get_references over the django project (same symbols as ken graph callers)"
syms=(django/shortcuts.py:render django/utils/html.py:escape django/db/models/query.py:QuerySet.filter)
ken_ms=()
for s in "${syms[@]}"; do
  path="${s%%:*}"; qual="${s#*:}"; mod="${path%.py}"; mod="${mod//\//.}"
  t0=$(date +%s%N); "$ken" graph callers "$mod.$qual" --index-dir "$idx" --depth 1 >/dev/null; t1=$(date +%s%N)
  ken_ms+=("$(( (t1 - t0) / 1000000 ))")
done
"$venv/bin/python" - "$corpus" "${ken_ms[*]}" "${syms[@]}" <<'PY'
import ast, sys, time
import jedi
root, ken_ms, syms = sys.argv[1], [float(x) for x in sys.argv[2].split()], sys.argv[3:]
project = jedi.Project(root)
for spec, kms in zip(syms, ken_ms):
    path, qual = spec.split(":")
    tree = ast.parse(open(f"{root}/{path}", encoding="utf-8").read())
    node, parts = tree, qual.split(".")
    for part in parts:
        node = next(n for n in ast.iter_child_nodes(node)
                    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == part)
    line = node.lineno
    col = open(f"{root}/{path}", encoding="utf-8").read().splitlines()[line - 1].index(node.name)
    t = time.monotonic()
    refs = jedi.Script(path=f"{root}/{path}", project=project).get_references(line, col, scope="project")
    jedi_ms = (time.monotonic() - t) * 1000
    print(f"  {qual:<18} jedi {jedi_ms:8.0f} ms ({len(refs)} refs)   ken CLI process {kms:5.0f} ms   "
          f"ken is {jedi_ms / max(kms, 1):.0f}x faster")
PY
