#!/usr/bin/env bash
# The main job: build ken, index a repository and look up symbols in it.
#   scripts/demo.sh [REPO] [NAME]
# With no REPO it indexes a pinned real package (requests 2.32.3 from PyPI).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
command -v cc >/dev/null || { apt-get update -qq && apt-get install -y -qq build-essential; }
(cd "$here" && cargo build --release -p ken --quiet)
ken="$here/target/release/ken"

repo="${1:-}"
name="${2:-Session.send}"
if [ -z "$repo" ]; then
  repo="$here/target/demo/requests-2.32.3"
  if [ ! -f "$repo/.complete" ]; then
    mkdir -p "$repo"
    python3 -m pip download --quiet --no-deps --only-binary :all: -d "$here/target/demo" requests==2.32.3
    python3 -m zipfile -e "$here/target/demo/requests-2.32.3-py3-none-any.whl" "$repo"
    touch "$repo/.complete"
  fi
fi

"$ken" index "$repo"
echo
echo "\$ ken search \"how are redirects handled\" -k 3"
"$ken" -C "$repo" search "how are redirects handled" -k 3
echo
echo "\$ ken symbols $name"
"$ken" -C "$repo" symbols "$name" -k 5
echo
first=$("$ken" -C "$repo" symbols "$name" -k 1 --json | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r[0]["path"] if r else "")')
if [ -n "$first" ]; then
  echo "\$ ken outline $first"
  "$ken" -C "$repo" outline "$first" | head -n 25
fi

qualified=$("$ken" -C "$repo" symbols "$name" -k 1 --json | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r[0]["qualified_name"] if r else "")')
if [ -n "$qualified" ]; then
  echo
  echo "\$ ken graph callers $qualified --depth 2"
  "$ken" -C "$repo" graph callers "$qualified" --depth 2 | head -n 15
fi
echo
echo "\$ ken symbols --rank -k 5"
"$ken" -C "$repo" symbols --rank -k 5
echo
echo "\$ ken search --pipeline --explain \"send a request through an adapter\" -k 1"
"$ken" -C "$repo" search --pipeline --explain "send a request through an adapter" -k 1
