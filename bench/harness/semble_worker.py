"""semble (MinishLab's hybrid code search: Model2Vec static embeddings, BM25,
RRF and code-aware reranking) behind the harness's worker protocol. Runs in
its own venv (bench/peers/install_semble.sh), with Kenning's static table in
Model2Vec's layout as its model: its own comes from Hugging Face.

  {"op": "index", "root": DIR}          -> {"chunks": N, "seconds": S, "rss_mib": M}
  {"op": "search", "query": Q, "k": 10} -> {"hits": [{path, start_line, end_line, score}]}
"""
import json
import resource
import sys
import time

MODEL = sys.argv[1]


def main():
    from semble import SembleIndex
    index = None
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if req["op"] == "index":
                start = time.perf_counter()
                index = SembleIndex.from_path(req["root"], model_path=MODEL)
                reply = {"chunks": len(index.chunks), "seconds": time.perf_counter() - start,
                         "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
            elif req["op"] == "search":
                hits = index.search(req["query"], top_k=req["k"])
                reply = {"hits": [{"path": h.chunk.file_path, "start_line": h.chunk.start_line,
                                   "end_line": h.chunk.end_line, "score": h.score} for h in hits]}
            else:
                reply = {"error": f"unknown op {req['op']!r}"}
        except Exception as e:  # noqa: BLE001 - the harness records it for this query
            reply = {"error": f"{type(e).__name__}: {e}"}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
