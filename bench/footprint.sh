#!/usr/bin/env bash
# Index footprint (issue 22: an index without embeddings at most 3× the
# bytes of its source): each pinned release indexed cold with `ken index
# --no-embed` by each binary given, side by side; bytes of the index
# directory over bytes of the release's files, the wall-clock time and the
# peak resident memory (GNU time's maximum RSS; `apt-get install time`).
#
#   bench/footprint.sh                         target/release/ken
#   bench/footprint.sh OLD_KEN NEW_KEN         two binaries, same releases
#   RELEASES="pypi-sdist:requests:2.32.3" bench/footprint.sh
#
# Releases are fetched once into bench/.cache/footprint/src (PyPI sdists,
# npm tarballs, crates.io sources: whole, tests and docs included).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
[ $# -gt 0 ] || set -- "$root/target/release/ken"
for ken in "$@"; do [ -x "$ken" ] || { echo "not an executable: $ken" >&2; exit 1; }; done
[ -x /usr/bin/time ] || { echo "needs GNU time for peak memory: apt-get install -y time" >&2; exit 1; }

RELEASES="${RELEASES:-pypi-sdist:requests:2.32.3 pypi-sdist:black:24.2.0 pypi-sdist:pytest:9.1.1 pypi-sdist:sphinx:9.0.4
pypi-sdist:sympy:1.13.3 pypi-sdist:django:5.1.4 npm:eslint:9.3.0 npm:svelte:5.6.2 npm:undici:7.8.0 npm:webpack:5.92.1
crates:tokio:1.53.1 crates:clap_builder:4.5.6 crates:clap_complete:4.6.6 crates:globset:0.4.16 crates:grep-printer:0.2.2
crates:ignore:0.4.29 crates:ripgrep:14.1.1}"

cache="$here/.cache/footprint"
mkdir -p "$cache/src"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') ($(nproc) cores)"
echo "CPU: $cpu"
printf '| release | source MB |'
for ken in "$@"; do printf ' %s: index MB, × source, s, peak MiB |' "$(basename "$ken")"; done
printf '\n|---|---|'
for _ in "$@"; do printf -- '---|'; done
printf '\n'
total_src=0
declare -A total_idx
for spec in $RELEASES; do
  IFS=: read -r registry name version <<<"$spec"
  src="$cache/src/$name-$version"
  (cd "$here" && python3 -c "import sys; from pathlib import Path; from harness.corpora import fetch_package; fetch_package(sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4]))" \
    "$registry" "$name" "$version" "$src") >&2
  src_bytes=$(find "$src" -type f ! -name .complete -printf '%s\n' | awk '{s += $1} END {print s}')
  total_src=$((total_src + src_bytes))
  printf '| %s-%s | %.1f |' "$name" "$version" "$(echo "$src_bytes / 1000000" | bc -l)"
  i=0
  for ken in "$@"; do
    idx="$work/idx-$i"
    rm -rf "$idx"
    /usr/bin/time -f '%e %M' -o "$work/time" "$ken" index --no-embed --index-dir "$idx" "$src" >/dev/null 2>"$work/err" \
      || { echo " failed: $(tail -1 "$work/err")" >&2; exit 1; }
    read -r secs peak_kib < <(tail -1 "$work/time")
    idx_bytes=$(find "$idx" -type f -printf '%s\n' | awk '{s += $1} END {print s}')
    total_idx[$i]=$(( ${total_idx[$i]:-0} + idx_bytes ))
    printf ' %.1f, %.2f×, %.1f, %d |' "$(echo "$idx_bytes / 1000000" | bc -l)" "$(echo "$idx_bytes / $src_bytes" | bc -l)" "$secs" $((peak_kib / 1024))
    i=$((i + 1))
  done
  printf '\n'
done
printf '| **all** | %.1f |' "$(echo "$total_src / 1000000" | bc -l)"
i=0
for _ in "$@"; do
  printf ' %.1f, **%.2f×** |' "$(echo "${total_idx[$i]} / 1000000" | bc -l)" "$(echo "${total_idx[$i]} / $total_src" | bc -l)"
  i=$((i + 1))
done
printf '\n'
