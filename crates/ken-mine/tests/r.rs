mod common;

use common::{render_chunks, render_references, render_symbols};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

const SOURCES: &str = r#"
//- R/util.R
#' Squares a number.
square <- function(x) {
  x * x
}

cube = function(x) x * square(x)

MAX_SIDES <- 12
//- R/shapes.R
library(R6)

#' A shape with a name.
Shape <- R6Class("Shape",
  public = list(
    name = NULL,
    initialize = function(name) {
      self$name <- name
    },
    describe = function() {
      cat(self$name, self$area(), "\n")
    }
  )
)

Circle <- R6Class("Circle",
  inherit = Shape,
  public = list(
    r = 1,
    area = function() pi * square(self$r)
  )
)

setClass("Person", representation(name = "character"))
setClass("Student", contains = "Person")
setGeneric("greet", function(obj) standardGeneric("greet"))
setMethod("greet", "Person", function(obj) cat("hi", obj@name))
//- main.R
source("R/util.R")
source("R/shapes.R")

main <- function() {
  c <- Circle$new("c")
  c$describe()
  greet(new("Person", name = "Ada"))
  stats::median(c(cube(2), square(3)))
}
"#;

fn check(render: fn(&str) -> String, expect: Expect) {
    expect.assert_eq(&render(SOURCES));
}

#[test]
fn functions_r6_and_s4_classes() {
    check(
        render_symbols,
        expect![[r#"
        R/util.R (module R/util, 0 parse errors)
          function square [2-4] `square <- function(x)` doc: Squares a number.
          function cube [6-6] `cube = function(x) x * square(x)`
          constant MAX_SIDES [8-8] `MAX_SIDES <- 12`
        R/shapes.R (module R/shapes, 0 parse errors)
          class Shape [4-14] `Shape <- R6Class("Shape",` doc: A shape with a name.
            field Shape.name [6-6] `name = NULL`
            constructor Shape.initialize [7-9] `initialize = function(name)`
            method Shape.describe [10-12] `describe = function()`
          class Circle [16-22] `Circle <- R6Class("Circle",`
            field Circle.r [19-19] `r = 1`
            method Circle.area [20-20] `area = function() pi * square(self$r)`
          class Person [24-24] `setClass("Person", representation(name = "character"))`
          class Student [25-25] `setClass("Student", contains = "Person")`
          function greet [26-26] `setGeneric("greet", function(obj) standardGeneric("greet"))`
            method Person.greet [27-27] `setMethod("greet", "Person", function(obj) cat("hi", obj@name))`
        main.R (module main, 0 parse errors)
          function main [4-9] `main <- function()`
    "#]],
    );
}

#[test]
fn sources_calls_inheritance_and_fields() {
    check(
        render_references,
        expect![[r#"
        R/util.R
          6:24 call square in cube
        R/shapes.R
          1:9 import R6 in <module>
          4:10 call R6Class in Shape
          5:12 call list in Shape
          8:12 field_use self :: name in Shape.initialize
          11:7 call cat in Shape.describe
          11:16 field_use self :: name in Shape.describe
          11:27 call self :: area in Shape.describe
          16:11 call R6Class in Circle
          17:13 inherit Shape in Circle
          18:12 call list in Circle
          20:28 call square in Circle.area
          20:40 field_use self :: r in Circle.area
          24:1 call setClass in Person
          24:20 call representation in Person
          25:1 call setClass in Student
          25:33 inherit Person in Student
          26:1 call setGeneric in greet
          26:35 call standardGeneric in greet
          27:1 call setMethod in Person.greet
          27:44 call cat in Person.greet
          27:58 field_use obj :: name in Person.greet
        main.R
          1:9 import R/util.R in <module>
          2:9 import R/shapes.R in <module>
          5:8 instantiate Circle in main
          6:5 call c :: describe in main
          7:3 call greet in main
          7:14 instantiate Person in main
          8:10 call stats :: median in main
          8:17 call c in main
          8:19 call cube in main
          8:28 call square in main
    "#]],
    );
}

#[test]
fn chunks_follow_functions() {
    check(
        |f| render_chunks(f, ChunkBudget::default()),
        expect![[r#"
        R/util.R
          1-9 square | class - | fn -
        R/shapes.R
          1-28 Shape | class - | fn -
        main.R
          1-10 main | class - | fn -
    "#]],
    );
}
