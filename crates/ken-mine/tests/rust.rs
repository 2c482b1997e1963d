mod common;

use common::{render_references, render_symbols};
use expect_test::{Expect, expect};

fn check_symbols(fixture: &str, expect: Expect) {
    expect.assert_eq(&render_symbols(fixture));
}

fn check_refs(fixture: &str, expect: Expect) {
    expect.assert_eq(&render_references(fixture));
}

#[test]
fn structs_traits_impls_and_modules() {
    check_symbols(
        r#"
//- tokio/src/runtime/mod.rs
//! Runtime.

/// A point in space.
#[derive(Debug, Clone)]
pub struct Point<T> {
    /// Horizontal.
    pub x: T,
    y: T,
}

pub enum Shape { Circle(f64), Square { side: f64 } }

pub const ORIGIN: Point<i32> = Point { x: 0, y: 0 };

pub trait Area {
    fn area(&self) -> f64;
    fn describe(&self) -> String { format!("{}", self.area()) }
}

impl<T: Copy> Point<T> {
    /// Makes a point.
    pub fn new(x: T, y: T) -> Self { Point { x, y } }

    #[inline]
    pub fn x(&self) -> T { self.x }
}

impl Area for Shape {
    fn area(&self) -> f64 { 0.0 }
}

mod inner {
    pub fn helper() -> impl Fn(i32) -> i32 {
        |v| v + 1
    }
}
"#,
        expect![[r#"
            tokio/src/runtime/mod.rs (module tokio::runtime, 0 parse errors)
              struct tokio::runtime::Point [4-9] `pub struct Point<T>` doc: A point in space.
                field tokio::runtime::Point::x [7-7] `pub x: T` doc: Horizontal.
                field tokio::runtime::Point::y [8-8] `y: T`
              enum tokio::runtime::Shape [11-11] `pub enum Shape`
                constant tokio::runtime::Shape::Circle [11-11] `Circle`
                constant tokio::runtime::Shape::Square [11-11] `Square`
                  field tokio::runtime::Shape::Square::side [11-11] `side: f64`
              constant tokio::runtime::ORIGIN [13-13] `pub const ORIGIN: Point<i32> = Point { x: 0, y: 0 }`
              trait tokio::runtime::Area [15-18] `pub trait Area`
                method tokio::runtime::Area::area [16-16] `fn area(&self) -> f64`
                method tokio::runtime::Area::describe [17-17] `fn describe(&self) -> String`
                constructor tokio::runtime::Point::new [22-22] `pub fn new(x: T, y: T) -> Self` doc: Makes a point.
                method tokio::runtime::Point::x [24-25] `pub fn x(&self) -> T`
                method tokio::runtime::Shape::area [29-29] `fn area(&self) -> f64`
              module tokio::runtime::inner [32-36] `mod inner`
                function tokio::runtime::inner::helper [33-35] `pub fn helper() -> impl Fn(i32) -> i32`
        "#]],
    );
}

#[test]
fn impl_before_its_type_and_syntax_errors() {
    check_symbols(
        r#"
//- src/lib.rs
impl Later {
    fn method(&self) {}
}
struct Later;
fn broken( {
}
fn after() {}
"#,
        expect![[r#"
            src/lib.rs (module crate, 1 parse errors)
                method crate::Later::method [2-2] `fn method(&self)`
              struct crate::Later [4-4] `struct Later`
              function crate::broken [5-6] `fn broken(`
              function crate::after [7-7] `fn after()`
        "#]],
    );
}

#[test]
fn references() {
    check_refs(
        r#"
//- src/main.rs
use std::collections::{HashMap, hash_map::Entry as E};
use crate::util::*;
mod util;

struct Server { port: u16 }

impl Service for Server {
    fn call(&self) {
        let map: HashMap<u16, u16> = HashMap::new();
        let s = Server { port: self.port };
        s.start::<u8>(map.len());
        println!("{}", self.port);
    }
}
"#,
        expect![[r#"
            src/main.rs
              1:24 import std::collections :: HashMap in <module>
              1:43 import std::collections::hash_map :: Entry as E in <module>
              2:5 import crate::util :: * in <module>
              3:5 import util in <module>
              7:6 inherit Service in Server
              9:47 call HashMap :: new in Server::call
              10:17 instantiate Server in Server::call
              10:37 field_use self :: port in Server::call
              11:11 call s :: start in Server::call
              11:27 call map :: len in Server::call
              12:9 call println in Server::call
        "#]],
    );
}
