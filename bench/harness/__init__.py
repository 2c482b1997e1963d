"""Kenning's evaluation and benchmark harness: pinned corpora, query sets
with ground truth from oracles or from the code itself, and peers run side
by side on the same corpora and queries. Entry point: bench/eval.sh."""
