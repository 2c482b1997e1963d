"""Load test: N concurrent clients against `ken serve` on loopback for a
fixed time, rotating pipeline and search requests. Reports throughput,
p50 / p99 latency, errors, and the server's RSS over the run (stable memory).
"""

import argparse
import json
import threading
import time
import urllib.error
import urllib.request

QUERIES = [
    "send a prepared request through an adapter", "retry failed connections", "parse cookies from a response",
    "http basic authentication header", "follow redirects", "encode url query parameters",
    "stream response content in chunks", "proxy settings from the environment", "verify ssl certificates",
    "Session.send", "get_netrc_auth", "raise an error for a bad status code",
]


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--out")
    args = ap.parse_args()

    latencies, errors, lock = [], [], threading.Lock()
    stop = time.time() + args.seconds

    def client(n):
        i = n
        while time.time() < stop:
            q = QUERIES[i % len(QUERIES)]
            if i % 3 == 2:
                path, body = "/api/v1/search", {"query": q, "k": 10}
            else:
                path, body = "/api/v1/hybrid-search", {"query": q, "top_k": 5}
            i += 1
            request = urllib.request.Request(args.url + path, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
            start = time.perf_counter()
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    json.load(response)
                    ok = response.status == 200
            except (urllib.error.URLError, OSError, ValueError) as e:
                ok = False
                with lock:
                    errors.append(str(e))
            ms = (time.perf_counter() - start) * 1000
            if ok:
                with lock:
                    latencies.append(ms)

    rss = [(0.0, rss_mib(args.pid))]
    threads = [threading.Thread(target=client, args=(n,)) for n in range(args.clients)]
    t0 = time.time()
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        time.sleep(5)
        rss.append((time.time() - t0, rss_mib(args.pid)))
    for t in threads:
        t.join()
    elapsed = time.time() - t0
    latencies.sort()
    p = lambda q: latencies[min(len(latencies) - 1, int(q * (len(latencies) - 1)))] if latencies else float("nan")
    first_half = [r for t, r in rss if 0 < t <= elapsed / 2]
    second_half = [r for t, r in rss if t > elapsed / 2]
    report = {
        "clients": args.clients, "seconds": round(elapsed, 1), "requests": len(latencies), "errors": len(errors),
        "throughput_rps": round(len(latencies) / elapsed, 1), "p50_ms": round(p(0.5), 1), "p99_ms": round(p(0.99), 1),
        "max_ms": round(latencies[-1], 1) if latencies else None,
        "rss_mib": {"before": round(rss[0][1]), "peak": round(max(r for _, r in rss)),
                    "first_half_max": round(max(first_half)) if first_half else None,
                    "second_half_max": round(max(second_half)) if second_half else None, "end": round(rss[-1][1])},
    }
    print(f"{args.clients} clients x {elapsed:.0f} s: {report['requests']} requests, {report['errors']} errors, "
          f"{report['throughput_rps']} req/s, p50 {report['p50_ms']} ms, p99 {report['p99_ms']} ms, max {report['max_ms']} ms")
    print(f"server RSS (MiB): before {report['rss_mib']['before']}, max in first half {report['rss_mib']['first_half_max']}, "
          f"max in second half {report['rss_mib']['second_half_max']}, end {report['rss_mib']['end']}")
    if errors:
        print("first errors:", errors[:3])
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report, f, indent=2)
    if errors:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
