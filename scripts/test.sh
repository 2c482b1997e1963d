#!/usr/bin/env bash
# Runs the whole test suite. Installs what the tests need first (idempotent):
# a C compiler for the tree-sitter grammars and SQLite, and python3 with pip
# (the end-to-end tests download real packages from PyPI).
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v cc >/dev/null || need_apt+=(build-essential)
command -v python3 >/dev/null || need_apt+=(python3)
python3 -m pip --version >/dev/null 2>&1 || need_apt+=(python3-pip)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "installing: ${need_apt[*]}"
  apt-get update -qq && apt-get install -y -qq "${need_apt[@]}"
fi
command -v cargo >/dev/null || { echo "cargo not found: install Rust (https://rustup.rs) and retry" >&2; exit 1; }

cargo test --workspace "$@"
