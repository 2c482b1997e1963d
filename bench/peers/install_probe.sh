#!/usr/bin/env bash
# probe (BM25 over tree-sitter blocks): https://crates.io/crates/probe-code
exec "$(dirname "$0")/install_cargo_peer.sh" probe-code 0.6.0 probe
