//! Swift end to end: one module's files share a namespace, so calls and
//! constructions resolve by scope and unique names; conformances and
//! superclasses link types (overrides too); an extension's methods belong
//! to its type when the type is in the same file; typed values and
//! declared return types lead calls to their methods.
//!
//! Not yet: an extension in another file than its type (`Canvas+Squares`)
//! keeps its methods apart from the type, so `add` inside it and
//! `canvas.addSquare` stay unresolved.

mod common;

use common::check_edges;
use expect_test::expect;

#[test]
fn types_extensions_and_calls_across_files() {
    check_edges(
        r#"
//- Sources/Geo/Shape.swift
protocol Shape {
    func area() -> Double
}

class Polygon: Shape {
    func area() -> Double { 0 }
    func describe() -> String { "polygon" }
}

final class Square: Polygon {
    let side: Double

    init(side: Double) {
        self.side = side
        super.init()
    }

    override func area() -> Double { side * side }
}
//- Sources/Geo/Canvas.swift
import Foundation

class Canvas {
    var shapes: [Shape] = []

    func add(_ shape: Shape) {
        shapes.append(shape)
    }
}

extension Canvas {
    func addAll(_ more: [Shape]) {
        more.forEach { add($0) }
    }
}
//- Sources/Geo/Canvas+Squares.swift
extension Canvas {
    func addSquare(side: Double) -> Square {
        let square = Square(side: side)
        add(square)
        return square
    }
}
//- Sources/App/main.swift
import Geo

func makeCanvas() -> Canvas {
    Canvas()
}

let canvas = makeCanvas()
let square = canvas.addSquare(side: 2)
canvas.addAll([square])
print(square.area() + square.side, square.describe())
"#,
        expect![[r#"
            Canvas.addAll -calls-> Canvas.add
            Canvas.addSquare -calls-> Canvas.add
            Canvas.addSquare -instantiates-> Square [unique_name]
            Polygon -derived_class_of-> Shape
            Polygon.area -overrides-> Shape.area
            Sources/App/main -calls-> Canvas.addAll [type_inferred]
            Sources/App/main -calls-> Canvas.addSquare [type_inferred]
            Sources/App/main -calls-> Polygon.describe [type_inferred]
            Sources/App/main -calls-> Square.area [type_inferred]
            Sources/App/main -calls-> makeCanvas
            Sources/App/main -uses-> Square.side [type_inferred]
            Square -derived_class_of-> Polygon
            Square.area -overrides-> Polygon.area
            Square.init -construct-> Square
            Square.init -uses-> Square.side
            makeCanvas -instantiates-> Canvas [unique_name]
            unresolved:
            Canvas.add -calls-> ?append
            Canvas.addAll -calls-> ?forEach
            Sources/App/main -calls-> ?print
            Sources/App/main -imports-> ?Geo
            Sources/Geo/Canvas -imports-> ?Foundation
            Square.init -calls-> ?init
        "#]],
    );
}
