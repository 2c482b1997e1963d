#!/usr/bin/env bash
# Related snapshots (issue 22): ten consecutive releases of one package, each
# indexed cold (the reference) and with `--from` the previous release's
# index (embeddings of unchanged text reused), with the default model.
# Prints wall-clock seconds, embeddings computed and reused, and the ratio.
#
#   bench/snapshots.sh                     click 8.1.3 … 8.3.0
#   PACKAGE=attrs VERSIONS="23.1.0 …" bench/snapshots.sh
#
# Needs PyPI (sdists). $KEN defaults to target/release/ken (built when missing).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cache="$here/.cache/snapshots"
mkdir -p "$cache" "$root/bench/results"
package="${PACKAGE:-click}"
versions="${VERSIONS:-8.1.3 8.1.4 8.1.5 8.1.6 8.1.7 8.1.8 8.2.0 8.2.1 8.2.2 8.3.0}"
KEN="${KEN:-$root/target/release/ken}"
[ -x "$KEN" ] || (cd "$root" && cargo build --release -p ken)
venv="$cache/venv"
[ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
python="$venv/bin/python"

for v in $versions; do
  if [ ! -d "$cache/$package-$v" ]; then
    "$python" -m pip download --quiet --no-deps --no-binary :all: "$package==$v" -d "$cache/dl" >/dev/null
    archive="$cache/dl/$package-$v.tar.gz"
    [ -f "$archive" ] || archive="$cache/dl/${package^}-$v.tar.gz"
    mkdir -p "$cache/$package-$v.tmp" && tar xzf "$archive" -C "$cache/$package-$v.tmp" --strip-components 1
    mv "$cache/$package-$v.tmp" "$cache/$package-$v"
  fi
done

# Seconds of wall clock for the whole command, and its JSON report.
run() {  # run OUT_JSON ARGS...
  local out="$1"; shift
  local start end
  start=$(date +%s.%N)
  "$KEN" index "$@" --json > "$out"
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}

cpu="$(lscpu | sed -n 's/^Model name: *//p' | head -1)"
echo "CPU: $cpu, $(nproc) cores; $package, model: the default"
printf '%-10s %10s %10s %8s %10s %10s\n' release cold_s from_s ratio computed reused
previous=""
for v in $versions; do
  cold="$cache/idx-cold-$v" warm="$cache/idx-from-$v"
  rm -rf "$cold" "$warm"
  cold_s=$(run "$cache/cold-$v.json" "$cache/$package-$v" --index-dir "$cold" -q)
  if [ -n "$previous" ]; then
    from_s=$(run "$cache/from-$v.json" "$cache/$package-$v" --index-dir "$warm" --from "$cache/idx-from-$previous" -q)
    read -r embedded cached < <("$python" -c "import json,sys; e=json.load(open(sys.argv[1]))['vectors']['embed']; print(e['embedded'], e['from_cache'])" "$cache/from-$v.json")
    printf '%-10s %10.1f %10.1f %7.1fx %10s %10s\n' "$v" "$cold_s" "$from_s" "$(echo "$cold_s / $from_s" | bc -l)" "$embedded" "$cached"
  else
    cp -r "$cold" "$warm"
    printf '%-10s %10.1f %10s %8s %10s %10s\n' "$v" "$cold_s" - - - -
  fi
  previous="$v"
done
