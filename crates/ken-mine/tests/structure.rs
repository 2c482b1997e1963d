//! Documents, configuration and text: units by heading or key, and the
//! chunks of their own lines. One fixture per format; a new case is a file.

mod common;

use common::{render_chunks, render_symbols};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

fn check(fixture: &str, expect: Expect) {
    let small = ChunkBudget { max_chars: 1500, max_lines: 6, overlap_lines: 2 };
    expect.assert_eq(&format!("{}{}", render_symbols(fixture), render_chunks(fixture, small)));
}

#[test]
fn markdown_sections_nest_by_level_outside_code_and_front_matter() {
    check(
        r#"
//- docs/guide.md
---
title: Guide
---
Intro text.

# Guide

How to use it.

## Install
Run `pip install demo`.

```sh
# not a heading
pip install demo
```

### From source
Clone it.

Setext title
============

Body.

Sub
---
More.

<h3 name="faq-install">
How do I install it?
</h3>

<h3 name="faq-config">Where is the config file?</h3>

In `~/.demo.toml`.
"#,
        expect![[r#"
            docs/guide.md (module docs/guide.md, 0 parse errors)
              doc docs/guide.md > Guide [6-9] `# Guide` doc: How to use it.
                doc docs/guide.md > Guide > Install [10-17] `## Install` doc: Run `pip install demo`.
                  doc docs/guide.md > Guide > Install > From source [18-20] `### From source` doc: Clone it.
              doc docs/guide.md > Setext title [21-25] `Setext title` doc: Body.
                doc docs/guide.md > Setext title > Sub [26-29] `Sub` doc: More.
                  doc docs/guide.md > Setext title > Sub > How do I install it? [30-33] `How do I install it?`
                  doc docs/guide.md > Setext title > Sub > Where is the config file? [34-36] `<h3 name="faq-config">Where is the config file?</h3>` doc: In `~/.demo.toml`.
            docs/guide.md
              1-5 docs/guide.md | class - | fn -
              6-9 docs/guide.md > Guide | class - | fn -
              10-15 docs/guide.md > Guide > Install | class - | fn -
              14-17 docs/guide.md > Guide > Install | class - | fn -
              18-20 docs/guide.md > Guide > Install > From source | class - | fn -
              21-25 docs/guide.md > Setext title | class - | fn -
              26-29 docs/guide.md > Setext title > Sub | class - | fn -
              30-33 docs/guide.md > Setext title > Sub > How do I install it? | class - | fn -
              34-36 docs/guide.md > Setext title > Sub > Where is the config file? | class - | fn -
        "#]],
    );
}

#[test]
fn rst_and_asciidoc_headings() {
    check(
        r#"
//- docs/index.rst
=====
Title
=====

Intro.

Usage
-----
Call it.

Options
~~~~~~~
Flags.

Limits
------
None.
//- docs/manual.adoc
= Manual

Preamble.

== Setup
Steps.

----
== not a heading inside a listing
----

=== Details
Deep.
"#,
        expect![[r#"
            docs/index.rst (module docs/index.rst, 0 parse errors)
              doc docs/index.rst > Title [1-6] `Title` doc: Intro.
                doc docs/index.rst > Title > Usage [7-10] `Usage` doc: Call it.
                  doc docs/index.rst > Title > Usage > Options [11-14] `Options` doc: Flags.
                doc docs/index.rst > Title > Limits [15-17] `Limits` doc: None.
            docs/manual.adoc (module docs/manual.adoc, 0 parse errors)
              doc docs/manual.adoc > Manual [1-4] `= Manual` doc: Preamble.
                doc docs/manual.adoc > Manual > Setup [5-11] `== Setup` doc: Steps.
                  doc docs/manual.adoc > Manual > Setup > Details [12-13] `=== Details` doc: Deep.
            docs/index.rst
              1-6 docs/index.rst > Title | class - | fn -
              7-10 docs/index.rst > Title > Usage | class - | fn -
              11-14 docs/index.rst > Title > Usage > Options | class - | fn -
              15-17 docs/index.rst > Title > Limits | class - | fn -
            docs/manual.adoc
              1-4 docs/manual.adoc > Manual | class - | fn -
              5-10 docs/manual.adoc > Manual > Setup | class - | fn -
              9-11 docs/manual.adoc > Manual > Setup | class - | fn -
              12-13 docs/manual.adoc > Manual > Setup > Details | class - | fn -
        "#]],
    );
}

#[test]
fn configuration_units_by_key_table_job_stage_and_target() {
    check(
        r#"
//- .github/workflows/ci.yml
name: CI
on:
  push:
    branches: [main]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: make test
  lint:
    runs-on: ubuntu-latest
//- pyproject.toml
requires-python = ">=3.9"

[project]
name = "demo"

[tool.pytest.ini_options]
addopts = "-q"
//- package.json
{
  "name": "demo",
  "scripts": { "test": "jest", "nested": {"deep": 1} },
  "keywords": ["a:b", "c"]
}
//- setup.cfg
[metadata]
name = demo
[options]
zip_safe = False
//- .env.example
DEMO_PORT=8080
export DEMO_HOST=localhost
//- Dockerfile
FROM --platform=linux/amd64 python:3.12 AS build
RUN pip install .
FROM debian
COPY --from=build /app /app
//- Makefile
CC := gcc
.PHONY: test
install: build
	cp demo /usr/bin
test lint:
	pytest
"#,
        expect![[r#"
            .github/workflows/ci.yml (module .github/workflows/ci.yml, 0 parse errors)
              config .github/workflows/ci.yml > name [1-1] `name: CI`
              config .github/workflows/ci.yml > on [2-4] `on:`
              config .github/workflows/ci.yml > jobs [5-5] `jobs:`
                config .github/workflows/ci.yml > jobs.test [6-9] `test:`
                config .github/workflows/ci.yml > jobs.lint [10-11] `lint:`
            pyproject.toml (module pyproject.toml, 0 parse errors)
              config pyproject.toml > requires-python [1-2] `requires-python = ">=3.9"`
              config pyproject.toml > project [3-5] `[project]`
              config pyproject.toml > tool.pytest.ini_options [6-7] `[tool.pytest.ini_options]`
            package.json (module package.json, 0 parse errors)
              config package.json > name [2-2] `"name": "demo",`
              config package.json > scripts [3-3] `"scripts": { "test": "jest", "nested": {"deep": 1} },`
              config package.json > keywords [4-5] `"keywords": ["a:b", "c"]`
            setup.cfg (module setup.cfg, 0 parse errors)
              config setup.cfg > metadata [1-2] `[metadata]`
              config setup.cfg > options [3-4] `[options]`
            .env.example (module .env.example, 0 parse errors)
              config .env.example > DEMO_PORT [1-1] `DEMO_PORT=8080`
              config .env.example > DEMO_HOST [2-2] `export DEMO_HOST=localhost`
            Dockerfile (module Dockerfile, 0 parse errors)
              config Dockerfile > build [1-2] `FROM --platform=linux/amd64 python:3.12 AS build`
              config Dockerfile > debian [3-4] `FROM debian`
            Makefile (module Makefile, 0 parse errors)
              config Makefile > install [3-4] `install: build`
              config Makefile > test lint [5-6] `test lint:`
            .github/workflows/ci.yml
              1-1 .github/workflows/ci.yml > name | class - | fn -
              2-4 .github/workflows/ci.yml > on | class - | fn -
              5-5 .github/workflows/ci.yml > jobs | class - | fn -
              6-9 .github/workflows/ci.yml > jobs.test | class - | fn -
              10-11 .github/workflows/ci.yml > jobs.lint | class - | fn -
            pyproject.toml
              1-2 pyproject.toml > requires-python | class - | fn -
              3-5 pyproject.toml > project | class - | fn -
              6-7 pyproject.toml > tool.pytest.ini_options | class - | fn -
            package.json
              1-1 package.json | class - | fn -
              2-2 package.json > name | class - | fn -
              3-3 package.json > scripts | class - | fn -
              4-5 package.json > keywords | class - | fn -
            setup.cfg
              1-2 setup.cfg > metadata | class - | fn -
              3-4 setup.cfg > options | class - | fn -
            .env.example
              1-1 .env.example > DEMO_PORT | class - | fn -
              2-2 .env.example > DEMO_HOST | class - | fn -
            Dockerfile
              1-2 Dockerfile > build | class - | fn -
              3-4 Dockerfile > debian | class - | fn -
            Makefile
              1-2 Makefile | class - | fn -
              3-4 Makefile > install | class - | fn -
              5-6 Makefile > test lint | class - | fn -
        "#]],
    );
}

#[test]
fn other_text_is_line_windows_named_after_the_file() {
    let mut text = String::from("//- NOTES\n");
    for i in 1..=14 {
        text.push_str(&format!("note {i}\n"));
    }
    check(
        &text,
        expect![[r#"
        NOTES (module NOTES, 0 parse errors)
        NOTES
          1-6 NOTES | class - | fn -
          5-10 NOTES | class - | fn -
          9-14 NOTES | class - | fn -
    "#]],
    );
}
