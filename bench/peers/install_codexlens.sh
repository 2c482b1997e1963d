#!/usr/bin/env bash
# codexlens-search (hybrid vector + FTS + AST graph, Python) in its own venv,
# bench/.cache/peers/codexlens-venv (idempotent). Prints the venv's python.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="$here/.cache/peers/codexlens-venv"
pins="codexlens-search==0.8.1 onnxruntime==1.22.1"
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.pins" 2>/dev/null)" = "$pins" ]; then
  echo "$venv/bin/python"; exit 0
fi
rm -rf "$venv"
python3 -m venv "$venv"
# shellcheck disable=SC2086
"$venv/bin/pip" install --quiet --disable-pip-version-check $pins >&2 \
  || { echo "cannot install $pins from PyPI; check that PyPI is reachable" >&2; exit 1; }
echo "$pins" > "$venv/.pins"
echo "$venv/bin/python"
