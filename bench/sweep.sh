#!/usr/bin/env bash
# Crash sweep: `ken index --no-embed --json` and a few queries (symbols
# --rank, lexical search, graph callers, outline) over real packages of every
# language ken reads, pinned in bench/sweep/packages.tsv and fetched at run
# time from PyPI, npm, crates.io and Debian into bench/.cache/sweep (never
# committed). Each command runs under a timeout and is classified as panic,
# abort (killed by a signal), hang (timeout), error or ok; the run prints a
# Markdown table with files, lines, wall time, peak RSS, per-file internal
# errors, parse errors and skip reasons per package, writes
# bench/results/sweep.json, and exits non-zero on any panic, abort or hang.
#
# Usage: bench/sweep.sh [--ci] [NAME...]
#   --ci     the small subset marked `ci` in packages.tsv (a few minutes)
#   NAME...  only these packages (every registry's package of that name)
# Environment: KEN (binary; default target/release/ken, built if missing),
#   SWEEP_TIMEOUT (seconds per index run, 600), SWEEP_QUERY_TIMEOUT (120).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cache="$here/.cache/sweep"
mkdir -p "$cache"

ci=()
names=()
for arg in "$@"; do
  case "$arg" in
    --ci) ci=(--ci) ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "usage: bench/sweep.sh [--ci] [NAME...]" >&2; exit 2 ;;
    *) names+=("$arg") ;;
  esac
done

if [ -n "${KEN:-}" ]; then
  ken="$KEN"
  [ -x "$ken" ] || { echo "KEN=$ken is not an executable" >&2; exit 2; }
else
  ken="$root/target/release/ken"
  [ -x "$ken" ] || (cd "$root" && cargo build --release -p ken --quiet)
fi
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"

exec python3 "$here/sweep.py" --ken "$ken" --list "$here/sweep/packages.tsv" --cache "$cache" \
  ${ci[@]+"${ci[@]}"} ${names[@]+"${names[@]}"}
