#!/usr/bin/env bash
# Scale: real repositories (bench/sweep/packages.tsv: PyPI, npm, crates.io)
# indexed as CI would and pushed with `ken push` into `ken serve --hub`,
# whose vectors live in a local 3-node Qdrant cluster (3 shards, 2
# replicas). Reports points, push throughput, hub query p50/p95 with 1, 10
# and all repositories in scope, memory per node, and the same queries on
# one repository's Edge shard. Writes bench/results/scale.json.
#
# Usage: bench/scale.sh [--repos N] [--min-points P] [--rounds R]
#        bench/scale.sh --layouts N   (collection per model vs per repository, N packages)
# Environment: KEN (binary; default a release build), QDRANT_BIN (else
#   ../shared/qdrant/qdrant beside the repository).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
source "$here/lib.sh"
ken=$(bench_ken ken-scale)
cluster_script="$root/../shared/qdrant/cluster.sh"
[ -x "$cluster_script" ] || { echo "needs ../shared/qdrant/cluster.sh (a Qdrant build and its cluster script)" >&2; exit 2; }
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB"
mkdir -p "$here/results" "$here/.cache/sweep"
work="${SCALE_WORK:-/tmp/ken-scale}"
out="$here/results/scale.json"
for arg in "$@"; do [ "$arg" = "--layouts" ] && out="$here/results/scale-layouts.json"; done
exec python3 "$here/scale.py" --ken "$ken" --cluster-script "$cluster_script" --cache "$here/.cache/sweep" \
  --ken-cache "${KEN_CACHE_DIR:-$here/.cache/ken-cache}" --work "$work" --out "$out" "$@"
