mod common;

use common::{render_chunks, render_references, render_symbols};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

const SOURCES: &str = r#"
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

fn check(render: fn(&str) -> String, expect: Expect) {
    expect.assert_eq(&render(SOURCES));
}

#[test]
fn values_types_modules_and_classes() {
    check(
        render_symbols,
        expect![[r#"
        lib/util.ml (module Util, 0 parse errors)
          function Util.square [2-2] `let square x = x *. x` doc: Squares a float.
        lib/shapes.mli (module Shapes, 0 parse errors)
          enum Shapes.shape [2-2] `type shape = Circle of float | Rect of float * float` doc: Shapes.
            constant Shapes.shape.Circle [2-2] `Circle of float`
            constant Shapes.shape.Rect [2-2] `Rect of float * float`
          function Shapes.area [5-5] `val area : shape -> float` doc: The area of a shape.
          function Shapes.describe [6-6] `val describe : shape -> string`
        lib/shapes.ml (module Shapes, 0 parse errors)
          struct Shapes.point [5-5] `type point`
            field Shapes.point.x [5-5] `x : float`
            field Shapes.point.y [5-5] `y : float`
          enum Shapes.shape [7-9] `type shape`
            constant Shapes.shape.Circle [8-8] `Circle of float`
            constant Shapes.shape.Rect [9-9] `Rect of float * float`
          class Shapes.Bad_shape [11-11] `exception Bad_shape of string`
          function Shapes.area [14-16] `let area = function` doc: The area of a shape.
          function Shapes.describe [18-18] `let describe s = sprintf "area %f" (area s)`
          function Shapes.sum [20-20] `sum`
          function Shapes.count [21-21] `count l`
          module Shapes.Disc [23-27] `module Disc = struct`
            struct Shapes.Disc.t [24-24] `type t`
              field Shapes.Disc.t.r [24-24] `r : float`
            function Shapes.Disc.make [25-25] `let make r`
            function Shapes.Disc.area [26-26] `let area d = U.square d.r`
          interface Shapes.SHAPE [29-32] `module type SHAPE`
            struct Shapes.SHAPE.t [30-30] `type t`
            method Shapes.SHAPE.area [31-31] `val area : t -> float`
          module Shapes.Double [34-36] `module Double (S : SHAPE) = struct`
            function Shapes.Double.area [35-35] `let area x = 2. *. S.area x`
          class Shapes.counter [38-42] `class counter = object (self)`
            field Shapes.counter.n [39-39] `val mutable n`
            method Shapes.counter.incr [40-40] `method incr`
            method Shapes.counter.get [41-41] `method get`
        bin/main.ml (module Main, 0 parse errors)
    "#]],
    );
}

#[test]
fn opens_applications_and_fields() {
    check(
        render_references,
        expect![[r#"
        lib/util.ml
        lib/shapes.mli
        lib/shapes.ml
          2:6 import Printf :: * in <module>
          3:12 import Util as U in <module>
          15:34 call Util :: square in area
          18:18 call sprintf in describe
          18:37 call area in describe
          20:48 call area in sum
          20:58 call sum in sum
          21:20 call List :: length in count
          26:18 call U :: square in Disc.area
          26:27 field_use d :: r in Disc.area
          35:24 call S :: area in Double.area
          40:34 call self :: get in counter.incr
        bin/main.ml
          1:6 import Shapes :: * in <module>
          4:16 call Disc :: make in <module>
          5:3 call print_endline in <module>
          5:18 call describe in <module>
          6:3 call print_float in <module>
          6:21 call Disc :: area in <module>
          6:36 call Util :: square in <module>
    "#]],
    );
}

#[test]
fn chunks_follow_definitions() {
    check(
        |f| render_chunks(f, ChunkBudget::default()),
        expect![[r#"
        lib/util.ml
          1-5 Util.square | class - | fn -
        lib/shapes.mli
          1-7 Shapes.shape | class - | fn -
        lib/shapes.ml
          1-5 Shapes.point | class - | fn -
          7-9 Shapes.shape | class in shape[7-9] | fn -
          11-11 Shapes.Bad_shape | class in Bad_shape[11-11] | fn -
          13-16 Shapes.area | class after Bad_shape[11-11] | fn -
          18-21 Shapes.describe | class after Bad_shape[11-11] | fn in describe[18-18]
          23-27 Shapes.Disc | class after Bad_shape[11-11] | fn after count[21-21]
          29-32 Shapes.SHAPE | class in SHAPE[29-32] | fn after area[26-26]
          34-36 Shapes.Double | class after t[30-30] | fn after area[31-31]
          38-42 Shapes.counter | class in counter[38-42] | fn after area[35-35]
        bin/main.ml
          1-7 Main | class - | fn -
    "#]],
    );
}
