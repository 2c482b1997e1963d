//! OCaml end to end: a file is a module named by its capitalized stem,
//! known everywhere (`Util.square`); `open Shapes` brings a module's names,
//! `module U = Util` names one; nested modules qualify their members
//! (`Shapes.Disc.make`); `self#get` calls a method of the class.

mod common;

use common::{check_edges, check_queries};
use expect_test::expect;

const FIXTURE: &str = r#"
//- lib/util.ml
(** Squares a float. *)
let square x = x *. x

let version = "1.0"
//- lib/shapes.mli
(** Shapes. *)
type shape = Circle of float | Rect of float * float

(** The area of a shape. *)
val area : shape -> float
val describe : shape -> string
//- lib/shapes.ml
(** Shapes and their areas. *)
open Printf
module U = Util

type point = { x : float; y : float }

type shape =
  | Circle of float
  | Rect of float * float

exception Bad_shape of string

(** The area of a shape. *)
let area = function
  | Circle r -> Float.pi *. Util.square r
  | Rect (w, h) -> w *. h

let describe s = sprintf "area %f" (area s)

let rec sum = function [] -> 0. | s :: rest -> area s +. sum rest
and count l = List.length l

module Disc = struct
  type t = { r : float }
  let make r = { r }
  let area d = U.square d.r
end

module type SHAPE = sig
  type t
  val area : t -> float
end

module Double (S : SHAPE) = struct
  let area x = 2. *. S.area x
end

class counter = object (self)
  val mutable n = 0
  method incr = n <- n + 1; self#get
  method get = n
end
//- bin/main.ml
open Shapes

let () =
  let d = Disc.make 2. in
  print_endline (describe (Circle 1.));
  print_float (Disc.area d +. Util.square 3.)
"#;

#[test]
fn modules_opens_aliases_and_calls() {
    check_edges(
        FIXTURE,
        expect![[r#"
        Main -calls-> Shapes.Disc.area
        Main -calls-> Shapes.Disc.make
        Main -calls-> Shapes.describe
        Main -calls-> Util.square
        Main -imports-> Shapes
        Shapes -imports-> Util
        Shapes.Disc.area -calls-> Util.square
        Shapes.Double.area -calls-> Shapes.SHAPE.area [unique_name]
        Shapes.area -calls-> Util.square
        Shapes.counter.incr -calls-> Shapes.counter.get
        Shapes.describe -calls-> Shapes.area
        Shapes.sum -calls-> Shapes.area
        Shapes.sum -calls-> Shapes.sum
        unresolved:
        Main -calls-> ?print_endline
        Main -calls-> ?print_float
        Shapes -imports-> ?Printf
        Shapes.count -calls-> ?length
        Shapes.describe -calls-> ?sprintf
    "#]],
    );
}

#[test]
fn callers() {
    check_queries(
        FIXTURE,
        "callers Util.square\ncallers lib/shapes.ml:14\ncallers lib/shapes.mli:6",
        expect![[r#"
        > callers Util.square
          CalledBy Main (bin/main.ml:6)
          CalledBy Shapes.area (lib/shapes.ml:15)
          CalledBy Shapes.Disc.area (lib/shapes.ml:26)
        > callers lib/shapes.ml:14
          CalledBy Shapes.describe (lib/shapes.ml:18)
          CalledBy Shapes.sum (lib/shapes.ml:20)
        > callers lib/shapes.mli:6
    "#]],
    );
}
