#!/usr/bin/env bash
# Dependency-graph quality benchmark: `ken graph export` against oracles
# nobody on the project wrote.
#   callers     jedi 0.19.2 get_references on a seeded sample of functions and
#               methods, call sites picked out with Python's ast
#   callees     jedi goto at every call in the sampled functions' bodies
#   subclasses  Python's own __subclasses__() after importing every module
# on requests, flask, rich, httpx and click (pinned, from PyPI), plus edge
# coverage on rxjs 7.8.1 (TypeScript, npm) and tokio 1.41.1 (Rust, crates.io).
# Prints a precision/recall table; writes bench/results/graph_eval.json.
# Oracle answers are cached in bench/.cache/graph-oracle-<pkg>.json.
#
# Usage: bench/graph_eval.sh [--quick] [--oracle-only] [--no-index] [PACKAGE...]
#   PACKAGE      requests flask rich httpx click rxjs tokio (default: all)
#   --quick      15 sampled functions per package instead of 80
#   --oracle-only  compute and cache the oracles only; ken is not run
#   --no-index   compare the exports already in bench/.cache/graph-exports/
# The ken binary is $KEN, else target/release/ken (built only if missing).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cache="$here/.cache"
corpora="$cache/graph-corpora"
venv="$cache/graph-venv"
mkdir -p "$cache" "$corpora"

# Everything the venv holds, dependencies included, so a rerun months later
# asks jedi the same questions about the same code.
pins=(
  jedi==0.19.2 parso==0.8.7
  requests==2.32.3 certifi==2026.10.18 charset-normalizer==3.5.2 idna==3.20 urllib3==2.8.0
  flask==3.0.3 blinker==1.9.0 itsdangerous==2.2.0 Jinja2==3.1.6 MarkupSafe==3.0.4 Werkzeug==3.1.9
  click==8.1.7
  rich==13.9.4 markdown-it-py==4.3.0 mdurl==0.1.2 Pygments==2.21.0
  httpx==0.27.2 anyio==4.16.0 h11==0.16.0 httpcore==1.0.9 sniffio==1.3.1 typing_extensions==4.16.0
)
RXJS=7.8.1
TOKIO=1.41.1

quick_or_flags=()
packages=()
oracle_only=0
no_index=0
for arg in "$@"; do
  case "$arg" in
    --quick) quick_or_flags+=("$arg") ;;
    --oracle-only) oracle_only=1; quick_or_flags+=("$arg") ;;
    --no-index) no_index=1; quick_or_flags+=("$arg") ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "unknown option $arg; see bench/graph_eval.sh --help" >&2; exit 2 ;;
    requests|flask|rich|httpx|click|rxjs|tokio) packages+=("$arg") ;;
    *) echo "unknown package $arg; use requests flask rich httpx click rxjs tokio" >&2; exit 2 ;;
  esac
done
[ ${#packages[@]} -gt 0 ] || packages=(requests flask rich httpx click rxjs tokio)
wants() { local p; for p in "${packages[@]}"; do [ "$p" = "$1" ] && return 0; done; return 1; }

if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.pins" 2>/dev/null)" != "${pins[*]}" ]; then
  echo "making $venv" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${pins[@]}" \
    || { echo "pip install failed; PyPI must be reachable" >&2; exit 1; }
  echo "${pins[*]}" > "$venv/.pins"
fi

fetch_rxjs() {
  local dir="$corpora/rxjs"
  [ -f "$dir/.complete" ] && return 0
  rm -rf "$dir" "$cache/rxjs-pack" && mkdir -p "$dir" "$cache/rxjs-pack"
  (cd "$cache/rxjs-pack" && npm pack --silent "rxjs@$RXJS" >/dev/null) \
    || { echo "npm pack rxjs@$RXJS failed; the npm registry must be reachable" >&2; exit 1; }
  tar -xzf "$cache/rxjs-pack/rxjs-$RXJS.tgz" -C "$cache/rxjs-pack"
  # Only the TypeScript sources: the package also ships compiled dist/.
  cp -r "$cache/rxjs-pack/package/src" "$dir/src"
  rm -rf "$cache/rxjs-pack"
  touch "$dir/.complete"
}

fetch_tokio() {
  local dir="$corpora/tokio" crate="$cache/tokio-$TOKIO.crate"
  [ -f "$dir/.complete" ] && return 0
  rm -rf "$dir" && mkdir -p "$dir"
  if [ ! -f "$crate" ]; then  # bench/index.sh downloads the same file
    curl -sSfL -o "$crate.tmp" "https://static.crates.io/crates/tokio/tokio-$TOKIO.crate" \
      || { echo "cannot download tokio $TOKIO from crates.io; check the network" >&2; exit 1; }
    mv "$crate.tmp" "$crate"
  fi
  tar -xzf "$crate" -C "$dir" --strip-components=1
  touch "$dir/.complete"
}

if wants rxjs; then fetch_rxjs; fi
if wants tokio; then fetch_tokio; fi

ken="${KEN:-$root/target/release/ken}"
if [ "$oracle_only" = 0 ] && [ "$no_index" = 0 ] && [ ! -x "$ken" ]; then
  if [ -n "${KEN:-}" ]; then
    echo "KEN=$KEN is not an executable" >&2; exit 1
  fi
  (cd "$root" && cargo build --release -p ken --quiet)
fi

exec "$venv/bin/python" "$here/graph_eval.py" --ken "$ken" "${quick_or_flags[@]}" "${packages[@]}"
