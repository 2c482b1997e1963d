#!/usr/bin/env bash
# Runs the whole test suite. Installs what the tests need first (idempotent):
# a C compiler for the tree-sitter grammars and SQLite, python3 with pip (the
# end-to-end tests download real packages from PyPI), and the real language
# servers the LSP tests drive: pylsp, gopls (with go) and clangd from apt, pyright and
# typescript-language-server from npm; llama.cpp's OpenAI-compatible server and
# the official MCP Python SDK (a client that is not ken) from PyPI. Then the benchmark harness's smoke run
# and the crash sweep's CI subset.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v cc >/dev/null || need_apt+=(build-essential)
command -v python3 >/dev/null || need_apt+=(python3)
python3 -m pip --version >/dev/null 2>&1 || need_apt+=(python3-pip)
python3 -c "import ensurepip, venv" >/dev/null 2>&1 || need_apt+=(python3-venv)
command -v rg >/dev/null || need_apt+=(ripgrep)
command -v git >/dev/null || need_apt+=(git)
command -v pylsp >/dev/null || need_apt+=(python3-pylsp)
command -v gopls >/dev/null || need_apt+=(gopls)
command -v go >/dev/null || need_apt+=(golang-go)
command -v clangd >/dev/null || need_apt+=(clangd)
command -v npm >/dev/null || need_apt+=(nodejs npm)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "installing: ${need_apt[*]}"
  apt-get update -qq && apt-get install -y -qq "${need_apt[@]}"
fi
need_npm=()
command -v pyright-langserver >/dev/null || need_npm+=(pyright@1.1.408)
command -v typescript-language-server >/dev/null || need_npm+=(typescript-language-server@5.1.3 typescript@5.9.3)
if [ ${#need_npm[@]} -gt 0 ]; then
  echo "installing: ${need_npm[*]}"
  npm install -g --silent "${need_npm[@]}"
fi
command -v cargo >/dev/null || { echo "cargo not found: install Rust (https://rustup.rs) and retry" >&2; exit 1; }

# A clean build, the test cache and the corpora take about 19 GB. On a full
# disk the linker dies with a bus error and pip and npm fail obscurely: say so first.
free_gb=$(( $(df -Pk . | awk 'NR==2 {print $4}') / 1048576 ))
built_gb=$(( $(du -sk target 2>/dev/null | cut -f1 || echo 0) / 1048576 ))
if [ $(( free_gb + built_gb )) -lt 20 ]; then
  echo "the tests need about 20 GB for target/; ${free_gb} GB are free and target/ holds ${built_gb} GB" >&2
  exit 1
fi

# Models, ONNX Runtime and corpora are fetched into the build directory, never
# taken from ~/.cache: a fresh clone exercises the first fetch, as a new user's
# machine does, and no earlier run can change what the tests see.
export KEN_CACHE_DIR="$PWD/target/test-cache"

# A real OpenAI-compatible server for the LLM client's tests: llama.cpp's,
# from llama-cpp-python (an sdist: pip builds llama.cpp once, several minutes
# on two cores; its built wheel is reused from pip's cache after that).
llama_venv="$KEN_CACHE_DIR/llama-cpp-server"
if ! "$llama_venv/bin/python" -c "import llama_cpp.server" >/dev/null 2>&1; then
  echo "installing llama-cpp-python[server] (builds llama.cpp)"
  python3 -m venv "$llama_venv"
  CMAKE_ARGS="-DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF" \
    "$llama_venv/bin/pip" install -q "llama-cpp-python[server]==0.3.36"
fi
export KEN_TEST_LLAMA_PYTHON="$llama_venv/bin/python"

# A real MCP client that is not ken, for the MCP tests: the official Python SDK.
mcp_venv="$KEN_CACHE_DIR/mcp-client"
if ! "$mcp_venv/bin/python" -c "import mcp.client.stdio" >/dev/null 2>&1; then
  echo "installing the MCP Python SDK (mcp 1.26.0)"
  python3 -m venv "$mcp_venv"
  "$mcp_venv/bin/pip" install -q "mcp==1.26.0"
fi
export KEN_TEST_MCP_PYTHON="$mcp_venv/bin/python"

# A real Qdrant server for the vector-server and cluster tests. No registry
# ships one: QDRANT_BIN, then `qdrant` on PATH, then ../shared/qdrant/qdrant
# beside this repository or beside the one it was cloned from. Found, the
# tests must run (KEN_REQUIRE_QDRANT); not found, they are skipped and the
# summary says so.
qdrant_bin=""
origin=$(git config remote.origin.url 2>/dev/null || true)
for candidate in "${QDRANT_BIN:-}" "$(command -v qdrant || true)" "$PWD/../shared/qdrant/qdrant" "${origin:+$origin/../shared/qdrant/qdrant}"; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then qdrant_bin=$(cd "$(dirname "$candidate")" && pwd)/$(basename "$candidate"); break; fi
done
if [ -n "$qdrant_bin" ]; then
  export QDRANT_BIN="$qdrant_bin" KEN_REQUIRE_QDRANT=1
  qdrant_note="Qdrant server and cluster tests ran against $qdrant_bin"
else
  qdrant_note="Qdrant server and cluster tests SKIPPED: no qdrant binary (set QDRANT_BIN to one, put it on PATH, or get a release from https://github.com/qdrant/qdrant/releases; docs/team.md)"
fi

# Every failure is reported in one run: all test binaries run, and the smoke
# run below runs even when a test failed.
status=0
cargo test --workspace --no-fail-fast "$@" || status=$?

# The benchmark harness's smoke subset: requests from PyPI, every query set,
# ken (the debug build the tests just made) against ripgrep, with floors.
cargo build -q -p ken || status=$?
KEN="$PWD/target/debug/ken" bench/eval.sh --smoke --no-install || status=$?

# The crash sweep's CI subset: eight real packages of several languages from
# PyPI, crates.io, npm and Debian, indexed and queried; any panic, abort or
# hang fails the run.
KEN="$PWD/target/debug/ken" bench/sweep.sh --ci || status=$?

echo "scripts/test.sh: $qdrant_note"
if [ $status -eq 0 ]; then echo "scripts/test.sh: all passed"; else echo "scripts/test.sh: FAILED (see above)" >&2; fi
exit $status
