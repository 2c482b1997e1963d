mod common;

use common::{render_chunks, render_references, render_symbols};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

const SCRIPTS: &str = r#"
//- lib/log.bash
#!/usr/bin/env bash
# Logging helpers.

export LOG_LEVEL=info
readonly LOG_PREFIX="[app]"

# Print a message when the level allows it.
log_info() {
  local message="$1"
  printf '%s %s\n' "$LOG_PREFIX" "$message"
}

function log_error {
  log_info "ERROR: $*" >&2
  return 1
}
//- bin/run.sh
#!/bin/sh
source lib/log.bash
. ./lib/env.sh

main() {
  log_info "starting"
  if ! deploy; then
    log_error "deploy failed"
  fi
}

main "$@"
"#;

fn check(render: fn(&str) -> String, expect: Expect) {
    expect.assert_eq(&render(SCRIPTS));
}

#[test]
fn functions_and_exported_variables() {
    check(
        render_symbols,
        expect![[r#"
        lib/log.bash (module lib/log, 0 parse errors)
          constant LOG_LEVEL [4-4] `export LOG_LEVEL=info`
          constant LOG_PREFIX [5-5] `readonly LOG_PREFIX="[app]"`
          function log_info [8-11] `log_info()` doc: Print a message when the level allows it.
          function log_error [13-16] `function log_error`
        bin/run.sh (module bin/run, 0 parse errors)
          function main [5-10] `main()`
    "#]],
    );
}

#[test]
fn commands_are_calls_and_source_imports() {
    check(
        render_references,
        expect![[r#"
        lib/log.bash
          14:3 call log_info in log_error
        bin/run.sh
          2:8 import lib/log.bash in <module>
          3:3 import ./lib/env.sh in <module>
          6:3 call log_info in main
          7:8 call deploy in main
          8:5 call log_error in main
          12:1 call main in <module>
    "#]],
    );
}

#[test]
fn chunks_follow_functions() {
    check(
        |f| render_chunks(f, ChunkBudget::default()),
        expect![[r#"
        lib/log.bash
          1-17 LOG_LEVEL | class - | fn -
        bin/run.sh
          1-13 main | class - | fn -
    "#]],
    );
}
