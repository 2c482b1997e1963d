//! ClassifyChanges, one case a fixture: `//- before/<path>` and
//! `//- after/<path>` (a side left out is an empty file), and the labels
//! expected, one line each: `path LABEL symbol [in container] {escapes}`.
//! The last test checks that every label is exercised at least 3 times.

use expect_test::{Expect, expect};
use ken_change::{ChangeLabel, classify};
use std::cell::RefCell;
use std::collections::BTreeMap;

thread_local! {
    /// Labels the cases run on this thread produced, for the coverage check.
    static SEEN: RefCell<BTreeMap<ChangeLabel, usize>> = const { RefCell::new(BTreeMap::new()) };
    /// Set by the coverage check: count labels, leave the snapshots to their own tests.
    static COUNT_ONLY: RefCell<bool> = const { RefCell::new(false) };
}

fn check(fixture: &str, expect: Expect) {
    let mut versions: BTreeMap<String, (String, String)> = BTreeMap::new();
    for (path, text) in ken_test_support::files(fixture) {
        let (side, rest) = path.split_once('/').expect("before/ or after/");
        let entry = versions.entry(rest.to_string()).or_default();
        match side {
            "before" => entry.0 = text,
            "after" => entry.1 = text,
            other => panic!("unknown side {other}"),
        }
    }
    let mut lines = Vec::new();
    for (path, (before, after)) in &versions {
        let language = ken_lang::detect(std::path::Path::new(path)).expect("a known language");
        for c in classify(path, language, before, after) {
            SEEN.with(|seen| *seen.borrow_mut().entry(c.label).or_default() += 1);
            let container = c.container.as_deref().map(|k| format!(" in {k}")).unwrap_or_default();
            let escapes: Vec<String> =
                c.escaping.iter().map(|e| format!("{:?} {}@{}", e.kind, e.name, e.line).replace(" @", "@")).collect();
            let escapes = if escapes.is_empty() { String::new() } else { format!(" {{{}}}", escapes.join(", ")) };
            lines.push(format!("{path} {} {}{container}{escapes}", c.label, c.symbol));
        }
    }
    if lines.is_empty() {
        lines.push("no changes".to_string());
    }
    if !COUNT_ONLY.with(|c| *c.borrow()) {
        expect.assert_eq(&(lines.join("\n") + "\n"));
    }
}

// ---------------------------------------------------------------- Python

