#!/usr/bin/env bash
# Per-language mining benchmark: for every programming language ken mines,
# a pinned real package (PyPI, npm, crates.io or Debian, fetched at run
# time into bench/.cache/languages, never committed), only
# that language's files copied into a corpus of its own, indexed cold with
# `ken index --no-embed --json` (a fresh index directory per run) and tagged
# with Universal Ctags, the peer, on the same files in the same run. Prints
# files, lines, ken's time and lines/s, the definitions each finds (kinds
# per language in bench/README.md) and the ratios; writes
# bench/results/languages.json. A package that cannot be fetched is reported
# with the reason and the run goes on.
#
# Usage: bench/languages.sh [LANGUAGE...]   (default: all 28)
# Environment: KEN (binary; default target/release/ken, rebuilt when older
#   than the sources), BENCH_REPEAT (timed runs per tool, median; default 3).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cache="$here/.cache/languages"
mkdir -p "$cache"

case "${1:-}" in
  -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac

# Universal Ctags, the peer (and npm for the npm packages), installed once.
need=()
command -v ctags >/dev/null && ctags --version 2>/dev/null | grep -q "Universal Ctags" || need+=(universal-ctags)
command -v npm >/dev/null || need+=(npm)
command -v curl >/dev/null || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

if [ -n "${KEN:-}" ]; then
  ken="$KEN"
  [ -x "$ken" ] || { echo "KEN=$ken is not an executable" >&2; exit 2; }
else
  ken="$root/target/release/ken"
  # Rebuild when any source, query or manifest is newer than the binary. If
  # the build fails (the tree is mid-edit) an existing binary is used, with
  # a warning.
  if [ ! -x "$ken" ] || [ -n "$(find "$root/crates" "$root/Cargo.toml" "$root/Cargo.lock" \
        \( -name '*.rs' -o -name '*.scm' -o -name 'Cargo.toml' -o -name 'Cargo.lock' \) \
        -newer "$ken" -print -quit 2>/dev/null)" ]; then
    echo "building ken (release)…"
    if ! (cd "$root" && cargo build --release -p ken --quiet); then
      [ -x "$ken" ] || { echo "cargo build --release -p ken failed" >&2; exit 1; }
      echo "warning: the release build failed; measuring the existing $ken" >&2
    fi
  fi
fi

exec python3 "$here/languages.py" --ken "$ken" --cache "$cache" --out "$here/results/languages.json" \
  --repeat "${BENCH_REPEAT:-3}" "$@"
