"""An OpenAI-compatible /v1/embeddings endpoint serving all-MiniLM-L6-v2
through sentence-transformers, so peers that embed through an API
(codexlens-search) use the same local model as Kenning, offline.

It also answers /v1/rerank (Jina/Cohere shape) with MiniLM cosine scores:
codexlens-search always reranks, its default cross-encoder comes from a
model hub, and no cross-encoder ships on PyPI; so its rerank stage here is
a bi-encoder one, which the harness's report says.
Usage: embed_server.py MODEL_DIR PORT  (runs in the sentence-transformers venv)"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from sentence_transformers import SentenceTransformer

model = SentenceTransformer(sys.argv[1], device="cpu")
model.max_seq_length = 256


class _Reply(Exception):
    def __init__(self, reply):
        self.reply = reply


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            if self.path.rstrip("/").endswith("/rerank"):
                q = model.encode([body["query"]], normalize_embeddings=True)[0]
                docs = model.encode(body["documents"], batch_size=32, normalize_embeddings=True)
                scores = (docs @ q).tolist()
                reply = {"results": [{"index": i, "relevance_score": s} for i, s in enumerate(scores)]}
                raise _Reply(reply)
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            vecs = model.encode(texts, batch_size=32, normalize_embeddings=True)
            reply = {"object": "list", "model": body.get("model", "all-MiniLM-L6-v2"),
                     "data": [{"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vecs)],
                     "usage": {"prompt_tokens": 0, "total_tokens": 0}}
            data, status = json.dumps(reply).encode(), 200
        except _Reply as r:
            data, status = json.dumps(r.reply).encode(), 200
        except Exception as e:
            data, status = json.dumps({"error": {"message": str(e)}}).encode(), 400
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Handler).serve_forever()
