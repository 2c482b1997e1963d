//! The dependency graph end to end: fixture repositories (several files in
//! one string, `//- path` headers) are indexed with the real indexer into a
//! real SQLite file, then the edges and query answers are compared with
//! `expect!` snapshots. `UPDATE_EXPECT=1 cargo test` rewrites them.

mod common;

use common::{Fixture, check_edges, check_queries, render_edges};
use expect_test::expect;
use ken_graph::{Graph, SymbolRef};
use ken_store::Store;
use std::fmt::Write;

const SHOP: &str = r#"
//- shop/__init__.py
from .models import Order, Customer
from .service import checkout as do_checkout

//- shop/base.py
class Entity:
    def save(self):
        return self.validate()

    def validate(self):
        return True

//- shop/models.py
from .base import Entity


class Customer(Entity):
    def __init__(self, name: str):
        self.name = name

    def validate(self):
        return bool(self.name)


class Order(Entity):
    total: float = 0.0

    def __init__(self, customer: Customer):
        super().__init__()
        self.customer = customer
        self.lines = []

    def add(self, price):
        self.total += price
        return self

    @classmethod
    def empty(cls):
        return cls(Customer("nobody"))

//- shop/service.py
from shop import Order, Customer
from shop.payments import Gateway


def make_gateway() -> Gateway:
    return Gateway()


def checkout(name, prices):
    order = Order(Customer(name))
    for p in prices:
        order.add(p)
    order.customer.validate()
    gateway = make_gateway()
    gateway.charge(order)
    order.save()
    print(len(prices))
    return order

//- shop/payments.py
import logging


class Gateway:
    def charge(self, order):
        logging.info("charging")
        return self._send(order.total)

    def _send(self, amount):
        return amount

//- tests/test_service.py
from shop import do_checkout


def test_checkout():
    assert do_checkout("ann", [1, 2]).total == 3
"#;

