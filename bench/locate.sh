#!/usr/bin/env bash
# Bug localization (issue 22): bm25, ken search and ken locate on the bug
# reports of bench/locate/reports.jsonl, side by side. See bench/locate/README.md.
#
#   bench/locate.sh                          every system on every report
#   bench/locate.sh --systems bm25,ken-search
#   bench/locate.sh --limit 10               a quick check
#   KEN=path/to/ken bench/locate.sh          another binary
#
# Installs its venv once (bench/.cache/locate-venv: tree-sitter grammars for
# the set's builder, bm25s), downloads each release once into
# bench/.cache/locate/src and indexes it once into bench/.cache/locate/idx.
# $KEN defaults to a copy of target/release/ken taken at the first run
# (/tmp/ken-locate-bench), so that a rebuild under way does not change the
# binary halfway. Writes bench/results/locate.json and prints the tables.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cache="$here/.cache"
mkdir -p "$cache"

venv="$cache/locate-venv"
pins="tree-sitter==0.23.2 tree-sitter-javascript==0.23.1 tree-sitter-typescript==0.23.2 tree-sitter-rust==0.23.2 bm25s==0.2.6 numpy==2.1.3"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.pins" 2>/dev/null)" != "$pins" ]; then
  echo "making $venv" >&2
  rm -rf "$venv" && python3 -m venv "$venv"
  # shellcheck disable=SC2086
  "$venv/bin/pip" install --quiet --disable-pip-version-check $pins \
    || { echo "pip install failed; PyPI must be reachable" >&2; exit 1; }
  echo "$pins" > "$venv/.pins"
fi

if [ -z "${KEN:-}" ]; then
  KEN=/tmp/ken-locate-bench
  if [ ! -x "$KEN" ]; then
    [ -x "$root/target/release/ken" ] || { echo "no target/release/ken: cargo build --release -p ken, or set KEN" >&2; exit 1; }
    cp "$root/target/release/ken" "$KEN"
  fi
fi
[ -x "$KEN" ] || { echo "KEN=$KEN is not an executable" >&2; exit 1; }

cd "$here"
exec "$venv/bin/python" -m harness.locate --ken "$KEN" "$@"
