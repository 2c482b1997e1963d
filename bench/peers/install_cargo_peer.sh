#!/usr/bin/env bash
# Installs one pinned peer from crates.io into bench/.cache/peers (idempotent).
#   install_cargo_peer.sh CRATE VERSION BINARY [cargo install flags...]
# The build uses its own target directory so it never disturbs Kenning's.
set -euo pipefail
crate="$1" version="$2" binary="$3"; shift 3
here="$(cd "$(dirname "$0")/.." && pwd)"
root="$here/.cache/peers"
stamp="$root/.installed-$crate-$version"
if [ -x "$root/bin/$binary" ] && [ -f "$stamp" ]; then
  echo "$root/bin/$binary"; exit 0
fi
mkdir -p "$root"
log="$root/install-$crate-$version.log"
echo "installing $crate $version with cargo (log: $log); this can take 10-20 minutes on 2 cores" >&2
if ! CARGO_TARGET_DIR="$root/target" cargo install "$crate" --version "=$version" --locked \
      --root "$root" "$@" >"$log" 2>&1; then
  echo "cannot install $crate $version: cargo install failed; the last lines of $log:" >&2
  tail -n 15 "$log" >&2
  exit 1
fi
touch "$stamp"
echo "$root/bin/$binary"