#[test]
fn python_relations_across_files() {
    check_edges(
        SHOP,
        expect![[r#"
            shop -imports-> shop.models.Customer
            shop -imports-> shop.models.Order
            shop -imports-> shop.service.checkout
            shop.base.Entity.save -calls-> shop.base.Entity.validate
            shop.models -imports-> shop.base.Entity
            shop.models.Customer -derived_class_of-> shop.base.Entity
            shop.models.Customer.__init__ -construct-> shop.models.Customer
            shop.models.Customer.validate -overrides-> shop.base.Entity.validate
            shop.models.Order -derived_class_of-> shop.base.Entity
            shop.models.Order.__init__ -construct-> shop.models.Order
            shop.models.Order.add -uses-> shop.models.Order.total
            shop.models.Order.empty -instantiates-> shop.models.Customer
            shop.models.Order.empty -instantiates-> shop.models.Order
            shop.payments.Gateway.charge -calls-> shop.payments.Gateway._send
            shop.service -imports-> shop.models.Customer
            shop.service -imports-> shop.models.Order
            shop.service -imports-> shop.payments.Gateway
            shop.service.checkout -calls-> shop.base.Entity.save [type_inferred]
            shop.service.checkout -calls-> shop.models.Customer.validate [type_inferred]
            shop.service.checkout -calls-> shop.models.Order.add [type_inferred]
            shop.service.checkout -calls-> shop.payments.Gateway.charge [type_inferred]
            shop.service.checkout -calls-> shop.service.make_gateway
            shop.service.checkout -instantiates-> shop.models.Customer
            shop.service.checkout -instantiates-> shop.models.Order
            shop.service.make_gateway -instantiates-> shop.payments.Gateway
            tests.test_service -imports-> shop.service.checkout
            tests.test_service.test_checkout -calls-> shop.service.checkout
            unresolved:
            shop.models.Customer.validate -calls-> ?bool
            shop.models.Order.__init__ -calls-> ?__init__
            shop.models.Order.__init__ -calls-> ?super
            shop.payments -imports-> ?logging
            shop.payments.Gateway.charge -calls-> ?info
            shop.service.checkout -calls-> ?len
            shop.service.checkout -calls-> ?print
        "#]],
    );
}

/// Pluggable classes, flask's way: a class-level field or a `type[X]`
/// parameter holds a class, and calling it makes one.
#[test]
fn python_classes_held_by_fields_and_parameters() {
    check_edges(
        r#"
//- app/config.py
class Config:
    def __init__(self, root):
        self.root = root

//- app/app.py
from .config import Config


class Session:
    pass


class App:
    config_class = Config
    session_class: type[Session] = Session
    name = "app"

    def make_config(self):
        return self.config_class("/")

    def open_session(self):
        return self.session_class()


def build(kind: type[Session], other: Session):
    return kind()
"#,
        expect![[r#"
            app.app -imports-> app.config.Config
            app.app.App -uses-> app.app.Session
            app.app.App -uses-> app.config.Config
            app.app.App.make_config -instantiates-> app.config.Config
            app.app.App.open_session -instantiates-> app.app.Session
            app.app.build -instantiates-> app.app.Session [type_inferred]
            app.config.Config.__init__ -construct-> app.config.Config
        "#]],
    );
}

#[test]
fn python_queries() {
    check_queries(
        SHOP,
        "
        callers shop.base.Entity.validate
        callers shop.payments.Gateway._send 3
        callees shop.service.checkout
        subclasses shop.base.Entity
        superclasses Customer
        overrides shop.base.Entity.validate
        refs shop.models.Order
        path test_checkout shop.payments.Gateway._send
        tests shop.payments.Gateway.charge
        untested
        callers validate
        callers Ordr
        callers shop/models.py:18
        ",
        expect![[r#"
            > callers shop.base.Entity.validate
              CalledBy shop.base.Entity.save (shop/base.py:3)
            > callers shop.payments.Gateway._send 3
              CalledBy shop.payments.Gateway.charge (shop/payments.py:7)
                CalledBy shop.service.checkout (shop/service.py:15)
                  CalledBy tests.test_service.test_checkout (tests/test_service.py:5)
            > callees shop.service.checkout
              Instantiates shop.models.Order (shop/service.py:10)
              Instantiates shop.models.Customer (shop/service.py:10)
              Calls shop.models.Order.add (shop/service.py:12)
              Calls shop.models.Customer.validate (shop/service.py:13)
              Calls shop.service.make_gateway (shop/service.py:14)
              Calls shop.payments.Gateway.charge (shop/service.py:15)
              Calls shop.base.Entity.save (shop/service.py:16)
            > subclasses shop.base.Entity
              BaseClassOf shop.models.Customer (shop/models.py:4)
              BaseClassOf shop.models.Order (shop/models.py:12)
            > superclasses Customer
              DerivedClassOf shop.base.Entity (shop/models.py:4)
            > overrides shop.base.Entity.validate
              OverriddenBy shop.models.Customer.validate (shop/models.py:8)
            > refs shop.models.Order
              Imports shop (shop/__init__.py:1)
              Instantiates shop.models.Order.empty (shop/models.py:26)
              Imports shop.service (shop/service.py:1)
              Instantiates shop.service.checkout (shop/service.py:10)
            > path test_checkout shop.payments.Gateway._send
              Calls shop.service.checkout (tests/test_service.py:5)
                Calls shop.payments.Gateway.charge (shop/service.py:15)
                  Calls shop.payments.Gateway._send (shop/payments.py:7)
            > tests shop.payments.Gateway.charge
                CalledBy tests.test_service.test_checkout (tests/test_service.py:5)
            > untested
              shop.models.Order.empty
            > callers validate
              error: `validate` names 2 symbols; pass a qualified name or PATH:LINE:
              method shop.base.Entity.validate (shop/base.py:5)
              method shop.models.Customer.validate (shop/models.py:8)
            > callers Ordr
              error: no symbol matches `Ordr`; did you mean: shop.models.Order?
            > callers shop/models.py:18
              InstantiatedBy shop.models.Order.empty (shop/models.py:26)
              InstantiatedBy shop.service.checkout (shop/service.py:10)
        "#]],
    );
}

#[test]
fn cycles_terminate() {
    check_queries(
        r#"
//- a.py
from b import g

class A(B):
    def f(self):
        return g()

//- b.py
from a import A

class B(A):
    pass

def g():
    return g()
"#,
        "
        callers b.g 10
        callees a.A.f 10
        subclasses a.A
        superclasses a.A
        path a.A.f b.g
        ",
        expect![[r#"
            > callers b.g 10
              CalledBy a.A.f (a.py:5)
            > callees a.A.f 10
              Calls b.g (a.py:5)
            > subclasses a.A
              BaseClassOf b.B (b.py:3)
            > superclasses a.A
              DerivedClassOf b.B (a.py:3)
            > path a.A.f b.g
              Calls b.g (a.py:5)
        "#]],
    );
}

#[test]
fn editing_a_file_relinks_what_depends_on_it() {
    let f = Fixture::new(
        r#"
//- lib.py
def helper():
    return 1

//- app.py
from lib import helper, later

def main():
    return helper() + later()
"#,
    );
    let before = render_edges(&f.store());
    // `later` appears in lib.py: app.py must resolve again although it did not change.
    f.write("//- lib.py\ndef helper():\n    return 1\n\ndef later():\n    return 2\n");
    let summary = f.index();
    let after = render_edges(&f.store());
    // Deleting lib.py leaves app.py's references unresolved, not dangling.
    f.write("//- lib.py\n");
    f.index();
    let deleted = render_edges(&f.store());
    expect![[r#"
        app -imports-> lib
        app -imports-> lib.helper
        app.main -calls-> lib.helper
        unresolved:
        app.main -calls-> ?later
        --- lib.py gains later (files linked: 2)
        app -imports-> lib.helper
        app -imports-> lib.later
        app.main -calls-> lib.helper
        app.main -calls-> lib.later
        --- lib.py deleted

        unresolved:
        app -imports-> ?helper
        app -imports-> ?later
        app.main -calls-> ?helper
        app.main -calls-> ?later
    "#]]
    .assert_eq(&format!(
        "{before}--- lib.py gains later (files linked: {})\n{after}--- lib.py deleted\n{deleted}",
        summary.graph.files_linked
    ));
}

#[test]
fn typescript_imports_classes_and_this() {
    check_edges(
        r#"
//- src/base.ts
export class Shape {
  area(): number { return 0; }
  describe(): string { return `area ${this.area()}`; }
}

//- src/circle.ts
import { Shape } from "./base";
import * as util from "./util";

export class Circle extends Shape {
  constructor(private r: number) { super(); }
  area(): number { return util.square(this.r) * Math.PI; }
}

export function make(r: number): Circle {
  const c = new Circle(r);
  c.describe();
  return c;
}

//- src/util/index.ts
export function square(x: number): number { return x * x; }
"#,
        expect![[r#"
            src/base.Shape.describe -calls-> src/base.Shape.area
            src/circle -imports-> src/base.Shape
            src/circle -imports-> src/util
            src/circle.Circle -derived_class_of-> src/base.Shape
            src/circle.Circle.area -calls-> src/util.square
            src/circle.Circle.area -overrides-> src/base.Shape.area
            src/circle.Circle.constructor -construct-> src/circle.Circle
            src/circle.Circle.constructor -instantiates-> src/base.Shape
            src/circle.make -calls-> src/base.Shape.describe [type_inferred]
            src/circle.make -instantiates-> src/circle.Circle
        "#]],
    );
}

/// A TypeScript parameter property (`constructor(protected scheduler:
/// Queue)`) is a field: `this.scheduler.flush()` is a call of `Queue`'s
/// `flush`, inherited from its base.
#[test]
fn typescript_parameter_properties_type_their_fields() {
    check_edges(
        r#"
//- src/queue.ts
export class Scheduler {
  flush(): void {}
}
export class Queue extends Scheduler {}
export class Action {
  constructor(protected scheduler: Queue) {}
  run(): void { this.scheduler.flush(); }
}
"#,
        expect![[r#"
            src/queue.Action.constructor -construct-> src/queue.Action
            src/queue.Action.run -calls-> src/queue.Scheduler.flush [type_inferred]
            src/queue.Queue -derived_class_of-> src/queue.Scheduler
        "#]],
    );
}

/// `X.prototype.m` names the method every instance of `X` shares: in a
/// type (`typeof TestScheduler.prototype.flush`) as in a call.
#[test]
fn typescript_prototype_members_bind() {
    check_edges(
        r#"
//- src/scheduler.ts
export class TestScheduler {
  flush(): void {}
}
export interface RunHelpers {
  flush: typeof TestScheduler.prototype.flush;
}
export function run(s: TestScheduler): void {
  TestScheduler.prototype.flush.call(s);
}
"#,
        expect![[r#"
            src/scheduler.RunHelpers -uses-> src/scheduler.TestScheduler.flush
            src/scheduler.run -uses-> src/scheduler.TestScheduler.flush
            unresolved:
            src/scheduler.run -calls-> ?call
        "#]],
    );
}

/// A CommonJS `require` or a default import binds the module's one export:
/// the class or function of the local name, as `module.exports = Pool`
/// and `export default class Shape` write it. A namespace import binds the
/// module, even one holding a function of that name (svelte's `e`).
#[test]
fn javascript_requires_and_default_imports_name_the_exported_class() {
    check_edges(
        r#"
//- lib/dispatcher.js
module.exports = class Dispatcher {
  connect (opts) { return opts }
}

//- lib/pool.js
'use strict'
const Dispatcher = require('./dispatcher')
const util = require('./util')
class Pool extends Dispatcher {
  dispatch (opts) { return util.wrap(this.connect(opts)) }
}
module.exports = Pool

//- lib/util.js
function wrap (x) { return x }
module.exports = { wrap }

//- lib/mock-pool.js
const Pool = require('./pool')
class MockPool extends Pool {}
function make () { return new MockPool() }
module.exports = { MockPool, make }

//- src/shapes.js
export default class Shape {}

//- src/circle.js
import Shape from './shapes'
import * as e from './errors.js'
export class Circle extends Shape {
  grow () { e.too_big(this) }
}

//- src/errors.js
function e (node, code) { throw new Error(code) }
export function too_big (node) { e(node, 'too_big') }
"#,
        expect![[r#"
            lib/mock-pool -imports-> lib/pool
            lib/mock-pool -uses-> lib/mock-pool.MockPool
            lib/mock-pool -uses-> lib/mock-pool.make
            lib/mock-pool.MockPool -derived_class_of-> lib/pool.Pool
            lib/mock-pool.make -instantiates-> lib/mock-pool.MockPool
            lib/pool -imports-> lib/dispatcher
            lib/pool -imports-> lib/util
            lib/pool -uses-> lib/pool.Pool
            lib/pool.Pool -derived_class_of-> lib/dispatcher.Dispatcher
            lib/pool.Pool.dispatch -calls-> lib/dispatcher.Dispatcher.connect
            lib/pool.Pool.dispatch -calls-> lib/util.wrap
            lib/util -uses-> lib/util.wrap
            src/circle -imports-> src/errors
            src/circle -imports-> src/shapes.Shape
            src/circle.Circle -derived_class_of-> src/shapes.Shape
            src/circle.Circle.grow -calls-> src/errors.too_big
            src/errors.too_big -calls-> src/errors.e
            unresolved:
            src/errors.e -instantiates-> ?Error
        "#]],
    );
}

/// A plain object used as a namespace: functions assigned into it are
/// called through it, in its own file and through an import (renamed or
/// not). A `.d.ts` that types the same names is no rival to the code.
#[test]
fn javascript_calls_through_a_namespace_object_reach_the_assigned_function() {
    check_edges(
        r#"
//- lib/webidl.js
const webidl = { errors: {}, util: {} }
webidl.errors.exception = function (message) { return new TypeError(message) }
webidl.util.Type = function (V) { return typeof V }
webidl.brandCheck = function (V) {
  if (webidl.util.Type(V) !== 'object') throw webidl.errors.exception('not an object')
}
module.exports = { webidl }

//- lib/request.js
const { webidl } = require('./webidl')
const { webidl: idl } = require('./webidl')
function check (x) {
  webidl.brandCheck(x)
  idl.errors.exception('bad')
  webidl.util.exception('no such path')
}
function render (f) { return f.formatValue(1) }

//- lib/format.js
class Formatter { formatValue (x) { return x } }

//- types/webidl.d.ts
interface WebidlErrors { exception (message: string): TypeError }
interface Formatter { formatValue (x: unknown): string }
"#,
        expect![[r#"
            lib/request -imports-> lib/webidl
            lib/request.check -calls-> lib/webidl.brandCheck
            lib/request.check -calls-> lib/webidl.exception
            lib/request.render -calls-> lib/format.Formatter.formatValue [unique_name]
            lib/webidl.brandCheck -calls-> lib/webidl.Type
            lib/webidl.brandCheck -calls-> lib/webidl.exception
            unresolved:
            lib/request.check -calls-> ?exception
            lib/webidl.exception -instantiates-> ?TypeError
        "#]],
    );
}

/// Reading a property runs its accessor: `callers` lists the reads. A
/// function defined once per `#if` branch has the calls of the name, which
/// resolve to its first definition. A JavaScript override has the calls of
/// the method it overrides, which may run it, and the overridden method
/// those of its overrides (tsserver counts both).
#[test]
fn callers_count_property_reads_and_every_if_branch() {
    check_queries(
        r#"
//- lib/request.js
class Request {
  get method () { return this.state.method }
  inspect () { return { method: this.method } }
}
function describe (r = new Request()) { return r.method }
module.exports = { Request, describe }

//- lib/handler.js
class Handler {
  onStart () {}
  dispatch () { this.onStart() }
}
class DumpHandler extends Handler {
  onStart () { super.onStart() }
}
function dump () { new DumpHandler().onStart() }
module.exports = { Handler, DumpHandler, dump }

//- shop/item.py
class Item:
    @property
    def price(self):
        return 1

    def total(self, n):
        return self.price * n

//- src/read.c
#if defined(FAST)
static int read16(const void* p) { return 1; }
#else
static int read16(const void* p) { return 2; }
#endif
int read_le16(const void* p) { return read16(p); }
"#,
        "callers lib/request.Request.method\ncallers shop.item.Item.price\ncallers src/read.c:4\ncallers lib/handler.DumpHandler.onStart\ncallers lib/handler.Handler.onStart",
        expect![[r#"
            > callers lib/request.Request.method
              UsedBy lib/request.Request.inspect (lib/request.js:3)
            > callers shop.item.Item.price
              UsedBy shop.item.Item.total (shop/item.py:7)
            > callers src/read.c:4
              CalledBy read_le16 (src/read.c:6)
            > callers lib/handler.DumpHandler.onStart
              CalledBy lib/handler.dump (lib/handler.js:8)
              CalledBy lib/handler.Handler.dispatch (lib/handler.js:3)
            > callers lib/handler.Handler.onStart
              CalledBy lib/handler.Handler.dispatch (lib/handler.js:3)
              CalledBy lib/handler.DumpHandler.onStart (lib/handler.js:6)
              CalledBy lib/handler.dump (lib/handler.js:8)
        "#]],
    );
}

/// A Go type satisfies an interface by its method set: a call through the
/// interface's method counts for the type's method of that name, and the
/// other way round (gopls's call hierarchy), even where the type's methods
/// are declared in another file; a type short of one method does not. A
/// method value (`w.Len`) counts as a call, as gopls counts it. The
/// interface's subclasses are the types that satisfy it: an interface
/// with more methods, and a struct through the methods its embedded field
/// promotes (`Step`). A method named like its interface (`Marker`) counts.
#[test]
fn go_callers_cross_interfaces_a_type_satisfies() {
    check_queries(
        r#"
//- text/node.go
package text

type Node interface {
	Len() int
	String() string
}

type Wrap struct{ Value Node }

func (w *Wrap) Len() int { return w.Value.Len() }

type Short struct{}

func (s Short) Len() int { return 0 }

type Resettable interface {
	Len() int
	String() string
	Reset()
}

type base struct{}

func (base) Len() int { return 1 }

func (base) String() string { return "" }

type Step struct{ base }

type Marker interface{ Marker() }

type marked struct{}

func (marked) Marker() {}

//- text/wrap_string.go
package text

func (w *Wrap) String() string { return "" }

//- text/use.go
package text

func Measure(n Node) int { return n.Len() }

func Show(w *Wrap) string { return w.String() }

func Zero(s Short) int { return s.Len() }

func Lazy(w *Wrap) func() int { return w.Len }
"#,
        "callers text.Wrap.Len\ncallers text.Node.String\ncallers text.Short.Len\nsubclasses text.Node\nsubclasses text.Marker\ncallers text.base.Len",
        expect![[r#"
            > callers text.Wrap.Len
              UsedBy text.Lazy (text/use.go:9)
              CalledBy text.Measure (text/use.go:3)
            > callers text.Node.String
              CalledBy text.Show (text/use.go:5)
            > callers text.Short.Len
              CalledBy text.Zero (text/use.go:7)
            > subclasses text.Node
              BaseClassOf text.Wrap (text/node.go:8)
              BaseClassOf text.Resettable (text/node.go:16)
              BaseClassOf text.base (text/node.go:22)
              BaseClassOf text.Step (text/node.go:28)
            > subclasses text.Marker
              BaseClassOf text.marked (text/node.go:32)
            > callers text.base.Len
              CalledBy text.Wrap.Len (text/node.go:10)
              CalledBy text.Measure (text/use.go:3)
        "#]],
    );
}

/// A C call reaches the definition in a source file through the header's
/// prototype, or the first of one file's `#if` branches; two definitions
/// of the name in two files (static helpers) stay unresolved.
#[test]
fn c_calls_reach_the_definition_behind_a_prototype() {
    check_edges(
        r#"
//- lib/util.h
int add(int a, int b);
int helper(void);
#ifdef _WIN32
static void pause_ms(int ms) { Sleep(ms); }
#else
static void pause_ms(int ms) { usleep(ms * 1000); }
#endif

//- lib/util.c
#include "util.h"
int add(int a, int b) { return a + b; }
#if defined(FAST)
int fill(int n) { return n; }
#else
int fill(int n) { return n + 1; }
#endif

//- lib/one.c
static int helper(void) { return 1; }

//- lib/two.c
static int helper(void) { return 2; }

//- app/main.c
#include "util.h"
int main(void) { pause_ms(1); return add(1, 2) + helper() + fill(3); }
"#,
        expect![[r#"
            app/main -imports-> lib/util
            lib/util -imports-> lib/util
            main -calls-> add [unique_name]
            main -calls-> fill [unique_name]
            main -calls-> pause_ms [unique_name]
            unresolved:
            main -calls-> ?helper
            pause_ms -calls-> ?Sleep
            pause_ms -calls-> ?usleep
        "#]],
    );
}

#[test]
fn rust_use_paths_impls_and_self() {
    check_edges(
        r#"
//- Cargo.toml
[package]
name = "geo"

//- src/lib.rs
pub mod shapes;
use crate::shapes::Circle;

pub fn total(r: f64) -> f64 {
    let c = Circle::new(r);
    c.area()
}

//- src/shapes.rs
pub trait Area {
    fn area(&self) -> f64;
}

pub struct Circle {
    r: f64,
}

impl Circle {
    pub fn new(r: f64) -> Self {
        Circle { r }
    }

    fn scaled(&self, k: f64) -> Self {
        Self::new(self.r * k)
    }
}

impl Area for Circle {
    fn area(&self) -> f64 {
        3.14 * self.r * self.r
    }
}
"#,
        expect![[r#"
            crate -imports-> crate::shapes
            crate -imports-> crate::shapes::Circle
            crate::shapes::Circle -derived_class_of-> crate::shapes::Area
            crate::shapes::Circle::area -overrides-> crate::shapes::Area::area
            crate::shapes::Circle::area -uses-> crate::shapes::Circle::r
            crate::shapes::Circle::new -construct-> crate::shapes::Circle
            crate::shapes::Circle::new -instantiates-> crate::shapes::Circle
            crate::shapes::Circle::scaled -calls-> crate::shapes::Circle::new
            crate::shapes::Circle::scaled -uses-> crate::shapes::Circle::r
            crate::total -calls-> crate::shapes::Circle::area [type_inferred]
            crate::total -calls-> crate::shapes::Circle::new
        "#]],
    );
}

/// An `impl` in another file than its type's (`impl Display for Version`
/// in `display.rs`): `self` is the type the module imports, so its field
/// reads and method calls bind.
#[test]
fn rust_impls_in_another_file_type_self() {
    check_edges(
        r#"
//- Cargo.toml
[package]
name = "semver"

//- src/lib.rs
mod display;

pub struct Version {
    pub build: String,
}

impl Version {
    pub fn is_empty(&self) -> bool {
        self.build.is_empty()
    }
}

//- src/display.rs
use crate::Version;
use core::fmt::{self, Display};

impl Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if !self.is_empty() {
            write!(f, "+{}", self.build)?;
        }
        Ok(())
    }
}
"#,
        expect![[r#"
            crate -imports-> crate::display
            crate::Version::is_empty -uses-> crate::Version::build
            crate::display -imports-> crate::Version
            crate::display::Version::fmt -calls-> crate::Version::is_empty
            crate::display::Version::fmt -uses-> crate::Version::build
            unresolved:
            crate::Version::is_empty -calls-> ?is_empty
            crate::display -derived_class_of-> ?Display
            crate::display -imports-> ?Display
            crate::display -imports-> ?core::fmt
            crate::display::Version::fmt -calls-> ?Ok
            crate::display::Version::fmt -calls-> ?write
        "#]],
    );
}

#[test]
fn go_packages_and_java_hierarchies() {
    check_edges(
        r#"
//- store/store.go
package store

type Store struct{ items map[string]int }

func New() *Store { return &Store{items: map[string]int{}} }

func (s *Store) Put(k string, v int) { s.items[k] = v }

//- cmd/main.go
package main

import "example.com/app/store"

func main() {
	s := store.New()
	s.Put("a", 1)
}

//- src/com/acme/Animal.java
package com.acme;

public abstract class Animal {
    public abstract String sound();
    public String speak() { return sound(); }
}

//- src/com/acme/Dog.java
package com.acme;

import java.util.List;

public class Dog extends Animal {
    @Override
    public String sound() { return "woof"; }

    public static Dog make() { return new Dog(); }
}
"#,
        expect![[r#"
            cmd -imports-> store
            cmd.main -calls-> store.New
            cmd.main -calls-> store.Store.Put [type_inferred]
            com.acme.Animal.speak -calls-> com.acme.Animal.sound
            com.acme.Dog -derived_class_of-> com.acme.Animal
            com.acme.Dog.make -instantiates-> com.acme.Dog
            com.acme.Dog.sound -overrides-> com.acme.Animal.sound
            store.New -instantiates-> store.Store
            store.Store.Put -uses-> store.Store.items [type_inferred]
            unresolved:
            com.acme -imports-> ?List
        "#]],
    );
}

/// An index linked by an older resolver (another `resolver` in its meta)
/// links every file again on the next run, once, with the same edges.
#[test]
fn an_index_an_older_resolver_linked_links_again() {
    let f = Fixture::new(SHOP);
    let before = render_edges(&f.store());
    let files = |summary: ken_index::IndexSummary| summary.graph.files_linked;
    assert_eq!(files(f.index()), 0, "nothing changed, nothing links");
    Store::open_for_write(&f.index_dir()).unwrap().set_meta("resolver", "0").unwrap();
    assert_eq!(files(f.index()), f.store().file_paths().unwrap().len() as u64, "every file links again");
    assert_eq!(files(f.index()), 0, "then only once");
    assert_eq!(render_edges(&f.store()), before);
}

#[test]
fn unknown_and_ambiguous_symbols_say_what_to_do() {
    let f = Fixture::new(SHOP);
    let store = f.store();
    let graph = Graph::new(&store);
    let mut out = String::new();
    for query in ["Ordr", "validate", "nope/file.py:3", "shop/models.py:999"] {
        match graph.resolve(&SymbolRef::parse(query)) {
            Ok(s) => writeln!(out, "{query}: {}", s.qualified_name).unwrap(),
            Err(e) => writeln!(out, "{query}: {e}").unwrap(),
        }
    }
    expect![[r#"
        Ordr: no symbol matches `Ordr`; did you mean: shop.models.Order?
        validate: `validate` names 2 symbols; pass a qualified name or PATH:LINE:
          method shop.base.Entity.validate (shop/base.py:5)
          method shop.models.Customer.validate (shop/models.py:8)
        nope/file.py:3: nope/file.py is not in the index; check the path, or run `ken index` if the file is new
        shop/models.py:999: no symbol matches `shop/models.py:999`; did you mean: line 999 is past the end of shop/models.py?
    "#]]
    .assert_eq(&out);
}

#[test]
fn a_body_edit_keeps_dependents_and_their_edges() {
    let f = Fixture::new(
        r#"
//- lib.py
class Base:
    def run(self):
        return 1

//- app.py
from lib import Base

class App(Base):
    def run(self):
        return super().run() + 1

def main():
    return App().run()
"#,
    );
    let before = render_edges(&f.store());
    // Only a body changes: app.py keeps its edges into lib.py (whose symbols
    // got new rows) without resolving again.
    f.write("//- lib.py\nclass Base:\n    def run(self):\n        return 2 * 21\n");
    let summary = f.index();
    let after = render_edges(&f.store());
    assert_eq!(before, after);
    // A signature-level change (a new method) relinks the dependents.
    f.write("//- lib.py\nclass Base:\n    def run(self):\n        return 2 * 21\n\n    def stop(self):\n        pass\n");
    let changed = f.index();
    expect![[r#"
        body edit: files linked 1
        interface edit: files linked 2
        app -imports-> lib.Base
        app.App -derived_class_of-> lib.Base
        app.App.run -calls-> lib.Base.run
        app.App.run -overrides-> lib.Base.run
        app.main -calls-> app.App.run
        app.main -instantiates-> app.App
        unresolved:
        app.App.run -calls-> ?super
    "#]]
    .assert_eq(&format!(
        "body edit: files linked {}\ninterface edit: files linked {}\n{after}",
        summary.graph.files_linked, changed.graph.files_linked
    ));
}

/// CodePlan's incremental update (Table 1, third column) against a fresh
/// index: after each edit, the graph the incremental run leaves must equal
/// the graph of the edited tree indexed from scratch. Each edit is one or
/// more atomic changes; the override cases are AM and DM of an overriding
/// method, whose callers through a subclass receiver move to it and back.
#[test]
fn incremental_updates_equal_a_fresh_index() {
    let base = r#"
//- zoo/base.py
class Animal:
    def speak(self):
        return "..."

    def feed(self, food):
        self.food = food

//- zoo/dog.py
from zoo.base import Animal


class Dog(Animal):
    def fetch(self):
        return "ball"

//- zoo/park.py
from zoo.dog import Dog


def visit():
    d: Dog = Dog()
    d.speak()
    d.feed("bone")
    return d.fetch()
"#;
    let edits = [
        // AM of an overriding method: `d.speak()` now calls Dog.speak.
        (
            "AM overriding",
            "//- zoo/dog.py\nfrom zoo.base import Animal\n\n\nclass Dog(Animal):\n    def fetch(self):\n        return \"ball\"\n\n    def speak(self):\n        return \"woof\"\n",
        ),
        // MMS: a parameter added.
        (
            "MMS",
            "//- zoo/base.py\nclass Animal:\n    def speak(self, loud=False):\n        return \"...\"\n\n    def feed(self, food):\n        self.food = food\n",
        ),
        // DM of the overriding method: back to Animal.speak.
        (
            "DM overriding",
            "//- zoo/dog.py\nfrom zoo.base import Animal\n\n\nclass Dog(Animal):\n    def fetch(self):\n        return \"ball\"\n",
        ),
        // AF and MMB in one edit; AC of a new class used by the park.
        (
            "AF MMB AC",
            "//- zoo/base.py\nclass Animal:\n    legs = 4\n\n    def speak(self, loud=False):\n        return \"...\" if not loud else \"!!!\"\n\n    def feed(self, food):\n        self.food = food\n        self.legs = 4\n\n\nclass Keeper:\n    def feed_all(self, animals):\n        for a in animals:\n            a.feed(\"hay\")\n",
        ),
        (
            "AI",
            "//- zoo/park.py\nfrom zoo.dog import Dog\nfrom zoo.base import Keeper\n\n\ndef visit():\n    d: Dog = Dog()\n    d.speak()\n    Keeper().feed_all([d])\n    return d.fetch()\n",
        ),
        // DC: the keeper's class is gone; its uses stay, unresolved.
        (
            "DC",
            "//- zoo/base.py\nclass Animal:\n    legs = 4\n\n    def speak(self, loud=False):\n        return \"...\"\n\n    def feed(self, food):\n        self.food = food\n",
        ),
        // DI and MC: the park stops importing the keeper; Dog gets a second base.
        (
            "DI MC",
            "//- zoo/park.py\nfrom zoo.dog import Dog\n\n\ndef visit():\n    d: Dog = Dog()\n    d.speak()\n    return d.fetch()\n//- zoo/dog.py\nfrom zoo.base import Animal\n\n\nclass Pet:\n    def name(self):\n        return \"rex\"\n\n\nclass Dog(Animal, Pet):\n    def fetch(self):\n        return self.name()\n",
        ),
    ];
    let incremental = Fixture::new(base);
    let mut tree = base.to_string();
    let mut differences = Vec::new();
    for (label, edit) in edits {
        incremental.write(edit);
        incremental.index();
        // The same tree, written whole and indexed from scratch.
        for (path, text) in ken_test_support::files(edit) {
            tree = replace_file(&tree, &path, &text);
        }
        let fresh = Fixture::new(&tree);
        let (got, want) = (render_edges(&incremental.store()), render_edges(&fresh.store()));
        if got != want {
            differences.push(format!("after {label}:\n--- incremental\n{got}--- fresh\n{want}"));
        }
        if label == "AM overriding" {
            // The call through a `Dog` receiver moved to the new override.
            assert!(got.contains("zoo.park.visit -calls-> zoo.dog.Dog.speak"), "{got}");
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
    // And the override cases did what Table 1 says.
    let edges = render_edges(&incremental.store());
    assert!(edges.contains("zoo.park.visit -calls-> zoo.base.Animal.speak"), "{edges}");
}

/// `fixture` with the file at `path` replaced by `text` (or added).
fn replace_file(fixture: &str, path: &str, text: &str) -> String {
    let mut files = ken_test_support::files(fixture);
    match files.iter_mut().find(|(p, _)| p == path) {
        Some(file) => file.1 = text.to_string(),
        None => files.push((path.to_string(), text.to_string())),
    }
    files.iter().map(|(p, t)| format!("//- {p}\n{t}")).collect()
}

/// Parent edges: a symbol's own parent is implied by the symbol tree (not
/// stored), a Go method declared in another file than its type keeps the
/// type as its parent, and every read (all edges, from, to) sees both.
#[test]
fn parent_edges_implied_and_adopted() {
    let f = Fixture::new(
        r#"
//- store/store.go
package store

type Store struct{ items map[string]int }

//- store/put.go
package store

func (s *Store) Put(k string, v int) { s.items[k] = v }

//- shop.py
class Cart:
    def add(self, item):
        pass
"#,
    );
    let store = f.store();
    let names: std::collections::HashMap<i64, String> =
        store.graph_symbols().unwrap().into_iter().map(|s| (s.id, s.qualified_name)).collect();
    let render = |edges: Vec<ken_store::EdgeRow>| {
        let mut lines: Vec<String> = edges
            .into_iter()
            .filter(|e| e.relation == ken_core::Relation::ParentOf)
            .map(|e| format!("{} -> {} ({}:{})", names[&e.src], names[&e.dst.unwrap()], e.path, e.line))
            .collect();
        lines.sort();
        lines.join("\n") + "\n"
    };
    let mut out = render(store.all_edges().unwrap());
    let id = |q: &str| *names.iter().find(|(_, n)| n.as_str() == q).unwrap().0;
    for q in ["shop.Cart", "store.Store"] {
        writeln!(out, "from {q}: {}", render(store.edges_from(id(q), &[ken_core::Relation::ParentOf]).unwrap()).trim()).unwrap();
    }
    writeln!(out, "to store.Store.Put: {}", render(store.edges_to(id("store.Store.Put"), &[]).unwrap()).trim()).unwrap();
    expect![[r#"
        shop -> shop.Cart (shop.py:1)
        shop.Cart -> shop.Cart.add (shop.py:2)
        store -> store.Store (store/store.go:3)
        store.Store -> store.Store.Put (store/put.go:3)
        store.Store -> store.Store.items (store/store.go:3)
        from shop.Cart: shop.Cart -> shop.Cart.add (shop.py:2)
        from store.Store: store.Store -> store.Store.Put (store/put.go:3)
        store.Store -> store.Store.items (store/store.go:3)
        to store.Store.Put: store.Store -> store.Store.Put (store/put.go:3)
    "#]]
    .assert_eq(&out);
}
