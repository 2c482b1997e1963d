mod common;

use common::{render_chunks, render_references, render_symbols};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

const SOURCES: &str = r#"
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

fn check(render: fn(&str) -> String, expect: Expect) {
    expect.assert_eq(&render(SOURCES));
}

#[test]
fn modules_types_functions_and_methods() {
    check(
        render_symbols,
        expect![[r#"
        src/Geometry.jl (module src/Geometry, 0 parse errors)
          module Geometry [1-40] `module Geometry`
            constant Geometry.MAX_SIDES [8-8] `const MAX_SIDES = 12`
            interface Geometry.Shape [13-13] `abstract type Shape end` doc: An abstract shape.
            struct Geometry.Circle [16-18] `struct Circle <: Shape` doc: A circle.
              field Geometry.Circle.r [17-17] `r::Float64`
            struct Geometry.Counter [20-22] `mutable struct Counter`
              field Geometry.Counter.n [21-21] `n::T`
            function Geometry.square [24-24] `square(x) = x * x`
            function Geometry.area [26-26] `area(c::Circle) = pi * square(c.r)`
            function Geometry.describe [28-30] `function describe(s::Shape)::String`
          method Base.show [32-34] `function Base.show(io::IO, c::Circle)`
            function Geometry.twice [36-38] `macro twice(ex)`
        src/App.jl (module src/App, 0 parse errors)
          module App [1-14] `module App`
            function App.unit [5-7] `function unit()::Circle`
            function App.report [9-12] `function report()`
    "#]],
    );
}

#[test]
fn usings_calls_supertypes_and_fields() {
    check(
        render_references,
        expect![[r#"
        src/Geometry.jl
          3:7 import LinearAlgebra :: * in Geometry
          4:8 import Base :: * in Geometry
          16:18 inherit Shape in Geometry.Circle
          26:24 call square in Geometry.area
          26:33 field_use c :: r in Geometry.area
          29:12 call string in Geometry.describe
          29:28 call area in Geometry.describe
          33:5 call print in Base.show
          33:28 field_use c :: r in Base.show
        src/App.jl
          3:9 import Geometry :: * in App
          6:12 call Circle in App.unit
          10:9 call unit in App.report
          11:5 call println in App.report
          11:13 call describe in App.report
          11:35 call Geometry :: area in App.report
          11:46 field_use c :: r in App.report
    "#]],
    );
}

#[test]
fn chunks_follow_definitions() {
    check(
        |f| render_chunks(f, ChunkBudget::default()),
        expect![[r#"
        src/Geometry.jl
          1-40 Geometry | class - | fn -
        src/App.jl
          1-15 App | class - | fn -
    "#]],
    );
}
