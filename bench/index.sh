#!/usr/bin/env bash
# Indexing benchmark: cold, warm and one-file-changed runs of
# `ken index --no-embed` (walk, mine, store, link and the BM25 index: every
# layer but embeddings), and the time a cold `ken index` takes until semantic
# search is ready (every point with its static vector), on pinned real corpora, with peak RSS, index size and
# ken's own per-phase breakdown. The peer, timed in the same run on the same
# files, is Python's own parser (`ast.parse` over every file: what
# MutaGReP's miner does first), so the ratio survives a noisy machine. Times
# are wall-clock for the whole process.
#
# Usage: bench/index.sh [django|tokio|all]   (default: all)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cache="$here/.cache"
mkdir -p "$cache"
which="${1:-all}"

# shellcheck source=bench/lib.sh
source "$here/lib.sh"

(cd "$root" && cargo build --release -p ken --quiet)
ken="$root/target/release/ken"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"

bench() {
  local name="$1" corpus="$2" ext="$3" touch_file="$4"
  local idx; idx="$(mktemp -d)"
  local lines; lines=$(find "$corpus" -name "*.$ext" -print0 | xargs -0 cat | wc -l)
  read -r cold_s cold_rss < <(measure "$ken" index "$corpus" --index-dir "$idx" --no-embed -q)
  local phases; phases=$(rm -rf "$idx" && "$ken" index "$corpus" --index-dir "$idx" --no-embed --json \
    | python3 -c "import json,sys; p=json.load(sys.stdin)['phases']; print(', '.join(f'{k} {v:.2f}s' for k, v in p.items()))")
  read -r warm_s warm_rss < <(measure "$ken" index "$corpus" --index-dir "$idx" --no-embed -q)
  echo "# bench" >> "$corpus/$touch_file"
  read -r one_s one_rss < <(measure "$ken" index "$corpus" --index-dir "$idx" --no-embed -q)
  # Put the file back as it was so the corpus stays pinned.
  python3 - "$corpus/$touch_file" <<'PY'
import sys
p = sys.argv[1]
text = open(p, encoding="utf-8").read()
open(p, "w", encoding="utf-8").write(text[: -len("# bench\n")])
PY
  "$ken" index "$corpus" --index-dir "$idx" --no-embed -q >/dev/null
  local size; size=$(du -sk "$idx" | cut -f1)
  # Semantic search ready: a cold `ken index` with the default model, until
  # every point has its static vector (they come with the BM25 points; the
  # transformer's follow). The static table is distilled once per machine
  # into the model cache, so a first run elsewhere pays for that untimed.
  local sidx; sidx="$(mktemp -d)"
  "$ken" index "$here/harness" --index-dir "$sidx" --model static -q >/dev/null
  rm -rf "$sidx"
  read -r static_s static_hits < <(python3 "$here/semantic_ready.py" "$ken" "$corpus")
  local peer_s="n/a" ratio="n/a"
  if [ "$ext" = "py" ]; then
    peer_s=$( { /usr/bin/time -f "%e" python3 - "$corpus" >/dev/null <<'PY'
import ast, pathlib, sys
for p in pathlib.Path(sys.argv[1]).rglob("*.py"):
    try:
        ast.parse(p.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, ValueError):
        pass
PY
    } 2>&1 | tail -n 1)
    ratio=$(python3 -c "print(f'{$cold_s / max($peer_s, 0.01):.2f}x')")
  fi
  python3 - "$name" "$lines" "$cold_s" "$cold_rss" "$warm_s" "$one_s" "$size" "$peer_s" "$ratio" "$phases" "$static_s" "$static_hits" <<'PY'
import sys
name, lines, cold, rss, warm, one, size, peer, ratio, phases, static, static_hits = sys.argv[1:]
lines, cold = int(lines), float(cold)
print(f"{name}: {lines:,} lines")
print(f"  cold index   {cold:.2f} s  = {lines / max(cold, 0.01):,.0f} lines/s   (target >= 60,000)")
print(f"    phases     {phases}")
print(f"  semantic search ready (cold `ken index`, every point with its static vector) {float(static):.2f} s, "
      f"{float(static) / max(cold, 0.01):.2f}x the lexical-only run; a semantic search then found {static_hits} hits   (target < 20 s)")
print(f"  warm, no change {float(warm):.3f} s   (target < 0.3)")
print(f"  one file changed {float(one):.3f} s")
print(f"  peak RSS     {int(rss) / 1024:.0f} MiB   (target < 500)")
print(f"  index size   {int(size) / 1024:.1f} MiB")
if peer != "n/a":
    print(f"  peer: python ast.parse alone {float(peer):.2f} s; ken's cold index takes {ratio} its time (target <= 2.5x)")
PY
  rm -rf "$idx"
}

case "$which" in
  django) bench django "$(fetch_django)" py django/db/models/query.py ;;
  tokio) bench tokio "$(fetch_tokio)" rs src/runtime/mod.rs ;;
  all)
    bench django "$(fetch_django)" py django/db/models/query.py
    bench tokio "$(fetch_tokio)" rs src/runtime/mod.rs
    ;;
  *) echo "usage: bench/index.sh [django|tokio|all]" >&2; exit 2 ;;
esac
