"""Running peers: per-query timeouts, failures as data, peak RSS."""

import json
import os
import resource
import selectors
import signal
import subprocess
import time


class Failure(Exception):
    """One query (or one index run) failed: crashed, hung, or answered garbage."""


def run(cmd, timeout, cwd=None, env=None, stdin=None):
    """stdout of cmd, or Failure naming what went wrong."""
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True, timeout=timeout,
                           start_new_session=True)
    except subprocess.TimeoutExpired as e:
        raise Failure(f"timed out after {timeout:g} s") from e
    except OSError as e:
        raise Failure(f"cannot run {cmd[0]}: {e}") from e
    if p.returncode != 0:
        tail = [l for l in p.stderr.decode("utf-8", "replace").splitlines() if l.strip()][-1:] or ["no stderr"]
        what = f"killed by signal {-p.returncode}" if p.returncode < 0 else f"exit {p.returncode}"
        raise Failure(f"{what}: {tail[0][:300]}")
    return p.stdout.decode("utf-8", "replace")


def measured(cmd, timeout, cwd=None, env=None):
    """(seconds, peak RSS in MiB) of a command run to completion; Failure otherwise."""
    start = time.perf_counter()
    try:
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             start_new_session=True)
    except OSError as e:
        raise Failure(f"cannot run {cmd[0]}: {e}") from e
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as e:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise Failure(f"timed out after {timeout:g} s") from e
    # wait4 would be exact per child; RUSAGE_CHILDREN's max is over all
    # children so far, so each call's figure is an upper bound.
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    seconds = time.perf_counter() - start
    if p.returncode != 0:
        tail = [l for l in err.decode("utf-8", "replace").splitlines() if l.strip()][-3:]
        raise Failure(f"exit {p.returncode}: {' | '.join(tail)[:500]}")
    return seconds, rss


def peak_rss_of(cmd, timeout, cwd=None, env=None):
    """Like measured, but the figure is this command's own peak, via /usr/bin/time when present."""
    if not os.path.exists("/usr/bin/time"):
        return measured(cmd, timeout, cwd, env)
    out = f"/tmp/ken-bench-time-{os.getpid()}"
    seconds, _ = measured(["/usr/bin/time", "-f", "%M", "-o", out] + list(cmd), timeout, cwd, env)
    try:
        rss = int(open(out).read().split()[-1]) / 1024
    except (OSError, ValueError, IndexError):
        rss = None
    finally:
        if os.path.exists(out):
            os.unlink(out)
    return seconds, rss


def dir_size(path):
    """Bytes on disk (as `du`): Qdrant's WAL files are sparse, 32 MiB each
    in name, so their apparent size says nothing."""
    total = 0
    for d, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(d, f)).st_blocks * 512
            except OSError:
                pass
    return total


class Worker:
    """A long-lived helper process speaking one JSON object per line, for
    peers that live in their own Python environment (naive RAG, jedi)."""

    def __init__(self, cmd, env=None):
        self.cmd = cmd
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  env=env, text=True, bufsize=1, start_new_session=True)

    def call(self, request, timeout):
        if self.p.poll() is not None:
            raise Failure(f"worker {self.cmd[-1]} exited ({self.p.returncode}): {self.p.stderr.read()[-300:]}")
        self.p.stdin.write(json.dumps(request) + "\n")
        self.p.stdin.flush()
        sel = selectors.DefaultSelector()
        sel.register(self.p.stdout, selectors.EVENT_READ)
        if not sel.select(timeout):
            self.close()
            raise Failure(f"timed out after {timeout:g} s")
        line = self.p.stdout.readline()
        if not line:
            raise Failure(f"worker exited: {self.p.stderr.read()[-300:]}")
        reply = json.loads(line)
        if "error" in reply:
            raise Failure(reply["error"])
        return reply

    def close(self):
        if self.p.poll() is None:
            try:
                os.killpg(self.p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.p.wait()
