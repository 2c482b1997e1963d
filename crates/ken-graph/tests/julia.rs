//! Julia end to end: modules nest their definitions, `using ..Geometry`
//! brings its names, `Geometry.area` resolves through the module, a
//! declared return type types a local, and `<:` is inheritance.

mod common;

use common::{check_edges, check_queries};
use expect_test::expect;

const FIXTURE: &str = r#"
//- src/Geometry.jl
module Geometry

using LinearAlgebra
import Base: show

export Circle, area

const MAX_SIDES = 12

"""
An abstract shape.
"""
abstract type Shape end

"A circle."
struct Circle <: Shape
    r::Float64
end

mutable struct Counter{T}
    n::T
end

square(x) = x * x

area(c::Circle) = pi * square(c.r)

function describe(s::Shape)::String
    return string("area ", area(s))
end

function Base.show(io::IO, c::Circle)
    print(io, "Circle(", c.r, ")")
end

macro twice(ex)
    :( $ex; $ex )
end

end # module
//- src/App.jl
module App

using ..Geometry

function unit()::Circle
    return Circle(1.0)
end

function report()
    c = unit()
    println(describe(c), Geometry.area(c), c.r)
end

end
"#;

#[test]
fn modules_usings_calls_and_supertypes() {
    check_edges(
        FIXTURE,
        expect![[r#"
        App -imports-> Geometry
        App.report -calls-> App.unit
        App.report -calls-> Geometry.area
        App.report -calls-> Geometry.describe
        App.report -uses-> Geometry.Circle.r [type_inferred]
        App.unit -instantiates-> Geometry.Circle
        Base.show -uses-> Geometry.Circle.r [type_inferred]
        Geometry.Circle -derived_class_of-> Geometry.Shape
        Geometry.area -calls-> Geometry.square
        Geometry.area -uses-> Geometry.Circle.r [type_inferred]
        Geometry.describe -calls-> Geometry.area
        unresolved:
        App.report -calls-> ?println
        Base.show -calls-> ?print
        Geometry -imports-> ?Base
        Geometry -imports-> ?LinearAlgebra
        Geometry.describe -calls-> ?string
    "#]],
    );
}

#[test]
fn callers_and_subclasses() {
    check_queries(
        FIXTURE,
        "callers square\ncallers describe\nsubclasses Shape",
        expect![[r#"
        > callers square
          CalledBy Geometry.area (src/Geometry.jl:26)
        > callers describe
          CalledBy App.report (src/App.jl:11)
        > subclasses Shape
          BaseClassOf Geometry.Circle (src/Geometry.jl:16)
    "#]],
    );
}
