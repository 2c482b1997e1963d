#!/usr/bin/env bash
# Rebuilds the static model ken ships (crates/ken-embed/models/): mines
# (docstring, code) pairs from the pinned packages, then trains the table
# distilled from MiniLM int8 on them. About 40 minutes on 2 cores, most of
# it fetching and mining; the pairs are kept in bench/.cache/static.
#
#   bench/static/build.sh [--steps N]      (KEN: the ken binary, default target/release/ken)
#
# Training reads its step count from the tuning split only (train.py --eval
# prints the held-out third beside it; it never chooses anything).
set -euo pipefail
cd "$(dirname "$0")/../.."
KEN="${KEN:-$PWD/target/release/ken}"
cache=bench/.cache/static
venv=bench/.cache/train-venv
if ! "$venv/bin/python" -c "import jax, numpy, zstandard, tokenizers" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "jax==0.10.2" "numpy==2.4.6" "zstandard==0.25.0" "tokenizers==0.23.3"
fi
mkdir -p "$cache"
# The starting table: distilled from MiniLM int8 into ken's model cache.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/repo" && echo 'def hello(): return 1' > "$scratch/repo/a.py"
"$KEN" --index-dir "$scratch/index" index "$scratch/repo" --model static-distilled -q >/dev/null
models="${KEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ken}/models"
init=$(ls -d "$models"/static-minilm-int8-onnx-* | head -1)
"$venv/bin/python" bench/static/mine.py --ken "$KEN" --out "$cache/pairs.jsonl"
# The harness's corpora, indexed without embeddings, for train.py --eval.
for c in flask requests httpx tokio rxjs click rich; do
  root=$(cd bench && "../$venv/bin/python" -c "from harness import corpora; print(corpora.fetch('$c'))")
  [ -f "$cache/eval/$(basename "$root")/index.sqlite" ] || "$KEN" --index-dir "$cache/eval/$(basename "$root")" index "$root" --no-embed -q >/dev/null
done
"$venv/bin/python" bench/static/train.py --pairs "$cache/pairs.jsonl" --init "$init" --steps 600 --eval \
  --eval-every 100000 --out crates/ken-embed/models "$@"
