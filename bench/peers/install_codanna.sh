#!/usr/bin/env bash
# codanna (symbol index, call graph, semantic search) from crates.io: https://crates.io/crates/codanna. It links ONNX Runtime through `ort`, whose build script
# would download it from cdn.pyke.io; we point it at the PyPI wheel's copy.
set -euo pipefail
here="$(dirname "$0")"
ort="$("$here/ort_lib.sh" 1.23.2)"
export ORT_LIB_LOCATION="$ort" ORT_LIB_PATH="$ort" ORT_PREFER_DYNAMIC_LINK=1 ORT_SKIP_DOWNLOAD=1
exec "$here/install_cargo_peer.sh" codanna 0.16.0 codanna
