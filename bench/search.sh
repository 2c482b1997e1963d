#!/usr/bin/env bash
# Warm query latency and memory on Django 5.1.4 (an index of more than 10k
# chunks), fully embedded with the default model:
#   library  hybrid with a precomputed query vector, hybrid end to end
#            (query embedding included), lexical + exact only; p50 and p95
#   CLI      `ken search`, process start included, median of runs
#   peer     ripgrep over the same tree, in the same run
#   memory   peak RSS of the library run (index, shard and model loaded)
#   bench/search.sh [ROUNDS]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cache="$here/bench/.cache"
source "$here/bench/lib.sh"
rounds="${1:-5}"
command -v rg >/dev/null || { apt-get update -qq && apt-get install -y -qq ripgrep; }
(cd "$here" && cargo build --release --quiet -p ken && cargo build --release --quiet -p ken-search --example query_latency)
ken="$here/target/release/ken"
django="$(fetch_django)"
idx="$cache/search-django-index"
echo "== indexing and embedding Django (once; resumable)"
"$ken" --index-dir "$idx" index "$django" -q
queries="$cache/search-queries.txt"
cat > "$queries" <<'Q'
how are database transactions committed
QuerySet.filter
get_object_or_404
render a template with a context
validate an email address
csrf token check for a request
migrate the database schema
paginate a list of objects
send_mail
cache a view response
password hashing algorithm
ModelAdmin.get_queryset
signal sent after a model is saved
parse the accept language header
url routing with path converters
Q
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "== library, warm, $rounds rounds"
lib=$( { /usr/bin/time -f "%M" "$here/target/release/examples/query_latency" "$idx" "$queries" "$rounds"; } 2>"$cache/rss.txt")
echo "$lib"
rss_kib=$(tail -n 1 "$cache/rss.txt")
echo "peak RSS: $((rss_kib / 1024)) MiB"
echo "== CLI, process start included (median of 15)"
cli_times=()
rg_times=()
for i in $(seq 1 15); do
  q=$(sed -n "$(( (i - 1) % 15 + 1 ))p" "$queries")
  t0=$(date +%s%N); "$ken" --index-dir "$idx" search "$q" -k 10 >/dev/null; t1=$(date +%s%N)
  word=$(echo "$q" | awk '{print $NF}')
  rg -i -n "$word" "$django" >/dev/null || true; t2=$(date +%s%N)
  cli_times+=($(( (t1 - t0) / 1000000 )))
  rg_times+=($(( (t2 - t1) / 1000000 )))
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
cli=$(median "${cli_times[@]}")
rgm=$(median "${rg_times[@]}")
echo "ken search (CLI): median ${cli} ms   ripgrep (one word, same tree): median ${rgm} ms   ratio $(python3 -c "print(round($cli/max($rgm,1),2))")x"
mkdir -p "$here/bench/results"
python3 - "$lib" "$cli" "$rgm" "$rss_kib" > "$here/bench/results/search_latency.json" <<'PY'
import json, sys
lib = json.loads(sys.argv[1])
lib.update({"cli_median_ms": int(sys.argv[2]), "ripgrep_median_ms": int(sys.argv[3]), "peak_rss_mib": int(sys.argv[4]) // 1024})
print(json.dumps(lib, indent=2))
PY