#[test]
fn python_methods_signatures_and_bodies() {
    check(
        r#"
//- before/shop/cart.py
class Cart:
    def total(self, prices):
        return sum(prices)

    def add(self, item):
        self.items.append(item)

    def log(self, message):
        print(message)

    def clear(self):
        pass
//- after/shop/cart.py
class Cart:
    def total(self, prices, tax=0):
        return sum(prices)

    def add(self, item):
        self.items.append(item)
        self.count += 1

    def log(self, message):
        text = message.upper()
        print(text)

    def discount(self, rate):
        return rate
"#,
        expect![[r#"
            shop/cart.py MMS shop.cart.Cart.total in shop.cart.Cart
            shop/cart.py MMB shop.cart.Cart.add in shop.cart.Cart {Field count@7}
            shop/cart.py MMB shop.cart.Cart.log in shop.cart.Cart
            shop/cart.py DM shop.cart.Cart.clear in shop.cart.Cart
            shop/cart.py AM shop.cart.Cart.discount in shop.cart.Cart
        "#]],
    );
}

#[test]
fn python_escaping_objects() {
    check(
        r#"
//- before/calc.py
LIMIT = 10
hits = 0


def clamp(value):
    return min(value, LIMIT)


def fill(items, n):
    for i in range(n):
        print(i)


def count():
    global hits
    print(hits)
//- after/calc.py
LIMIT = 10
hits = 0


def clamp(value):
    return max(min(value, LIMIT), 0)


def fill(items, n):
    for i in range(n):
        items.append(i)


def count():
    global hits
    hits += 1
"#,
        expect![[r#"
            calc.py MMB calc.clamp {Return@6}
            calc.py MMB calc.fill {Parameter items@11}
            calc.py MMB calc.count {Global hits@16}
        "#]],
    );
}

#[test]
fn python_classes_fields_constructors_imports() {
    check(
        r#"
//- before/models.py
import os
from json import dumps
from typing import List


class Base:
    pass


class User(Base):
    name = ""
    age = 0

    def __init__(self, name):
        self.name = name


class Old:
    def run(self):
        pass
//- after/models.py
import os
from simplejson import dumps
import re


class Base:
    pass


class User(Base, Mixin):
    name = "anonymous"
    email = None

    def __init__(self, name, email):
        self.name = name


class Fresh:
    def __init__(self):
        pass
"#,
        expect![[r#"
            models.py MI dumps
            models.py AI re
            models.py DI List
            models.py MC models.User
            models.py MF models.User.name in models.User
            models.py AF models.User.email in models.User
            models.py DF models.User.age in models.User
            models.py MCC models.User.__init__ in models.User
            models.py AC models.Fresh
            models.py DC models.Old
            models.py ACC models.Fresh.__init__ in models.Fresh
            models.py DM models.Old.run in models.Old
        "#]],
    );
}

#[test]
fn python_constructor_removed_and_decorator_changed() {
    check(
        r#"
//- before/svc.py
class Service:
    def __init__(self, url):
        self.url = url

    def ping(self):
        return self.url
//- after/svc.py
class Service:
    @property
    def ping(self):
        return self.url
"#,
        expect![[r#"
            svc.py MMS svc.Service.ping in svc.Service
            svc.py DCC svc.Service.__init__ in svc.Service
            svc.py DF svc.Service.url in svc.Service
        "#]],
    );
}

/// `__init__`'s `self.x = …` are the class's fields: renamed, one is
/// deleted and another added; a changed value, or a comparison, is neither.
#[test]
fn python_instance_attributes() {
    check(
        r#"
//- before/http.py
class Response:
    timeout: float = 5

    def __init__(self, code):
        self.status_code = code
        self.reason: str = ""
        self.raw = None
        if self.raw == None:
            self.history = []
//- after/http.py
class Response:
    timeout: float = 5

    def __init__(self, code):
        self.status = code
        self.reason: str = "OK"
        self.raw = None
        if self.raw == None:
            self.history = []
        self.elapsed = 0
"#,
        expect![[r#"
            http.py MMB http.Response.__init__ in http.Response
            http.py AF http.Response.status in http.Response
            http.py DF http.Response.status_code in http.Response
            http.py AF http.Response.elapsed in http.Response
        "#]],
    );
}

// ---------------------------------------------------------------- TypeScript

#[test]
fn typescript_class_members() {
    check(
        r#"
//- before/src/parser.ts
import { Token } from "./lexer";
import { Options } from "./options";

export class Parser extends Base {
  depth: number = 0;
  private cache: Map<string, Node>;

  constructor(text: string) {
    super();
  }

  parse(text: string): Node {
    return this.walk(text);
  }

  reset(): void {
    this.depth = 0;
  }
}
//- after/src/parser.ts
import { Token } from "./tokens";
import { Span } from "./span";

export class Parser extends Base implements Visitor {
  depth: number = 1;
  strict: boolean = false;

  constructor(text: string, options: Options) {
    super();
  }

  parse(text: string, strict: boolean): Node {
    return this.walk(text);
  }

  reset(): void {
    this.depth = 0;
    this.strict = false;
  }

  visit(node: Node): void {}
}
"#,
        expect![[r#"
            src/parser.ts MI Token
            src/parser.ts AI Span
            src/parser.ts DI Options
            src/parser.ts MC src/parser.Parser
            src/parser.ts MF src/parser.Parser.depth in src/parser.Parser
            src/parser.ts AF src/parser.Parser.strict in src/parser.Parser
            src/parser.ts DF src/parser.Parser.cache in src/parser.Parser
            src/parser.ts MCC src/parser.Parser.constructor in src/parser.Parser
            src/parser.ts MMS src/parser.Parser.parse in src/parser.Parser
            src/parser.ts MMB src/parser.Parser.reset in src/parser.Parser {Field strict@18}
            src/parser.ts AM src/parser.Parser.visit in src/parser.Parser
        "#]],
    );
}

#[test]
fn typescript_classes_added_and_deleted() {
    check(
        r#"
//- before/src/shapes.ts
export class Circle {
  constructor(public r: number) {}
  area(): number {
    return 3.14 * this.r * this.r;
  }
}

export function unit(): Circle {
  return new Circle(1);
}
//- after/src/shapes.ts
export class Square {
  side = 1;
  area(): number {
    return this.side * this.side;
  }
}

export function unit(): Square {
  return new Square();
}
"#,
        expect![[r#"
            src/shapes.ts AC src/shapes.Square
            src/shapes.ts DC src/shapes.Circle
            src/shapes.ts AF src/shapes.Square.side in src/shapes.Square
            src/shapes.ts DCC src/shapes.Circle.constructor in src/shapes.Circle
            src/shapes.ts AM src/shapes.Square.area in src/shapes.Square
            src/shapes.ts DM src/shapes.Circle.area in src/shapes.Circle
            src/shapes.ts MMB src/shapes.unit {Return@9}
            src/shapes.ts MMS src/shapes.unit
        "#]],
    );
}

// ---------------------------------------------------------------- Rust

#[test]
fn rust_impl_methods_fields_and_uses() {
    check(
        r#"
//- before/src/pool.rs
use std::collections::HashMap;
use crate::conn::Conn;

pub struct Pool {
    size: usize,
    idle: Vec<Conn>,
}

impl Pool {
    pub fn new(size: usize) -> Pool {
        Pool { size, idle: Vec::new() }
    }

    pub fn grow(&mut self, by: usize) {
        self.size += by;
    }

    pub fn len(&self) -> usize {
        self.idle.len()
    }

    pub fn drain(&mut self) {}
}
//- after/src/pool.rs
use std::collections::BTreeMap;
use crate::conn::Conn;
use crate::metrics::Gauge;

pub struct Pool {
    size: u32,
    idle: Vec<Conn>,
    gauge: Gauge,
}

impl Pool {
    pub fn new(size: u32) -> Pool {
        Pool { size, idle: Vec::new(), gauge: Gauge::default() }
    }

    pub fn grow(&mut self, by: usize) {
        self.size += by as u32;
        self.gauge.set(self.size);
    }

    pub fn len(&self) -> usize {
        self.idle.len() + 1
    }

    pub fn shrink(&mut self, items: &mut Vec<u8>) {
        items.push(0);
    }
}
"#,
        expect![[r#"
            src/pool.rs AI BTreeMap
            src/pool.rs DI HashMap
            src/pool.rs AI Gauge
            src/pool.rs MF crate::pool::Pool::size in crate::pool::Pool
            src/pool.rs AF crate::pool::Pool::gauge in crate::pool::Pool
            src/pool.rs MMB crate::pool::Pool::new in crate::pool::Pool {Return@13}
            src/pool.rs MCC crate::pool::Pool::new in crate::pool::Pool
            src/pool.rs MMB crate::pool::Pool::grow in crate::pool::Pool {Field size@17, Field gauge@18}
            src/pool.rs MMB crate::pool::Pool::len in crate::pool::Pool {Return@22}
            src/pool.rs DM crate::pool::Pool::drain in crate::pool::Pool
            src/pool.rs AM crate::pool::Pool::shrink in crate::pool::Pool
        "#]],
    );
}

#[test]
fn rust_types_added_deleted_and_redeclared() {
    check(
        r#"
//- before/src/shape.rs
pub struct Circle {
    pub r: f64,
}

#[derive(Debug)]
pub struct Rect {
    pub w: f64,
}

pub enum Kind {
    Round,
}
//- after/src/shape.rs
pub struct Circle {
    pub r: f64,
}

#[derive(Debug, Clone)]
pub struct Rect {
    pub w: f64,
}

pub trait Area {
    fn area(&self) -> f64;
}
"#,
        expect![[r#"
            src/shape.rs MC crate::shape::Rect
            src/shape.rs AC crate::shape::Area
            src/shape.rs DC crate::shape::Kind
            src/shape.rs AM crate::shape::Area::area in crate::shape::Area
            src/shape.rs DF crate::shape::Kind::Round in crate::shape::Kind
        "#]],
    );
}

// ---------------------------------------------------------------- Java and Go

#[test]
fn java_class_members() {
    check(
        r#"
//- before/src/Account.java
import java.util.List;
import java.util.Map;

public class Account extends Entity {
    private int balance;
    private String owner;

    public Account(String owner) {
        this.owner = owner;
    }

    public int deposit(int amount) {
        balance += amount;
        return balance;
    }
}
//- after/src/Account.java
import java.util.List;
import java.util.Set;

public class Account extends Entity implements Auditable {
    private long balance;
    private String owner;
    private List<String> log;

    public Account() {
        this.owner = "bank";
    }

    public int deposit(int amount) {
        this.balance += amount;
        log.add("deposit");
        return (int) balance;
    }
}
"#,
        expect![[r#"
            src/Account.java AI Set
            src/Account.java DI Map
            src/Account.java MC Account
            src/Account.java MF Account.balance in Account
            src/Account.java AF Account.log in Account
            src/Account.java MMB Account.Account in Account {Field owner@10}
            src/Account.java MCC Account.Account in Account
            src/Account.java MMB Account.deposit in Account {Return@16, Field balance@14}
        "#]],
    );
}

#[test]
fn go_functions_and_methods() {
    check(
        r#"
//- before/store/store.go
package store

import "fmt"

type Store struct {
	items map[string]int
}

func (s *Store) Put(key string, n int) {
	s.items[key] = n
}

func Describe(s *Store) string {
	return fmt.Sprint(len(s.items))
}

func Reset(s *Store) {
	fmt.Println("reset")
}
//- after/store/store.go
package store

import "strings"

type Store struct {
	items map[string]int
	hits  int
}

func (s *Store) Put(key string, n int, overwrite bool) {
	s.items[key] = n
}

func Describe(s *Store) string {
	return strings.Repeat("x", len(s.items))
}

func Reset(s *Store) {
	s.items = map[string]int{}
}
"#,
        expect![[r#"
            store/store.go AI strings
            store/store.go DI fmt
            store/store.go AF store.Store.hits in store.Store
            store/store.go MMS store.Store.Put in store.Store
            store/store.go MMB store.Describe {Return@15}
            store/store.go MMB store.Reset {Parameter s@19}
        "#]],
    );
}

#[test]
fn constructors_and_imports_in_java_and_typescript() {
    check(
        r#"
//- before/src/Client.java
import org.old.Http;
import java.io.File;

public class Client {
    public Client() {
    }
}

class Retry {
    public Retry(int n) {
    }
}
//- after/src/Client.java
import org.next.Http;
import java.nio.file.Path;

public class Client {
    public Client() {
    }

    public Client(Http http) {
    }
}

class Retry {
}
//- before/src/app.ts
import { render as draw } from "./view";

export class App {
  start(): void {}
}
//- after/src/app.ts
import { paint as draw } from "./view";

export class App {
  constructor(private root: string) {}
  start(): void {}
}
"#,
        expect![[r#"
            src/Client.java MI Http
            src/Client.java AI Path
            src/Client.java DI File
            src/Client.java ACC Client.Client in Client
            src/Client.java DCC Retry.Retry in Retry
            src/app.ts MI draw
            src/app.ts ACC src/app.App.constructor in src/app.App
        "#]],
    );
}

#[test]
fn nothing_changed_but_layout() {
    check(
        r#"
//- before/m.py
def f(a, b):
    return a + b
//- after/m.py
def f(a,   b):
    return a +   b
"#,
        expect![[r#"
            no changes
        "#]],
    );
}

/// A parameter added past the length the miner keeps of a signature is a
/// signature change all the same (the grammar splits header and body).
#[test]
fn long_signatures_change_at_their_end() {
    check(
        r#"
//- before/client.py
class Client:
    def request(self, method, url, *, content=None, data=None, files=None, json=None, params=None, headers=None,
                cookies=None, auth=None, follow_redirects=None, timeout=None, extensions=None, verify=None, cert=None):
        return self.send(method, url)
//- after/client.py
class Client:
    def request(self, method, url, *, content=None, data=None, files=None, json=None, params=None, headers=None,
                cookies=None, auth=None, follow_redirects=None, timeout=None, extensions=None, verify=None, cert=None,
                trace):
        return self.send(method, url)
"#,
        expect![[r#"
            client.py MMS client.Client.request in client.Client
        "#]],
    );
}

/// Every label is exercised by at least three cases above.
#[test]
fn every_label_is_covered_three_times() {
    SEEN.with(|seen| seen.borrow_mut().clear());
    COUNT_ONLY.with(|c| *c.borrow_mut() = true);
    let cases: [fn(); 11] = [
        constructors_and_imports_in_java_and_typescript,
        python_methods_signatures_and_bodies,
        python_escaping_objects,
        python_classes_fields_constructors_imports,
        python_constructor_removed_and_decorator_changed,
        typescript_class_members,
        typescript_classes_added_and_deleted,
        rust_impl_methods_fields_and_uses,
        rust_types_added_deleted_and_redeclared,
        java_class_members,
        go_functions_and_methods,
    ];
    for case in cases {
        case();
    }
    let counts = SEEN.with(|seen| seen.borrow().clone());
    let short: Vec<String> = ChangeLabel::ALL
        .iter()
        .filter(|l| counts.get(l).copied().unwrap_or(0) < 3)
        .map(|l| format!("{l} ({})", counts.get(l).copied().unwrap_or(0)))
        .collect();
    assert!(short.is_empty(), "labels with fewer than 3 cases: {}", short.join(", "));
}
