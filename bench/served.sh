#!/usr/bin/env bash
# `ken search` wall time, process start included, with and without a server
# holding the index: while `ken serve` is up, the CLI asks it over the local
# socket (<index>/ken.sock) instead of loading the shard and the model again.
# Corpus: requests 2.32.3 from PyPI, fully embedded with the default model.
# Peer in the same run: ripgrep over the same tree, for one word of the query.
# Reports p50 and p90 over ROUNDS runs of each, and the ratios.
#   bench/served.sh [ROUNDS]   (default 30)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cache="$here/bench/.cache"
source "$here/bench/lib.sh"
rounds="${1:-30}"
command -v rg >/dev/null || { apt-get update -qq && apt-get install -y -qq ripgrep; }
(cd "$here" && cargo build --release --quiet -p ken)
ken="$here/target/release/ken"
requests="$(fetch_wheel requests 2.32.3)"
idx="$cache/served-requests-index"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "== indexing and embedding requests 2.32.3 (once; resumable)"
"$ken" --index-dir "$idx" index "$requests" -q

log="$(mktemp)"
"$ken" --index-dir "$idx" serve --addr 127.0.0.1:0 2>"$log" &
server=$!
trap 'kill $server 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 600); do [ -S "$idx/ken.sock" ] && break; sleep 0.1; done
[ -S "$idx/ken.sock" ] || { echo "ken serve did not make its socket:"; cat "$log"; exit 1; }

python3 - "$ken" "$idx" "$requests" "$rounds" "$server" <<'PY'
import os, signal, statistics, subprocess, sys, time
ken, idx, corpus, rounds, server = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
query = "how are redirects resolved"

def times(cmd, check_stderr=True):
    out = []
    for i in range(rounds + 1):
        t = time.perf_counter()
        p = subprocess.run(cmd, cwd=corpus, capture_output=True, text=True)
        elapsed = time.perf_counter() - t
        if p.returncode != 0 and cmd[0] != "rg":
            sys.exit(f"{' '.join(cmd)} failed: {p.stderr}")
        if check_stderr and "lane off" in p.stderr:
            sys.exit(f"a lane was off: {p.stderr}")
        if i:  # the first run warms the page cache (and the server's model)
            out.append(elapsed * 1000)
    return out

def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]

search = [ken, "--index-dir", idx, "search", query, "-k", "10"]
served = times(search)
rg = times(["rg", "-i", "-n", "redirect", "."], check_stderr=False)
os.kill(server, signal.SIGTERM)
for _ in range(100):
    if not os.path.exists(os.path.join(idx, "ken.sock")):
        break
    time.sleep(0.1)
alone = times(search)
print(f"runs per command: {rounds}, query: {query!r}")
print(f"{'':28} {'p50 ms':>8} {'p90 ms':>8}")
for name, xs in [("ken search, server up", served), ("ken search, no server", alone), ("rg -i redirect (peer)", rg)]:
    print(f"{name:28} {pct(xs, 0.5):8.1f} {pct(xs, 0.9):8.1f}")
print(f"served / rg: {pct(served, 0.5) / pct(rg, 0.5):.2f}x   no server / served: {pct(alone, 0.5) / pct(served, 0.5):.1f}x")
PY
