"""Writes Kenning's bundled static table (crates/ken-embed/models/) as a
Model2Vec model directory, so semble runs here: its own model
(potion-code-16M-v2) comes from Hugging Face, which cannot be reached. With
the same token table under both, the comparison is of everything else:
chunking, BM25, fusion and ranking.

  python semble_model.py OUT_DIR
"""
import json
import sys
from pathlib import Path

import numpy as np
import zstandard
from safetensors.numpy import load, save_file

MODELS = Path(__file__).resolve().parents[2] / "crates" / "ken-embed" / "models"


def main(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    unzip = zstandard.ZstdDecompressor()
    tensors = load(unzip.decompressobj().decompress((MODELS / "code-static.safetensors.zst").read_bytes()))
    rows, scales = tensors["embeddings"], tensors["scales"]
    table = rows.astype(np.float32) * scales.astype(np.float32)[:, None]
    save_file({"embeddings": np.ascontiguousarray(table)}, str(out / "model.safetensors"))
    (out / "tokenizer.json").write_bytes(unzip.decompressobj().decompress((MODELS / "tokenizer.json.zst").read_bytes()))
    config = {"model_type": "model2vec", "architectures": ["StaticModel"], "hidden_dim": int(table.shape[1]),
              "normalize": True, "embedding_dtype": "float32"}
    (out / "config.json").write_text(json.dumps(config, indent=2))
    print(f"{out}: {table.shape[0]} tokens × {table.shape[1]} dimensions")


if __name__ == "__main__":
    main(sys.argv[1])
