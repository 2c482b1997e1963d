#!/usr/bin/env bash
# ONNX Runtime for peers built on `ort` (ck, codanna). ort's build script
# downloads its runtime from cdn.pyke.io, which is unreachable here; the
# onnxruntime wheel on PyPI ships the same library. Prints the directory
# holding libonnxruntime.so (idempotent).
set -euo pipefail
version="${1:-1.23.2}"
here="$(cd "$(dirname "$0")/.." && pwd)"
dir="$here/.cache/peers/onnxruntime-$version"
if [ ! -f "$dir/.complete" ]; then
  rm -rf "$dir" && mkdir -p "$dir/dl"
  python3 -m pip download --quiet --no-deps --only-binary :all: --disable-pip-version-check \
    --python-version 3.11 --platform manylinux_2_27_x86_64 -d "$dir/dl" "onnxruntime==$version" >&2 \
    || { echo "cannot download onnxruntime==$version from PyPI" >&2; exit 1; }
  python3 - "$dir" <<'PY'
import glob, os, sys, zipfile
d = sys.argv[1]
z = zipfile.ZipFile(glob.glob(os.path.join(d, "dl", "*.whl"))[0])
for n in z.namelist():
    if "/capi/libonnxruntime" in n:
        open(os.path.join(d, os.path.basename(n)), "wb").write(z.read(n))
PY
  lib=$(ls "$dir"/libonnxruntime.so.* | grep -v providers | head -n 1)
  ln -sf "$(basename "$lib")" "$dir/libonnxruntime.so"
  # Binaries linked against it ask for its soname.
  ln -sf "$(basename "$lib")" "$dir/libonnxruntime.so.1"
  rm -rf "$dir/dl"
  touch "$dir/.complete"
fi
echo "$dir"
