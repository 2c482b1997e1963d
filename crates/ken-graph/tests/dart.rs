//! Dart end to end: a relative import and a `package:` import (the
//! package's `lib/`, through an `export`) bring a file's names; `as util`
//! names a file; calls resolve through constructors' and methods' types,
//! `extends` and `with` are inheritance.

mod common;

use common::{check_edges, check_queries};
use expect_test::expect;

const PACKAGE: &str = r#"
//- lib/src/shapes.dart
import 'dart:math' as math;
import 'util.dart';

/// Something with an area.
abstract class Shape {
  double area();
  String describe() => 'shape of area ${area()}';
}

mixin Printable {
  void printMe() => print(toString());
}

/// A circle.
class Circle extends Shape with Printable {
  final double radius;
  static int count = 0;

  Circle(this.radius);
  Circle.unit() : this(1.0);
  factory Circle.fromDiameter(double d) => Circle(d / 2);

  @override
  double area() => math.pi * square(radius);

  double get diameter => this.radius * 2;

  Circle grow(double by) {
    final bigger = Circle(radius + by);
    bigger.printMe();
    return bigger;
  }
}

enum Color { red, green }

const int maxSides = 12;
//- lib/src/util.dart
double square(double x) => x * x;
//- lib/shapes.dart
export 'src/shapes.dart';
//- bin/main.dart
import 'package:shapes/shapes.dart';
import 'package:shapes/src/util.dart' as util;

double total(List<Shape> shapes) {
  var sum = 0.0;
  for (final s in shapes) {
    sum += s.area();
  }
  return sum;
}

void main() {
  final c = Circle.unit();
  final d = c.grow(1.0);
  print(total([c, d, new Circle(2.0)]) + util.square(2.0));
}
"#;

#[test]
fn imports_exports_calls_and_inheritance() {
    check_edges(
        PACKAGE,
        expect![[r#"
        Circle -derived_class_of-> Printable
        Circle -derived_class_of-> Shape
        Circle.Circle -construct-> Circle
        Circle.area -calls-> square
        Circle.area -overrides-> Shape.area
        Circle.diameter -uses-> Circle.radius
        Circle.fromDiameter -calls-> Circle.Circle
        Circle.fromDiameter -construct-> Circle
        Circle.grow -calls-> Circle.Circle
        Circle.grow -calls-> Printable.printMe [type_inferred]
        Circle.unit -construct-> Circle
        Shape.describe -calls-> Shape.area
        bin/main -imports-> lib/shapes
        bin/main -imports-> lib/src/util
        lib/shapes -imports-> lib/src/shapes
        lib/src/shapes -imports-> lib/src/util
        main -calls-> Circle.grow [type_inferred]
        main -calls-> Circle.unit
        main -calls-> square
        main -calls-> total
        main -instantiates-> Circle
        unresolved:
        Printable.printMe -calls-> ?print
        Printable.printMe -calls-> ?toString
        lib/src/shapes -imports-> ?dart:math
        main -calls-> ?print
        total -calls-> ?area
    "#]],
    );
}

#[test]
fn callers_and_subclasses() {
    check_queries(
        PACKAGE,
        "callers square\ncallers Circle.grow\nsubclasses Shape",
        expect![[r#"
        > callers square
          CalledBy main (bin/main.dart:15)
          CalledBy Circle.area (lib/src/shapes.dart:24)
        > callers Circle.grow
          CalledBy main (bin/main.dart:14)
        > subclasses Shape
          BaseClassOf Circle (lib/src/shapes.dart:15)
    "#]],
    );
}
