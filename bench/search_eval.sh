#!/usr/bin/env bash
# Retrieval quality: docstring-to-code (docstrings stripped from the corpus)
# and identifier queries, ken against BM25 alone, dense alone and a naive
# fixed-chunk RAG baseline, on requests, flask, click, rich and httpx.
#   bench/search_eval.sh [PACKAGE...]
#   EVAL_MODEL=minilm bench/search_eval.sh requests click   (f32, for the int8 delta)
# Writes bench/results/search_eval-<model>.json.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cache="$here/bench/.cache"
# The corpora and their pins come from the graph benchmark.
"$here/bench/graph_eval.sh" --oracle-only >/dev/null 2>&1 || true
venv="$cache/embed-venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import sentence_transformers" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet sentence-transformers==3.3.1 numpy
fi
(cd "$here" && cargo build --release --quiet -p ken && cargo build --release --quiet -p ken-search --example batch_search)
model="${EVAL_MODEL:-minilm-int8}"
mkdir -p "$here/bench/results"
EVAL_MODEL="$model" "$venv/bin/python" "$here/bench/search_eval.py" "$here/target/release/ken" "$here/target/release/examples" \
  "$cache/graph-corpora" "$cache/search-eval" "$here/bench/results/search_eval-$model.json" "$@"
