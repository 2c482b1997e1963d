"""Scale bench (issue 23): many real repositories pushed into a team hub
backed by a local 3-node Qdrant cluster (3 shards, 2 replicas).

Each package of bench/sweep/packages.tsv (PyPI, npm, crates.io; fetched by
sweep.py's fetcher) is indexed the way CI would, `ken index --model static`
(static vectors: the transformer would be the bottleneck, as the issue
allows), then `ken push`ed to `ken serve --hub`. Packages are taken in the
list's order until both --repos and --min-points are reached.

Reported: points, push throughput (points per second of push wall time,
the hub's mining and writing included), query p50/p95 over the hub's HTTP
API with 1, 10 and all repositories in scope, memory per node (RSS), and
the same queries on one repository's Edge index through `ken serve`.

--layouts compares one collection per model (shared, a repository filter)
with one collection per repository on the first N packages.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep  # noqa: E402  (the pinned list and its fetcher)

QUERIES = [
    "parse a configuration file",
    "retry a request with exponential backoff",
    "read a file line by line",
    "convert a date to a string",
    "validate user input",
    "open a network connection",
    "cache results in memory",
    "log an error message",
    "compare two versions",
    "serialize an object to json",
]


def http(method, url, token=None, body=None, timeout=600):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("content-type", "application/json")
    if token:
        request.add_header("authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p * (len(values) - 1))))]


class Cluster:
    def __init__(self, script, work, nodes=3, base=16333):
        self.script, self.dir, self.nodes, self.base = script, os.path.join(work, "cluster"), nodes, base
        shutil.rmtree(self.dir, ignore_errors=True)
        subprocess.run([script, "start", self.dir, str(nodes), str(base)], check=True, stdout=subprocess.DEVNULL)

    def grpc_urls(self):
        return ",".join(f"http://127.0.0.1:{self.base + 10 * i + 1}" for i in range(self.nodes))

    def rss(self):
        out = []
        for i in range(self.nodes):
            with open(os.path.join(self.dir, f"n{i}.pid")) as f:
                out.append(rss_kib(int(f.read().strip())))
        return out

    def count(self, collection):
        url = f"http://127.0.0.1:{self.base}/collections/{collection}/points/count"
        return http("POST", url, body={"exact": True})["result"]["count"]

    def collections(self):
        return [c["name"] for c in http("GET", f"http://127.0.0.1:{self.base}/collections")["result"]["collections"]]

    def stop(self):
        subprocess.run([self.script, "stop", self.dir], check=False)


class Server:
    """`ken serve --hub DIR` or `ken serve` on one index; killed by stop()."""

    def __init__(self, args, env):
        self.proc = subprocess.Popen(args, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env, text=True)
        line = self.proc.stderr.readline()
        self.base = next(w for w in line.split() if w.startswith("http://"))

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def index_and_push(ken, env, packages, args, hub, push_token, work, want_repos, want_points, log):
    pushed, points, push_seconds, index_seconds = [], 0, 0.0, 0.0
    for pkg in packages:
        if len(pushed) >= want_repos and points >= want_points:
            break
        try:
            src = sweep.fetch(pkg, args.cache)
        except Exception as e:  # a registry hiccup skips the package, it is reported
            log(f"skip {pkg['name']}: {e}")
            continue
        repo = sweep.slug(f"{pkg['registry']}-{pkg['name']}-{pkg['version']}").replace("+", "-")[:100]
        idx = os.path.join(work, "indexes", repo)
        started = time.time()
        out = subprocess.run([ken, "--index-dir", idx, "index", src, "--model", "static", "--json"],
                             capture_output=True, text=True, env=env)
        if out.returncode != 0:
            log(f"skip {repo}: index failed: {out.stderr.strip()[-300:]}")
            continue
        index_seconds += time.time() - started
        summary = json.loads(out.stdout)
        progress = summary["vectors"]["embed"]["progress"]
        n = progress["symbols"] + progress["chunks"]
        if n == 0:
            continue
        started = time.time()
        out = subprocess.run([ken, "--index-dir", idx, "push", hub.base, "--repo", repo, "--json"],
                             capture_output=True, text=True, env={**env, "KEN_HUB_TOKEN": push_token}, cwd=src)
        took = time.time() - started
        if out.returncode != 0:
            log(f"skip {repo}: push failed: {out.stderr.strip()[-300:]}")
            continue
        push_seconds += took
        points += n
        pushed.append({"repo": repo, "points": n, "push_seconds": round(took, 2), "index": idx, "src": src,
                       "bytes_sent": json.loads(out.stdout)["bytes_sent"]})
        log(f"{len(pushed):3d} {repo}: {n} points, push {took:.1f} s (total {points})")
    return pushed, points, push_seconds, index_seconds


def query_latency(base, token, scopes, rounds):
    """p50/p95 in ms per scope (name, repos, route: 0 searches every repository
    in scope, N routes to the N the cluster's first stage ranks best); one
    warm-up pass first. Each routed scope also reports how many of the
    top 10 hits of searching every repository it kept (mean over queries)."""
    out = {}
    full_answers = {}
    for name, repos, route in scopes:
        body = lambda q: {"query": q, "k": 10, "repos": repos, "route": route}  # noqa: E731
        for q in QUERIES[:2]:
            http("POST", f"{base}/api/v1/search", token, body(q))
        times = []
        answers = {}
        for _ in range(rounds):
            for q in QUERIES:
                started = time.perf_counter()
                answer = http("POST", f"{base}/api/v1/search", token, body(q))
                times.append((time.perf_counter() - started) * 1000)
                answers[q] = {(h["repo"], h["path"], h.get("qualified_name")) for h in answer["hits"]}
        entry = {"p50_ms": round(percentile(times, 0.5), 1), "p95_ms": round(percentile(times, 0.95), 1), "queries": len(times)}
        key = tuple(repos)
        if route == 0:
            full_answers[key] = answers
        elif key in full_answers:
            kept = [len(answers[q] & full_answers[key][q]) / max(1, len(full_answers[key][q])) for q in QUERIES]
            entry["top10_kept"] = round(sum(kept) / len(kept), 3)
        out[name] = entry
    return out


def edge_latency(ken, env, index, src, rounds):
    server = Server([ken, "--index-dir", index, "serve", "--addr", "127.0.0.1:0"], {**env, "KEN_QDRANT_URL": ""})
    try:
        for q in QUERIES[:2]:
            http("POST", f"{server.base}/api/v1/search", None, {"query": q, "k": 10})
        times = []
        for _ in range(rounds):
            for q in QUERIES:
                started = time.perf_counter()
                http("POST", f"{server.base}/api/v1/search", None, {"query": q, "k": 10})
                times.append((time.perf_counter() - started) * 1000)
        return {"p50_ms": round(percentile(times, 0.5), 1), "p95_ms": round(percentile(times, 0.95), 1), "queries": len(times)}
    finally:
        server.stop()


def run_once(args, ken, packages, work, layout, want_repos, want_points, log):
    env = {k: v for k, v in os.environ.items() if not k.startswith("KEN_QDRANT")}
    env["KEN_CACHE_DIR"] = args.ken_cache
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cluster = Cluster(args.cluster_script, work)
    hub_proc = None
    try:
        hub_dir = os.path.join(work, "hub")
        os.makedirs(hub_dir)
        with open(os.path.join(hub_dir, "ken.toml"), "w") as f:
            f.write(f'[vectors]\nurl = "{cluster.grpc_urls()}"\nshards = 3\nreplicas = 2\n')
            if layout == "per-repo":
                f.write("collection_per_repo = true\n")
        tokens = {}
        for name, access in (("ci", "push"), ("dev", "read")):
            tokens[access] = subprocess.run([ken, "hub", "token", name, "--access", access, "--dir", hub_dir],
                                            capture_output=True, text=True, check=True, env=env).stdout.strip()
        hub_proc = Server([ken, "serve", "--hub", hub_dir, "--addr", "127.0.0.1:0"], env)
        started = time.time()
        pushed, points, push_seconds, index_seconds = index_and_push(
            ken, env, packages, args, hub_proc, tokens["push"], work, want_repos, want_points, log)
        wall = time.time() - started
        if not pushed:
            sys.exit("no repository was pushed")
        collections = cluster.collections()
        stored = sum(cluster.count(c) for c in collections if "_vectors_" in c)
        one = max(pushed, key=lambda p: p["points"])
        ten = [p["repo"] for p in sorted(pushed, key=lambda p: -p["points"])[:10]]
        scopes = [("1 repository", [one["repo"]], 0), ("10 repositories", ten, 0), ("10 repositories, routed to 3", ten, 3),
                  (f"all {len(pushed)} repositories", [], 0), (f"all {len(pushed)} repositories, routed to 8", [], 8)]
        latency = query_latency(hub_proc.base, tokens["read"], scopes, args.rounds)
        result = {
            "layout": layout,
            "repositories": len(pushed),
            "points": points,
            "points_in_cluster": stored,
            "collections": len(collections),
            "push_seconds": round(push_seconds, 1),
            "push_points_per_second": round(points / push_seconds, 1) if push_seconds else None,
            "push_bytes": sum(p["bytes_sent"] for p in pushed),
            "ci_index_seconds": round(index_seconds, 1),
            "wall_seconds": round(wall, 1),
            "query": latency,
            "largest_repository": {"repo": one["repo"], "points": one["points"]},
            "node_rss_mib": [round(r / 1024) if r else None for r in cluster.rss()],
            "hub_rss_mib": round((rss_kib(hub_proc.proc.pid) or 0) / 1024),
        }
        if args.edge:
            result["edge_one_repository"] = edge_latency(ken, env, one["index"], one["src"], args.rounds)
        result["packages"] = [{k: p[k] for k in ("repo", "points", "push_seconds", "bytes_sent")} for p in pushed]
        return result
    finally:
        if hub_proc:
            hub_proc.stop()
        cluster.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ken", required=True)
    ap.add_argument("--cluster-script", required=True)
    ap.add_argument("--cache", required=True, help="where packages are fetched (sweep's cache)")
    ap.add_argument("--ken-cache", required=True, help="KEN_CACHE_DIR for the static model")
    ap.add_argument("--work", required=True)
    ap.add_argument("--repos", type=int, default=50)
    ap.add_argument("--min-points", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--start", type=int, default=0, help="skip this many packages of the list first")
    ap.add_argument("--layouts", type=int, default=0, help="compare the two layouts on this many packages instead")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    args.edge = True
    here = os.path.dirname(os.path.abspath(__file__))
    packages = [p for p in sweep.read_packages(os.path.join(here, "sweep", "packages.tsv")) if p["registry"] != "deb"][args.start:]
    log = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    if args.layouts:
        results = [run_once(args, args.ken, packages, os.path.join(args.work, layout), layout, args.layouts, 0, log)
                   for layout in ("shared", "per-repo")]
    else:
        results = [run_once(args, args.ken, packages, os.path.join(args.work, "shared"), "shared", args.repos, args.min_points, log)]
    with open(args.out, "w") as f:
        json.dump(results, f, indent=2)
    for r in results:
        print(f"\n### layout: {r['layout']}: {r['repositories']} repositories, {r['points']:,} points "
              f"({r['points_in_cluster']:,} in the cluster, {r['collections']} collections)\n")
        print("| figure | value |\n|---|---|")
        print(f"| push throughput | {r['push_points_per_second']:,} points/s ({r['push_seconds']} s of pushes, {r['push_bytes'] / 2**20:.1f} MiB sent) |")
        print(f"| CI-side `ken index --model static`, all packages | {r['ci_index_seconds']} s |")
        for scope, q in r["query"].items():
            kept = f"; kept {q['top10_kept']:.0%} of searching them all's top 10" if "top10_kept" in q else ""
            print(f"| hub query, {scope} (p50 / p95) | {q['p50_ms']} / {q['p95_ms']} ms{kept} |")
        if "edge_one_repository" in r:
            e = r["edge_one_repository"]
            print(f"| same queries, Edge shard, `ken serve` on {r['largest_repository']['repo']} (p50 / p95) | {e['p50_ms']} / {e['p95_ms']} ms |")
        print(f"| RSS per Qdrant node | {', '.join(f'{m} MiB' for m in r['node_rss_mib'])} |")
        print(f"| RSS of the hub | {r['hub_rss_mib']} MiB |")


if __name__ == "__main__":
    main()
