#!/usr/bin/env bash
# The hybrid pipeline's stage budgets (seed 003) on real corpora: flask 3.0.3
# and requests 2.32.3 from PyPI, fully embedded with the default model, served
# by a warm `ken serve --lsp` (pyright) on loopback.
#   static   end to end with the static graph, and each stage: p50 / p95
#   lsp      end to end with live LSP expansion: first pass (LSP cache cold,
#            servers warm) and second pass (cache warm)
#   peer     stage 1 alone (POST /api/v1/search) in the same run: the
#            pipeline's cost over plain hybrid retrieval, as a ratio
#   bench/pipeline.sh [ROUNDS]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cache="$here/bench/.cache"
source "$here/bench/lib.sh"
rounds="${1:-5}"
(cd "$here" && cargo build --release --quiet -p ken)
ken="$here/target/release/ken"
command -v pyright-langserver >/dev/null || npm install -g --silent pyright@1.1.408
mkdir -p "$here/bench/results"
for corpus in "flask 3.0.3" "requests 2.32.3"; do
  set -- $corpus
  src="$(fetch_wheel "$1" "$2")"
  idx="$cache/pipeline-$1-index"
  echo "== $1 $2: indexing and embedding (once; resumable)"
  "$ken" --index-dir "$idx" index "$src" -q
  log="$cache/pipeline-$1-serve.log"
  "$ken" --index-dir "$idx" -C "$src" serve --lsp --addr 127.0.0.1:0 2>"$log" &
  pid=$!
  trap 'kill $pid 2>/dev/null || true' EXIT
  for _ in $(seq 100); do grep -q "listening on" "$log" && break; sleep 0.1; done
  url=$(grep -o 'http://[0-9.:]*' "$log" | head -n 1)
  python3 "$here/bench/pipeline_bench.py" --url "$url" --corpus "$1" --rounds "$rounds" --pid "$pid" \
    --out "$here/bench/results/pipeline-$1.json"
  kill $pid; wait $pid 2>/dev/null || true
  trap - EXIT
done
