"""The peer of ken-llm's llm_speed example: llama.cpp (llama-cpp-python),
the same GGUF, prompt and token limit, 2 threads, streamed; one JSON line
per round: prompt_tokens, output_tokens, first_token_s, total_s, decode_tok_s."""
import json, sys, time
from llama_cpp import Llama

path, prompt_file = sys.argv[1], sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
max_tokens = int(sys.argv[4]) if len(sys.argv) > 4 else 128
prompt = open(prompt_file).read()
llm = Llama(model_path=path, n_ctx=4096, n_threads=2, verbose=False)
for r in range(rounds):
    messages = [{"role": "system", "content": f"Session {r} at {time.time()}."}, {"role": "user", "content": prompt}]
    t0 = time.perf_counter(); first = None; n = 0; usage = None
    for chunk in llm.create_chat_completion(messages=messages, max_tokens=max_tokens, temperature=0, stream=True):
        if chunk["choices"][0]["delta"].get("content"):
            first = first or time.perf_counter() - t0
            n += 1
    total = time.perf_counter() - t0
    print(json.dumps({"prompt_tokens": len(llm.tokenize(prompt.encode())), "output_tokens": n, "first_token_s": first,
                      "total_s": total, "decode_tok_s": (n - 1) / max(total - first, 1e-9)}), flush=True)
