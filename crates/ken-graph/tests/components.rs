//! Vue and Svelte end to end: a component's script imports TypeScript
//! modules and other components (`./Counter.vue` is the component's module),
//! and its functions call across files.

mod common;

use common::{check_edges, check_queries};
use expect_test::expect;

const FIXTURE: &str = r#"
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

#[test]
fn components_import_and_call() {
    check_edges(
        FIXTURE,
        expect![[r#"
        src/App -imports-> src/components/Counter
        src/App -imports-> src/util/format.formatCount
        src/App.title -calls-> src/util/format.formatCount
        src/Greeting -imports-> src/util/format.formatCount
        src/Greeting.greet -calls-> src/util/format.formatCount
        src/components/Counter -imports-> src/util/format.formatCount
        src/components/Counter.increment -calls-> src/util/format.formatCount
        unresolved:
        src/components/Counter -calls-> ?defineProps
        src/components/Counter -calls-> ?ref
        src/components/Counter -imports-> ?ref
        src/components/Counter.increment -calls-> ?log
    "#]],
    );
}

#[test]
fn callers_across_components() {
    check_queries(
        FIXTURE,
        "callers formatCount",
        expect![[r#"
        > callers formatCount
          CalledBy src/App.title (src/App.vue:11)
          CalledBy src/Greeting.greet (src/Greeting.svelte:12)
          CalledBy src/components/Counter.increment (src/components/Counter.vue:15)
    "#]],
    );
}
