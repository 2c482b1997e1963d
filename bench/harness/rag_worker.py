"""The naive RAG baseline the RepoGPT blog criticises: fixed 1000-character
chunks with no context, all-MiniLM-L6-v2 through sentence-transformers,
cosine top-k. Runs in its own venv (sentence-transformers and torch); speaks
one JSON object per line on stdin/stdout.

  {"op": "index", "root": DIR, "exts": [".py"]}  -> {"chunks": N, "seconds": S, "rss_mib": M}
      (no exts: every text file of the tree, tests and dotfiles included, for the docs set)
  {"op": "search", "query": Q, "k": 10}          -> {"hits": [{path, start_line, end_line, score}]}
"""
import json
import os
import resource
import sys
import time

MODEL = sys.argv[1]
CHUNK = 1000
SKIP = {"tests", "test", "__pycache__", "node_modules", "benches", "examples"}


def main():
    import numpy as np
    from sentence_transformers import SentenceTransformer
    model = SentenceTransformer(MODEL, device="cpu")
    model.max_seq_length = 256
    chunks, vecs = [], None
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if req["op"] == "index":
                start = time.perf_counter()
                chunks = []
                exts = tuple(req["exts"])
                for d, dirs, files in os.walk(req["root"]):
                    dirs[:] = sorted(x for x in dirs if x != ".git" and not (exts and (x in SKIP or x.startswith("."))))
                    for f in sorted(files):
                        if (exts and not f.endswith(exts)) or f == ".complete":
                            continue
                        path = os.path.join(d, f)
                        text = open(path, encoding="utf-8", errors="replace").read()
                        if "\0" in text:  # binary (images in docs/_static)
                            continue
                        rel = os.path.relpath(path, req["root"])
                        for at in range(0, len(text), CHUNK):
                            piece = text[at:at + CHUNK]
                            first = text.count("\n", 0, at) + 1
                            chunks.append((rel, first, first + piece.count("\n"), piece))
                vecs = model.encode([c[3] for c in chunks], batch_size=32, normalize_embeddings=True)
                reply = {"chunks": len(chunks), "seconds": time.perf_counter() - start,
                         "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
            else:
                q = model.encode([req["query"]], normalize_embeddings=True)[0]
                scores = vecs @ q
                order = np.argsort(-scores)[:req["k"]]
                reply = {"hits": [{"path": chunks[i][0], "start_line": chunks[i][1], "end_line": chunks[i][2],
                                   "score": float(scores[i])} for i in order]}
        except Exception as e:  # reported per request; the harness records a failure
            reply = {"error": f"{type(e).__name__}: {e}"}
        print(json.dumps(reply), flush=True)


main()
