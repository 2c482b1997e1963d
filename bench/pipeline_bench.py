"""Stage timings of the hybrid pipeline against a running `ken serve --lsp`.

Prints p50 / p95 per stage for static-graph and live-LSP expansion next to
seed 003's budgets, and plain hybrid retrieval as the in-run peer.
"""

import argparse
import json
import statistics
import time
import urllib.request

from load import rss_mib

QUERIES = {
    "flask": [
        "render a template with context",
        "url routing and endpoints",
        "register a blueprint on the app",
        "handle an exception and return an error response",
        "session cookie signing",
        "load configuration from environment variables",
        "application context teardown",
        "send a static file",
        "json response serialization",
        "command line interface run server",
        "before request hooks",
        "test client for requests",
    ],
    "requests": [
        "send a prepared request through an adapter",
        "retry failed connections",
        "parse cookies from a response",
        "http basic authentication header",
        "follow redirects",
        "encode url query parameters",
        "stream response content in chunks",
        "proxy settings from the environment",
        "verify ssl certificates",
        "build a multipart file upload body",
        "session keeps headers between requests",
        "raise an error for a bad status code",
    ],
}

BUDGETS_MS = {
    "vector search (seeds)": 100,
    "LSP expansion": 1000,
    "clustering": 200,
    "reranking": 100,
    "end to end, with LSP": 2000,
    "end to end, static, warm": 150,
}


def post(url, path, body):
    request = urllib.request.Request(url + path, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=60) as response:
        payload = json.load(response)
    return (time.perf_counter() - start) * 1000, payload


def get(url, path):
    with urllib.request.urlopen(url + path, timeout=60) as response:
        return json.load(response)


def pct(values, p):
    values = sorted(values)
    if not values:
        return float("nan")
    k = max(0, min(len(values) - 1, round(p / 100 * (len(values) - 1))))
    return values[k]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--pid", type=int)
    ap.add_argument("--out")
    args = ap.parse_args()
    queries = QUERIES[args.corpus]

    # Wait until the language server has loaded the project.
    deadline = time.time() + 120
    while time.time() < deadline:
        servers = get(args.url, "/api/v1/status")["language_servers"]
        if any(s.get("state") == "ready" for s in servers):
            break
        time.sleep(0.5)
    servers = get(args.url, "/api/v1/status")["language_servers"]
    print(f"language servers: {[(s.get('name'), s.get('state')) for s in servers]}")

    # Warm-up: model, shard, page cache.
    for q in queries:
        post(args.url, "/api/v1/hybrid-search", {"query": q, "config_overrides": {"expansion": "static"}})
        post(args.url, "/api/v1/search", {"query": q, "k": 20})

    static = {"client": [], "seeds": [], "expansion": [], "clustering": [], "ranking": [], "total": []}
    peer = []
    for _ in range(args.rounds):
        for q in queries:
            ms, r = post(args.url, "/api/v1/hybrid-search", {"query": q, "top_k": 10, "config_overrides": {"expansion": "static"}})
            t = r["timings"]
            static["client"].append(ms)
            static["seeds"].append(t["seeds_ms"])
            static["expansion"].append(t["expansion_ms"])
            static["clustering"].append(t["clustering_ms"])
            static["ranking"].append(t["ranking_ms"])
            static["total"].append(t["total_ms"])
            ms, _ = post(args.url, "/api/v1/search", {"query": q, "k": 20})
            peer.append(ms)

    passes = {}
    for name in ["first pass (LSP cache cold)", "second pass (LSP cache warm)"]:
        rows = {"client": [], "expansion": [], "lsp": [], "fallback": 0, "nodes": 0, "requests": 0}
        for q in queries:
            ms, r = post(args.url, "/api/v1/hybrid-search", {"query": q, "top_k": 10, "config_overrides": {"expansion": "lsp"}})
            rows["client"].append(ms)
            rows["expansion"].append(r["timings"]["expansion_ms"])
            lsp = r["expansion"].get("lsp") or {}
            rows["lsp"].append(lsp.get("lsp_ms", float("nan")))
            rows["fallback"] += lsp.get("fallback_nodes", 0)
            rows["nodes"] += lsp.get("expanded_nodes", 0)
            rows["requests"] += lsp.get("requests", 0)
        passes[name] = rows

    def line(label, values, budget=None):
        p50, p95 = pct(values, 50), pct(values, 95)
        verdict = "" if budget is None else ("  within budget" if p95 < budget else "  OVER budget")
        b = "" if budget is None else f"  (budget {budget} ms)"
        print(f"  {label:<40} p50 {p50:8.1f} ms   p95 {p95:8.1f} ms{b}{verdict}")
        return {"p50": p50, "p95": p95, "budget": budget}

    print(f"\n== {args.corpus}: {len(queries)} queries x {args.rounds} rounds, static graph, warm server")
    report = {"corpus": args.corpus, "static": {}, "lsp": {}}
    s = report["static"]
    s["seeds"] = line("stage 1 seeds (vector + BM25 + names)", static["seeds"], 100)
    s["expansion"] = line("stages 2-3 expansion (static graph)", static["expansion"])
    s["clustering"] = line("stage 4 clustering", static["clustering"], 200)
    s["ranking"] = line("stage 5 reranking", static["ranking"], 100)
    s["total"] = line("pipeline total (server side)", static["total"])
    s["client"] = line("end to end over HTTP", static["client"], 150)
    s["peer"] = line("peer: stage 1 alone over HTTP", peer)
    ratio = statistics.median(static["client"]) / statistics.median(peer)
    print(f"  pipeline / plain hybrid retrieval, median: {ratio:.2f}x")
    s["ratio_vs_plain"] = ratio
    for name, rows in passes.items():
        print(f"\n== {args.corpus}: live LSP expansion, {name}")
        report["lsp"][name] = {
            "lsp": line("LSP expansion", rows["lsp"], 1000),
            "client": line("end to end over HTTP, with LSP", rows["client"], 2000),
            "fallback_nodes": rows["fallback"],
            "expanded_nodes": rows["nodes"],
            "requests": rows["requests"],
        }
        print(f"  symbols expanded live: {rows['nodes'] - rows['fallback']} of {rows['nodes']} ({rows['requests']} LSP requests)")
    if args.pid:
        report["server_rss_mib"] = rss_mib(args.pid)
        print(f"\n  server RSS after the run: {report['server_rss_mib']:.0f} MiB")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report, f, indent=2)


if __name__ == "__main__":
    main()
