//! R end to end: `source("R/util.R")` brings a file's functions, calls
//! resolve by name across files, an R6 class's methods through `self` and
//! `Class$new()`, and `inherit = Base` and S4 `contains` are inheritance.

mod common;

use common::{check_edges, check_queries};
use expect_test::expect;

const FIXTURE: &str = r#"
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

#[test]
fn sources_r6_and_s4() {
    check_edges(
        FIXTURE,
        expect![[r#"
        Circle -derived_class_of-> Shape
        Circle.area -calls-> square [unique_name]
        Circle.area -uses-> Circle.r
        Shape.describe -calls-> Circle.area
        Shape.describe -uses-> Shape.name
        Shape.initialize -construct-> Shape
        Shape.initialize -uses-> Shape.name
        Student -derived_class_of-> Person
        cube -calls-> square
        main -calls-> Shape.describe [type_inferred]
        main -calls-> cube
        main -calls-> greet
        main -calls-> square
        main -imports-> R/shapes
        main -imports-> R/util
        main -instantiates-> Circle
        main -instantiates-> Person
        unresolved:
        Circle -calls-> ?R6Class
        Circle -calls-> ?list
        Person -calls-> ?representation
        Person -calls-> ?setClass
        Person.greet -calls-> ?cat
        Person.greet -calls-> ?setMethod
        R/shapes -imports-> ?R6
        Shape -calls-> ?R6Class
        Shape -calls-> ?list
        Shape.describe -calls-> ?cat
        Student -calls-> ?setClass
        greet -calls-> ?setGeneric
        greet -calls-> ?standardGeneric
        main -calls-> ?c
        main -calls-> ?median
    "#]],
    );
}

#[test]
fn callers_and_subclasses() {
    check_queries(
        FIXTURE,
        "callers square\nsubclasses Shape\nsubclasses Person\ncallers Shape.describe",
        expect![[r#"
        > callers square
          CalledBy Circle.area (R/shapes.R:20)
          CalledBy cube (R/util.R:6)
          CalledBy main (main.R:8)
        > subclasses Shape
          BaseClassOf Circle (R/shapes.R:17)
        > subclasses Person
          BaseClassOf Student (R/shapes.R:25)
        > callers Shape.describe
          CalledBy main (main.R:6)
    "#]],
    );
}
