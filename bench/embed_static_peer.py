"""The static embedder's peer in bench/embed.sh: Model2Vec (semble's
embedder) with Kenning's bundled table in its layout (peers/semble_model.py),
over the same texts. Prints one JSON line: texts, seconds, texts per second.

  python embed_static_peer.py MODEL_DIR TEXTS.jsonl
"""
import json
import sys
import time

from model2vec import StaticModel


def main(model_dir, texts_path):
    texts = [json.loads(line) for line in open(texts_path)]
    # The same cap as Kenning's static vectors: 256 tokens a text.
    model = StaticModel.from_pretrained(model_dir, max_length=256)
    model.encode(texts[:32])
    start = time.perf_counter()
    model.encode(texts)
    seconds = time.perf_counter() - start
    print(json.dumps({"texts": len(texts), "seconds": seconds, "texts_per_second": len(texts) / seconds}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
