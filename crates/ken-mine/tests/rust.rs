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
              12:29 field_use self :: port in Server::call
        "#]],
    );
}

#[test]
fn type_facts_for_receiver_inference() {
    check_types(
        r#"
//- src/client.rs
use std::sync::Arc;

/// A client.
pub struct Client {
    session: Arc<Session>,
    pub pool: Pool,
    retries: u32,
    on_close: fn(conn: &Connection),
}

impl Client {
    pub fn new(session: Arc<Session>, retries: u32) -> Self {
        let pool = Pool::new(retries);
        Client { session, pool, retries }
    }

    pub fn open(&mut self, url: &str) -> Result<Connection, Error> {
        let conn: Connection = self.pool.connect(url)?;
        let guard = Lock { held: true };
        let tracker = tracker::create();
        let mut buf = Vec::with_capacity(8);
        let (a, b) = split();
        Ok(conn)
    }
}

fn build(cfg: &Config, _: u8) -> Client {
    let s = Arc::new(Session::default());
    let opts = Options::<u8> { retries: 3 };
    Client::new(s, opts.retries)
}

trait Store {
    fn get(&self, key: &str) -> Option<Entry>;
}

static DEFAULT_POOL: Pool = Pool::EMPTY;

async fn connect_all(mut pool: Pool, hosts: Vec<String>) -> Vec<Connection> {
    let conn = pool.connect_async(&hosts[0]).await;
    let parsed = serde_json::from_str::<Config>("{}");
    let k = |c: &Connection| c.close();
    vec![conn]
}
"#,
        expect![[r#"
            src/client.rs
              Client::new -> Self
              Client::open -> Result<Connection, Error>
              build -> Client
              Store::get -> Option<Entry>
              connect_all -> Vec<Connection>
              5: session : Arc<Session> (in Client)
              6: pool : Pool (in Client)
              7: retries : u32 (in Client)
              8: on_close : fn(conn: &Connection) (in Client)
              12: session : Arc<Session> (in Client::new)
              12: retries : u32 (in Client::new)
              13: pool = call Pool::new (in Client::new)
              17: url : &str (in Client::open)
              18: conn : Connection (in Client::open)
              19: guard : Lock (in Client::open)
              20: tracker = call tracker::create (in Client::open)
              21: buf = call Vec::with_capacity (in Client::open)
              27: cfg : &Config (in build)
              28: s = call Arc::new (in build)
              29: opts : Options (in build)
              37: DEFAULT_POOL : Pool (in )
              39: pool : Pool (in connect_all)
              39: hosts : Vec<String> (in connect_all)
              40: conn = call pool.connect_async (in connect_all)
              41: parsed = call serde_json::from_str (in connect_all)
              42: c : &Connection (in connect_all)
        "#]],
    );
}

#[test]
fn items_inside_item_position_macros() {
    // tokio writes most of its API inside `cfg_*!` wrappers; `pin_project!`
    // wraps a struct, `lazy_static!` a static (tree-sitter reads `static ref`).
    // A body that is not items (`bitflags!`'s `struct Flags: u32`) stays tokens.
    check_symbols(
        r#"
//- tokio/src/task/spawn.rs
cfg_rt! {
    /// Spawns a new asynchronous task.
    pub fn spawn<F>(future: F) -> JoinHandle<F::Output> {
        spawn_inner(future)
    }

    cfg_net! {
        pub(crate) fn spawn_blocking_net() {}
    }
}

pin_project! {
    pub struct Timeout<T> {
        #[pin]
        value: T,
    }
}

impl Builder {
    cfg_time! {
        /// Enables the timer.
        pub fn enable_time(&mut self) -> &mut Self { self }
    }
}

lazy_static! {
    static ref REGISTRY: u8 = 1;
}

bitflags! {
    pub struct NotAnItem: u32 { const A = 1; }
}

macro_rules! cfg_rt {
    ($($item:item)*) => { $( #[cfg(feature = "rt")] $item )* }
}

fn body() {
    select! { _ = a => {} }
}

cfg_if::cfg_if! {
    if #[cfg(unix)] {
        /// The Unix way.
        pub fn open_unix() {}
    } else if #[cfg(windows)] {
        compile_error!("not items");
    } else {
        struct Fallback;
    }
}
"#,
        expect![[r#"
            tokio/src/task/spawn.rs (module tokio::task::spawn, 0 parse errors)
              function tokio::task::spawn::spawn [3-5] `pub fn spawn<F>(future: F) -> JoinHandle<F::Output>` doc: Spawns a new asynchronous task.
              function tokio::task::spawn::spawn_blocking_net [8-8] `pub(crate) fn spawn_blocking_net()`
              struct tokio::task::spawn::Timeout [13-16] `pub struct Timeout<T>`
                field tokio::task::spawn::Timeout::value [14-15] `value: T`
              method tokio::task::spawn::Builder::enable_time [22-22] `pub fn enable_time(&mut self) -> &mut Self` doc: Enables the timer.
              constant tokio::task::spawn::REGISTRY [27-27] `static ref REGISTRY: u8 = 1`
              function tokio::task::spawn::cfg_rt [34-36] `macro_rules! cfg_rt`
              function tokio::task::spawn::body [38-40] `fn body()`
              function tokio::task::spawn::open_unix [45-45] `pub fn open_unix()` doc: The Unix way.
              struct tokio::task::spawn::Fallback [49-49] `struct Fallback`
        "#]],
    );
}

#[test]
fn references_inside_item_position_macros() {
    check_refs(
        r#"
//- src/lib.rs
cfg_rt! {
    use crate::runtime::Handle;

    pub fn spawn() {
        Handle::current().spawn(task());
    }
}
"#,
        expect![[r#"
            src/lib.rs
              2:25 import crate::runtime :: Handle in <module>
              5:17 call Handle :: current in spawn
              5:27 call Handle::current() :: spawn in spawn
              5:33 call task in spawn
        "#]],
    );
}

#[test]
fn type_aliases_of_modules_not_associated_types() {
    check_symbols(
        r#"
//- src/error.rs
/// This crate's result.
pub type Result<T> = std::result::Result<T, Error>;
mod inner {
    pub(crate) type Map = HashMap<u8, u8>;
}
impl Iterator for Counter {
    type Item = u8;
}
trait Source {
    type Output;
}
"#,
        expect![[r#"
            src/error.rs (module crate::error, 0 parse errors)
              struct crate::error::Result [2-2] `pub type Result<T> = std::result::Result<T, Error>` doc: This crate's result.
              module crate::error::inner [3-5] `mod inner`
                struct crate::error::inner::Map [4-4] `pub(crate) type Map = HashMap<u8, u8>`
              trait crate::error::Source [9-11] `trait Source`
        "#]],
    );
}

#[test]
fn macro_definitions() {
    check_symbols(
        r#"
//- src/macros/select.rs
/// Waits on multiple branches.
#[macro_export]
macro_rules! select {
    ($($t:tt)*) => {};
}
"#,
        expect![[r#"
            src/macros/select.rs (module crate::macros::select, 0 parse errors)
              function crate::macros::select::select [2-5] `macro_rules! select` doc: Waits on multiple branches.
        "#]],
    );
}

#[test]
fn long_doc_comments_are_cut_into_windows_within_the_budget() {
    let small = ChunkBudget { max_chars: 400, max_lines: 6, overlap_lines: 1 };
    check_chunks(
        r#"
//- tokio/src/sync/broadcast.rs
//! A broadcast queue.
//!
//! Each value is seen by all consumers.
//!
//! ## Lagging
//!
//! A slow receiver falls behind;
//! the oldest values are overwritten
//! and it gets `Lagged`.
use std::sync::Arc;

/// Sends values.
pub struct Sender {
    shared: Arc<u8>,
}

/// Receives a value.
///
/// Waits until one is sent.
///
/// # Errors
///
/// `Lagged` when values were missed,
/// `Closed` when every sender is gone.
pub fn recv() -> u8 {
    0
}
// trailing one
// trailing two
"#,
        small,
        expect![[r#"
            tokio/src/sync/broadcast.rs
              1-4 tokio::sync::broadcast | class - | fn -
              5-10 tokio::sync::broadcast | class - | fn -
              10-15 tokio::sync::broadcast::Sender | class - | fn -
              17-20 tokio::sync::broadcast::recv | class after Sender[13-15] | fn -
              21-25 tokio::sync::broadcast::recv | class after Sender[13-15] | fn -
              25-29 tokio::sync::broadcast::recv | class after Sender[13-15] | fn in recv[25-27]
        "#]],
    );
}
