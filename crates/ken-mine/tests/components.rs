//! Vue and Svelte components: their `<script>` blocks are mined as
//! TypeScript where they stand in the file (lines and columns are the
//! component's); templates and styles are text, chunked with the rest.

mod common;

use common::{render_chunks, render_references, render_symbols};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

const SOURCES: &str = r#"
//- src/components/Counter.vue
<template>
  <button @click="increment">{{ label }}: {{ count }}</button>
</template>

<script setup lang="ts">
import { ref } from 'vue'
import { formatCount } from '../util/format'

const props = defineProps<{ label: string }>()
const count = ref(0)

/** Adds one. */
function increment(): void {
  count.value = count.value + 1
  console.log(formatCount(count.value))
}
</script>

<style scoped>
button { color: red; }
</style>
//- src/util/format.ts
export function formatCount(n: number): string {
  return `${n} clicks`
}
//- src/App.vue
<template><Counter label="Clicks" /></template>
<script>
import Counter from './components/Counter.vue'
import { formatCount } from './util/format'

export default {
  name: 'App',
  components: { Counter },
  methods: {
    title() {
      return formatCount(3)
    }
  }
}
</script>
//- src/Greeting.svelte
<script context="module">
  export const GREETING = 'Hello'
</script>

<script>
  import { formatCount } from './util/format'
  export let name = 'world'
  let clicks = 0

  function greet() {
    clicks += 1
    return `${GREETING} ${name} ${formatCount(clicks)}`
  }
</script>

<h1 on:click={greet}>{greet()}</h1>

<style>
  h1 { color: purple; }
</style>
"#;

fn check(render: fn(&str) -> String, expect: Expect) {
    expect.assert_eq(&render(SOURCES));
}

#[test]
fn script_blocks_hold_the_symbols() {
    check(
        render_symbols,
        expect![[r#"
        src/components/Counter.vue (module src/components/Counter, 0 parse errors)
          function src/components/Counter.increment [13-16] `function increment(): void` doc: Adds one.
        src/util/format.ts (module src/util/format, 0 parse errors)
          function src/util/format.formatCount [1-3] `export function formatCount(n: number): string`
        src/App.vue (module src/App, 0 parse errors)
          function src/App.title [10-12] `title()`
        src/Greeting.svelte (module src/Greeting, 0 parse errors)
          constant src/Greeting.GREETING [2-2] `export const GREETING = 'Hello'`
          function src/Greeting.greet [10-13] `function greet()`
    "#]],
    );
}

#[test]
fn references_keep_the_component_lines() {
    check(
        render_references,
        expect![[r#"
            src/components/Counter.vue
              6:10 import vue :: ref in <module>
              7:10 import ../util/format :: formatCount in <module>
              9:15 call defineProps in <module>
              10:15 call ref in <module>
              14:9 field_use count :: value in increment
              14:23 field_use count :: value in increment
              15:11 call console :: log in increment
              15:15 call formatCount in increment
              15:33 field_use count :: value in increment
            src/util/format.ts
            src/App.vue
              3:8 import ./components/Counter.vue :: Counter in <module>
              4:10 import ./util/format :: formatCount in <module>
              8:17 field_use Counter in <module>
              11:14 call formatCount in title
            src/Greeting.svelte
              6:12 import ./util/format :: formatCount in <module>
              12:35 call formatCount in greet
        "#]],
    );
}

#[test]
fn chunks_cover_template_and_script() {
    check(
        |f| render_chunks(f, ChunkBudget::default()),
        expect![[r#"
        src/components/Counter.vue
          1-22 src/components/Counter.increment | class - | fn -
        src/util/format.ts
          1-4 src/util/format.formatCount | class - | fn in formatCount[1-3]
        src/App.vue
          1-16 src/App.title | class - | fn -
        src/Greeting.svelte
          1-21 src/Greeting.GREETING | class - | fn -
    "#]],
    );
}

#[test]
fn outside_scripts_is_blank() {
    let text = "<template><p>é</p></template>\n<script setup>\nconst a = 1\n</script>\n<style>p{}</style>\n";
    let code = ken_lang::script_blocks(text);
    assert_eq!(code.len(), text.len());
    assert_eq!(code.lines().count(), text.lines().count());
    assert_eq!(code.lines().nth(2), Some("const a = 1"));
    assert!(code.lines().all(|l| l.trim().is_empty() || l == "const a = 1"));
}
