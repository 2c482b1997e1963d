#!/usr/bin/env bash
# semble 0.7.0 from PyPI (https://pypi.org/project/semble/) in its own venv,
# with Kenning's static table written as its model (semble_model.py): semble's
# own model, potion-code-16M-v2, is only on Hugging Face. Idempotent.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
peers="$here/../.cache/peers"
venv="$peers/semble-venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import semble, zstandard' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet semble==0.7.0 zstandard==0.23.0
fi
"$venv/bin/python" "$here/semble_model.py" "$peers/semble-model"
