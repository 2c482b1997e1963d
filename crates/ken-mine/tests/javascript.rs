mod common;

use common::{render_chunks, render_references, render_symbols, render_types};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

fn check_symbols(fixture: &str, expect: Expect) {
    expect.assert_eq(&render_symbols(fixture));
}

fn check_refs(fixture: &str, expect: Expect) {
    expect.assert_eq(&render_references(fixture));
}

fn check_types(fixture: &str, expect: Expect) {
    expect.assert_eq(&render_types(fixture));
}

fn check_chunks(fixture: &str, budget: ChunkBudget, expect: Expect) {
    expect.assert_eq(&render_chunks(fixture, budget));
}

#[test]
fn classes_methods_fields_and_nesting() {
    check_symbols(
        r#"
//- src/models/user.js
/** Largest page. */
export const MAX_PAGE = 100;
const lower = 1;
let MUTABLE = 2;

/**
 * A user.
 */
export class User extends Base {
  static count = 0;
  #secret;

  // Makes a user.
  constructor(name) {
    super();
    this.name = name;
  }

  get title() { return this.name; }
  set title(value) { this.name = value; }

  static *ids() { yield 1; }

  async load() {
    class Cache {
      get(key) { return key; }
    }
    return new Cache();
  }
}

class Helper {}

function outer() {
  function inner() {}
  class Local {}
  return inner;
}
"#,
        expect![[r#"
            src/models/user.js (module src/models/user, 0 parse errors)
              constant src/models/user.MAX_PAGE [2-2] `export const MAX_PAGE = 100` doc: Largest page.
              class src/models/user.User [9-30] `export class User extends Base` doc: A user.
                field src/models/user.User.count [10-10] `static count = 0`
                field src/models/user.User.#secret [11-11] `#secret`
                constructor src/models/user.User.constructor [14-17] `constructor(name)` doc: Makes a user.
                method src/models/user.User.title [19-19] `get title()`
                method src/models/user.User.title [20-20] `set title(value)`
                method src/models/user.User.ids [22-22] `static *ids()`
                method src/models/user.User.load [24-29] `async load()`
                  class src/models/user.User.load.Cache [25-27] `class Cache`
                    method src/models/user.User.load.Cache.get [26-26] `get(key)`
              class src/models/user.Helper [32-32] `class Helper`
              function src/models/user.outer [34-38] `function outer()`
                function src/models/user.outer.inner [35-35] `function inner()`
                class src/models/user.outer.Local [36-36] `class Local`
        "#]],
    );
}

#[test]
fn arrow_functions_and_function_expressions() {
    check_symbols(
        r#"
//- lib/index.js
// Adds two numbers.
const add = (a, b) => a + b;
export const fetchAll = async (urls) => {
  const one = (u) => fetch(u);
  return Promise.all(urls.map(one));
};
var legacy = function named() {};
let gen = function* () {};
const Widget = class {
  render() {}
};
const Mixed = class Named {};
exports.run = function () {};
Helper.prototype.go = () => {};
module.exports = { handler() {} };
[1, 2].forEach((x) => console.log(x));
export default function main() {}
const createApp = ((...args) => {
  return mount(args);
});
export const compat = /*#__PURE__*/ (function () {});
const value = (1 + 2);
const HANDLER = ((x) => x);
export const Button = React.forwardRef((props, ref) => {
  return render(props, ref);
});
const Row = memo(function Row() {});
export const useStore = create((set) => ({ count: 0 }));
const API_ROOT = join(base, "api");
const app = express();
"#,
        expect![[r#"
            lib/index.js (module lib, 0 parse errors)
              function lib.add [2-2] `const add = (a, b) => a + b` doc: Adds two numbers.
              function lib.fetchAll [3-6] `export const fetchAll = async (urls)`
              function lib.legacy [7-7] `var legacy = function named()`
              function lib.gen [8-8] `let gen = function* ()`
              class lib.Widget [9-11] `const Widget = class`
                method lib.Widget.render [10-10] `render()`
              class lib.Named [12-12] `class Named`
              function lib.run [13-13] `exports.run = function ()`
              function lib.go [14-14] `Helper.prototype.go = ()`
              function lib.handler [15-15] `handler()`
              function lib.main [17-17] `export default function main()`
              function lib.createApp [18-20] `const createApp = ((...args)`
              function lib.compat [21-21] `export const compat = /*#__PURE__*/ (function ()`
              constant lib.HANDLER [23-23] `const HANDLER = ((x) => x)`
              function lib.Button [24-26] `export const Button = React.forwardRef((props, ref)`
              function lib.Row [27-27] `const Row = memo(function Row()`
              function lib.useStore [28-28] `export const useStore = create((set) => (`
              constant lib.API_ROOT [29-29] `const API_ROOT = join(base, "api")`
        "#]],
    );
}

#[test]
fn functions_in_object_literals() {
    check_symbols(
        r#"
//- src/phases/visitors.js
/** Strips types. */
const visitors = {
  // An assertion.
  TSAsExpression(node, context) {
    return context.visit(node.expression);
  },
  'CallExpression:exit'(node) {},
  Identifier: (node) => node.name,
  nested: { inner() {} },
  count: 1,
};

export function proxy(value) {
  return new Proxy(value, {
    set(target, prop, v) {
      return true;
    },
    get: function (target, prop) {},
  });
}

module.exports = {
  meta: { type: "problem" },
  create(context) {
    return { Program() {} };
  },
};
const empty = {};
"#,
        expect![[r#"
            src/phases/visitors.js (module src/phases/visitors, 0 parse errors)
              method src/phases/visitors.visitors.TSAsExpression [4-6] `TSAsExpression(node, context)` doc: An assertion.
              method src/phases/visitors.visitors.CallExpression:exit [7-7] `'CallExpression:exit'(node)`
              method src/phases/visitors.visitors.Identifier [8-8] `Identifier: (node) => node.name`
              method src/phases/visitors.visitors.inner [9-9] `inner()`
              function src/phases/visitors.proxy [13-20] `export function proxy(value)`
                function src/phases/visitors.proxy.set [15-17] `set(target, prop, v)`
                function src/phases/visitors.proxy.get [18-18] `get: function (target, prop)`
              function src/phases/visitors.create [24-26] `create(context)`
                function src/phases/visitors.create.Program [25-25] `Program()`
        "#]],
    );
}

// JavaScript has no interfaces, enums, generics or overload signatures; a
// repeated declaration stands in for an overload.
#[test]
fn decorators_and_overloads() {
    check_symbols(
        r#"
//- app/component.js
/** A component. */
@register("x")
export class Panel {
  /** Clicks. */
  @bound
  @log({ level: 1 })
  onClick() {}

  @observable value = 1;
}

@sealed
class Plain {}

function parse(x) { return x; }
function parse(x, y) { return y; }
"#,
        expect![[r#"
            app/component.js (module app/component, 0 parse errors)
              class app/component.Panel [3-10] `class Panel`
                method app/component.Panel.onClick [5-7] `@bound @log({ level: 1 }) onClick()` doc: Clicks.
                field app/component.Panel.value [9-9] `@observable value = 1`
              class app/component.Plain [12-13] `@sealed class Plain`
              function app/component.parse [15-15] `function parse(x)`
              function app/component.parse [16-16] `function parse(x, y)`
        "#]],
    );
}

#[test]
fn syntax_errors_keep_what_was_recovered() {
    check_symbols(
        r#"
//- broken.js
function good() {
  return 1;
}

function half(a) {
  return a +;
}

function bad( {
  return;
}

class After {
  method() {}
}
"#,
        expect![[r#"
            broken.js (module broken, 2 parse errors)
              function broken.good [1-3] `function good()`
              function broken.half [5-7] `function half(a)`
              class broken.After [13-15] `class After`
                method broken.After.method [14-14] `method()`
        "#]],
    );
}

#[test]
fn references() {
    check_refs(
        r#"
//- src/app.js
import React, { useState as useS, useEffect } from "react";
import * as path from "node:path";
import "./polyfill.js";
const fs = require("fs");
const { join, resolve: res } = require("path");
require("dotenv").config();
export { helper as assist } from "./helper";
export * from "./all";

class App extends React.Component {
  #count = 0;
  render() {
    const [value, setValue] = useS(0);
    this.#count += 1;
    this.props.onRender(value);
    const items = new Map();
    const widget = new ui.Widget(this.state.size);
    return <Layout.Main title={this.title}><Item /><div /></Layout.Main>;
  }
}

function main() {
  fs.readFileSync(join("a", "b")).toString();
  import("./lazy.js").then((m) => m.run());
}
"#,
        expect![[r#"
            src/app.js
              1:8 import react :: React in <module>
              1:17 import react :: useState as useS in <module>
              1:35 import react :: useEffect in <module>
              2:8 import node:path :: * as path in <module>
              3:8 import ./polyfill.js in <module>
              4:20 import fs as fs in <module>
              5:9 import path :: join in <module>
              5:15 import path :: resolve as res in <module>
              6:9 import dotenv in <module>
              6:19 call require() :: config in <module>
              7:10 import ./helper :: helper as assist in <module>
              8:8 import ./all :: * in <module>
              10:19 inherit React :: Component in App
              13:31 call useS in App.render
              14:10 field_use this :: #count in App.render
              15:10 field_use this :: props in App.render
              15:16 call this.props :: onRender in App.render
              16:23 instantiate Map in App.render
              17:27 instantiate ui :: Widget in App.render
              17:39 field_use this :: state in App.render
              17:45 field_use this.state :: size in App.render
              18:13 call Layout :: Main in App.render
              18:37 field_use this :: title in App.render
              18:45 call Item in App.render
              23:6 call fs :: readFileSync in main
              23:19 call join in main
              23:35 call fs.readFileSync() :: toString in main
              24:10 import ./lazy.js in main
              24:23 call import() :: then in main
              24:37 call m :: run in main
        "#]],
    );
}

#[test]
fn chunks_keep_definitions_whole_and_split_big_ones() {
    let small = ChunkBudget { max_chars: 400, max_lines: 8, overlap_lines: 2 };
    check_chunks(
        r#"
//- big.js
import fs from "fs";

/** A big class. */
export class Big {
  one() {
    return 1;
  }

  // comment about two
  two() {
    const a = 1;
    const b = 2;
    const c = 3;
    const d = 4;
    const e = 5;
    const f = 6;
    return a + b + c + d + e + f;
  }
}

export const tail = () => null;
"#,
        small,
        expect![[r#"
            big.js
              1-1 big | class - | fn -
              3-4 big.Big | class - | fn -
              4-7 big.Big | class in Big[4-19] | fn -
              9-16 big.Big.two | class in Big[4-19] | fn after one[5-7]
              17-19 big.Big | class in Big[4-19] | fn in two[10-18]
              21-21 big.tail | class after Big[4-19] | fn in tail[21-21]
        "#]],
    );
}

#[test]
fn type_facts_for_receiver_inference() {
    check_types(
        r#"
//- src/net/client.js
import { Session, makePool } from "./sessions";

export class Client {
  timeout = 1.0;
  registry = new Registry();

  constructor(session, retries) {
    this.session = session;
    this.pool = makePool(retries);
    this.cache = new Map();
  }

  open() {
    const conn = this.pool.connect();
    let lock = new Lock(), other = acquire();
    return conn;
  }
}

export function build(url) {
  var s = new sessions.Session(url);
  s = new Session();
  return new Client(s);
}
"#,
        expect![[r#"
            src/net/client.js
              5: registry : Registry (in Client)
              8: this.session = name session (in Client.constructor)
              9: this.pool = call makePool (in Client.constructor)
              10: this.cache : Map (in Client.constructor)
              14: conn = call this.pool.connect (in Client.open)
              15: lock : Lock (in Client.open)
              15: other = call acquire (in Client.open)
              21: s : sessions.Session (in build)
              22: s : Session (in build)
        "#]],
    );
}
