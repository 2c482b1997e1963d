#!/usr/bin/env bash
# Embedding throughput on real chunks of Django 5.1.4, the same texts for
# every runtime, in one run: ken's default (all-MiniLM-L6-v2 int8, ONNX
# Runtime), ken's candle f32 runtime, and sentence-transformers (PyTorch
# f32, CPU) as the peer. Also the agreement of int8 with f32 vectors.
#   bench/embed.sh [TEXTS]   (default 2000 texts; candle gets a quarter)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cache="$here/bench/.cache"
source "$here/bench/lib.sh"
n="${1:-2000}"
out="$here/bench/results"
mkdir -p "$out" "$cache"

venv="$cache/embed-venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import sentence_transformers" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet sentence-transformers==3.3.1 numpy
fi

(cd "$here" && cargo build --release --quiet -p ken && cargo build --release --quiet -p ken-embed --example throughput && cargo build --release --quiet -p ken-search --example dump_texts)
django="$(fetch_django)"
idx="$cache/embed-django-index"
"$here/target/release/ken" --index-dir "$idx" index "$django" --no-embed -q >/dev/null
texts="$cache/embed-texts.jsonl"
# Every fifth unit: symbols and chunks from all over the codebase, not one file.
"$here/target/release/examples/dump_texts" "$idx" > "$cache/embed-all-texts.jsonl"
awk -v n="$n" 'NR % 5 == 0 && c++ < n' "$cache/embed-all-texts.jsonl" > "$texts"

# The models: ken fetches them itself (PyPI); the peer loads the same f32 files.
"$here/target/release/examples/throughput" minilm-int8 "$texts" 32 >/dev/null
"$here/target/release/examples/throughput" minilm "$texts" 32 >/dev/null
f32_dir=$(ls -d "${KEN_CACHE_DIR:-$HOME/.cache/ken}"/models/minilm)

echo "== $n real Django texts; 2 cores"
int8=$("$here/target/release/examples/throughput" minilm-int8 "$texts" "$n" "$cache/vectors-int8.json")
peer=$("$venv/bin/python" "$here/bench/embed_peer.py" "$f32_dir" "$texts" "$n" "$cache/vectors-st.npy" 2>/dev/null)
candle=$("$here/target/release/examples/throughput" minilm "$texts" "$((n / 4))" "$cache/vectors-f32.json")
echo "ken int8 (ONNX Runtime):       $int8"
echo "ken f32 (candle):              $candle"
echo "sentence-transformers f32:     $peer"
"$venv/bin/python" - "$int8" "$candle" "$peer" "$cache" "$out/embed.json" <<'PY'
import json, sys
import numpy as np
int8, candle, peer = (json.loads(a) for a in sys.argv[1:4])
cache, out = sys.argv[4], sys.argv[5]
st = np.load(f"{cache}/vectors-st.npy")
i8 = np.array(json.load(open(f"{cache}/vectors-int8.json")))
f32 = np.array(json.load(open(f"{cache}/vectors-f32.json")))
cos_i8 = (i8 * st).sum(1)
cos_f32 = (f32 * st[: len(f32)]).sum(1)
result = {
    "texts": int8["texts"], "tokens": int8["tokens"],
    "ken_int8_tokens_per_second": int8["tokens_per_second"],
    "ken_f32_candle_tokens_per_second": candle["tokens_per_second"],
    "sentence_transformers_tokens_per_second": peer["tokens_per_second"],
    "ratio_int8_vs_peer": int8["tokens_per_second"] / peer["tokens_per_second"],
    "ratio_candle_vs_peer": candle["tokens_per_second"] / peer["tokens_per_second"],
    "int8_cosine_to_f32": {"mean": float(cos_i8.mean()), "min": float(cos_i8.min())},
    "candle_cosine_to_f32": {"mean": float(cos_f32.mean()), "min": float(cos_f32.min())},
}
json.dump(result, open(out, "w"), indent=2)
print(f"int8 / sentence-transformers: {result['ratio_int8_vs_peer']:.2f}x   candle f32 / sentence-transformers: {result['ratio_candle_vs_peer']:.2f}x")
print(f"int8 vs f32 cosine: mean {cos_i8.mean():.4f}, min {cos_i8.min():.4f}; candle vs PyTorch: mean {cos_f32.mean():.6f}")
PY

# The static table (`--model static`): Kenning's embedder, and Model2Vec's
# (semble's) with the same table in its layout, over every text of the index.
"$here/bench/peers/install_semble.sh" >/dev/null
all="$cache/embed-all-texts.jsonl"
static=$("$here/target/release/examples/throughput" static "$all")
m2v=$("$cache/peers/semble-venv/bin/python" "$here/bench/embed_static_peer.py" "$cache/peers/semble-model" "$all")
echo "ken static:                    $static"
echo "model2vec (same table):        $m2v"
python3 - "$static" "$m2v" "$out/embed-static.json" <<'PY'
import json, sys
ken, peer = json.loads(sys.argv[1]), json.loads(sys.argv[2])
ken["texts_per_second"] = ken["texts"] / ken["seconds"]
result = {"ken_static": ken, "model2vec": peer, "ratio_ken_vs_model2vec": ken["texts_per_second"] / peer["texts_per_second"]}
json.dump(result, open(sys.argv[3], "w"), indent=2)
print(f"ken static / model2vec: {result['ratio_ken_vs_model2vec']:.2f}x texts per second")
PY
