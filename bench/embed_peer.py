"""sentence-transformers (PyTorch, f32, CPU) on the same texts ken embeds.

Usage: embed_peer.py MODEL_DIR TEXTS.jsonl LIMIT [OUT_VECTORS.npy]
Prints one JSON line: texts, tokens (after truncation), seconds, tokens/s.
"""
import json
import sys
import time

import numpy as np
import torch
from sentence_transformers import SentenceTransformer

model_dir, texts_path, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
out = sys.argv[4] if len(sys.argv) > 4 else None
torch.set_num_threads(torch.get_num_threads())  # all cores, PyTorch's default
texts = [json.loads(l) for l, _ in zip(open(texts_path), range(limit))]
model = SentenceTransformer(model_dir, device="cpu")
model.max_seq_length = 256
tokens = sum(len(ids) for ids in model.tokenizer(texts, truncation=True, max_length=256)["input_ids"])
model.encode(texts[:32], batch_size=32)  # warm up
start = time.perf_counter()
vectors = model.encode(texts, batch_size=32, normalize_embeddings=True)
seconds = time.perf_counter() - start
if out:
    np.save(out, vectors)
print(json.dumps({"model": "sentence-transformers f32", "texts": len(texts), "tokens": tokens,
                  "seconds": seconds, "tokens_per_second": tokens / seconds, "threads": torch.get_num_threads()}))
