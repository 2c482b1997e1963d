from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent
REPO = BENCH.parent
CACHE = BENCH / ".cache"
RESULTS = BENCH / "results"
QUERIES = BENCH / "queries"
