#!/usr/bin/env bash
# Bounded loopback load test of `ken serve`: 50 concurrent clients for 60 s
# on requests 2.32.3 (embedded), two thirds pipeline requests and one third
# plain searches. Fails on any error; prints throughput, p50 / p99 and the
# server's RSS across the run.
#   bench/load.sh [CLIENTS] [SECONDS]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cache="$here/bench/.cache"
source "$here/bench/lib.sh"
clients="${1:-50}"
seconds="${2:-60}"
(cd "$here" && cargo build --release --quiet -p ken)
ken="$here/target/release/ken"
src="$(fetch_wheel requests 2.32.3)"
idx="$cache/pipeline-requests-index"
"$ken" --index-dir "$idx" index "$src" -q
log="$cache/load-serve.log"
"$ken" --index-dir "$idx" -C "$src" serve --addr 127.0.0.1:0 2>"$log" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q "listening on" "$log" && break; sleep 0.1; done
url=$(grep -o 'http://[0-9.:]*' "$log" | head -n 1)
mkdir -p "$here/bench/results"
python3 "$here/bench/load.py" --url "$url" --pid "$pid" --clients "$clients" --seconds "$seconds" --out "$here/bench/results/load.json"
