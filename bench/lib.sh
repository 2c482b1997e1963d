# Shared by the bench scripts: pinned corpora, fetched once into bench/.cache
# (or $cache, when the caller sets it).
: "${cache:=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/.cache}"

fetch_django() {
  local dir="$cache/django-5.1.4"
  if [ ! -f "$dir/.complete" ]; then
    rm -rf "$dir" && mkdir -p "$dir"
    python3 -m pip download --quiet --no-deps --only-binary :all: -d "$cache/dl" django==5.1.4
    python3 -m zipfile -e "$cache/dl/Django-5.1.4-py3-none-any.whl" "$dir"
    touch "$dir/.complete"
  fi
  echo "$dir"
}

fetch_tokio() {
  local dir="$cache/tokio-1.41.1"
  if [ ! -f "$dir/.complete" ]; then
    rm -rf "$dir" && mkdir -p "$dir"
    curl -sSfL -o "$cache/tokio-1.41.1.crate" https://static.crates.io/crates/tokio/tokio-1.41.1.crate \
      || { echo "cannot download tokio 1.41.1 from crates.io; check the network" >&2; exit 1; }
    tar -xzf "$cache/tokio-1.41.1.crate" -C "$dir" --strip-components=1
    touch "$dir/.complete"
  fi
  echo "$dir"
}

# Runs a command and prints "seconds peak_rss_kib".
measure() {
  local out
  out=$( { /usr/bin/time -f "%e %M" "$@" >/dev/null; } 2>&1 | tail -n 1)
  echo "$out"
}

# A pinned PyPI wheel's sources: fetch_wheel NAME VERSION -> directory.
fetch_wheel() {
  local name="$1" version="$2"
  local dir="$cache/wheels/$name-$version"
  if [ ! -f "$dir/.complete" ]; then
    rm -rf "$dir" && mkdir -p "$dir" "$cache/dl"
    python3 -m pip download --quiet --no-deps --only-binary :all: -d "$cache/dl" "$name==$version" \
      || { echo "cannot download $name==$version from PyPI; check the network" >&2; exit 1; }
    local wheel
    wheel=$(ls "$cache/dl" | grep -i "^${name//-/_}-$version-" | head -n 1)
    python3 -m zipfile -e "$cache/dl/$wheel" "$dir"
    touch "$dir/.complete"
  fi
  echo "$dir"
}

# The harness's Python (bench/eval.sh --smoke makes its venv).
harness_python() {
  local venv="$cache/harness-venv"
  [ -x "$venv/bin/python" ] || { echo "run bench/eval.sh --smoke once first (it makes $venv)" >&2; exit 1; }
  echo "$venv/bin/python"
}

# The ken a bench runs: $KEN, or a release build copied to /tmp/NAME so that
# a rebuild during the run cannot mix two binaries.
bench_ken() {
  if [ -n "${KEN:-}" ]; then echo "$KEN"; return; fi
  local root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  (cd "$root" && cargo build --release --quiet -p ken) >&2
  cp "$root/target/release/ken" "/tmp/$1"
  echo "/tmp/$1"
}
