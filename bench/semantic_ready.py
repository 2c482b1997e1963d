"""Time to first semantic result: starts a cold `ken index` with the default
model and watches its index (read-only SQLite) until every point has its
static vector (`static_model` recorded, every file's points synced). That
is when `ken search` answers prose from dense vectors; the transformer's
vectors come after, in the same run. Then the run is killed (a killed run
resumes; nothing is lost) and a semantic search checks the claim.

    python3 bench/semantic_ready.py KEN CORPUS  ->  "<seconds> <hits>"
"""

import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def ready(db):
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.05)
        try:
            model = con.execute("SELECT value FROM meta WHERE key = 'static_model'").fetchone()
            files, unsynced = con.execute("SELECT count(*), count(*) FILTER (WHERE vsynced = 0) FROM files").fetchone()
        finally:
            con.close()
    except sqlite3.Error:
        return False
    return bool(model and model[0]) and files > 0 and unsynced == 0


def main(ken, corpus):
    with tempfile.TemporaryDirectory() as idx:
        db = Path(idx) / "index.sqlite"
        start = time.monotonic()
        run = subprocess.Popen([ken, "index", corpus, "--index-dir", idx, "-q"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while not ready(db):
            if run.poll() is not None:
                break
            time.sleep(0.02)
        seconds = time.monotonic() - start
        run.kill()
        run.wait()
        out = subprocess.run([ken, "--index-dir", idx, "search", "how are database rows turned into objects",
                              "--mode", "semantic", "--json", "-k", "5"], capture_output=True, text=True)
        hits = out.stdout.count('"path"')
        if out.returncode != 0 or not hits:
            print(out.stdout[:500], out.stderr.strip(), file=sys.stderr)
        print(f"{seconds:.2f} {hits}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
