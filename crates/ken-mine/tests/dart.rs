mod common;

use common::{render_chunks, render_references, render_symbols};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

const SOURCES: &str = r#"
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

fn check(render: fn(&str) -> String, expect: Expect) {
    expect.assert_eq(&render(SOURCES));
}

#[test]
fn classes_constructors_methods_and_fields() {
    check(
        render_symbols,
        expect![[r#"
        lib/src/shapes.dart (module lib/src/shapes, 0 parse errors)
          class Shape [5-8] `abstract class Shape` doc: Something with an area.
            method Shape.area [6-6] `double area()`
            method Shape.describe [7-7] `String describe()`
          class Printable [10-12] `mixin Printable`
            method Printable.printMe [11-11] `void printMe()`
          class Circle [15-33] `class Circle extends Shape with Printable` doc: A circle.
            field Circle.radius [16-16] `radius`
            field Circle.count [17-17] `count = 0`
            constructor Circle.Circle [19-19] `Circle(this.radius)`
            constructor Circle.unit [20-20] `Circle.unit() : this(1.0)`
            constructor Circle.fromDiameter [21-21] `factory Circle.fromDiameter(double d)`
            method Circle.area [23-24] `@override double area()`
            method Circle.diameter [26-26] `double get diameter`
            method Circle.grow [28-32] `Circle grow(double by)`
          enum Color [35-35] `enum Color`
            constant Color.red [35-35] `red`
            constant Color.green [35-35] `green`
          constant maxSides [37-37] `maxSides = 12`
        lib/src/util.dart (module lib/src/util, 0 parse errors)
          function square [1-1] `double square(double x)`
        lib/shapes.dart (module lib/shapes, 0 parse errors)
        bin/main.dart (module bin/main, 0 parse errors)
          function total [4-10] `double total(List<Shape> shapes)`
          function main [12-16] `void main()`
    "#]],
    );
}

#[test]
fn imports_calls_inheritance_and_fields() {
    check(
        render_references,
        expect![[r#"
        lib/src/shapes.dart
          1:8 import dart:math as math in <module>
          2:8 import util.dart in <module>
          7:41 call area in Shape.describe
          11:21 call print in Printable.printMe
          11:27 call toString in Printable.printMe
          15:22 inherit Shape in Circle
          15:33 inherit Printable in Circle
          21:44 call Circle in Circle.fromDiameter
          24:25 field_use math :: pi in Circle.area
          24:30 call square in Circle.area
          26:31 field_use this :: radius in Circle.diameter
          29:20 call Circle in Circle.grow
          30:12 call bigger :: printMe in Circle.grow
        lib/src/util.dart
        lib/shapes.dart
          1:8 import src/shapes.dart in <module>
        bin/main.dart
          1:8 import package:shapes/shapes.dart in <module>
          2:8 import package:shapes/src/util.dart as util in <module>
          7:14 call s :: area in total
          13:20 call Circle :: unit in main
          14:15 call c :: grow in main
          15:3 call print in main
          15:9 call total in main
          15:26 instantiate Circle in main
          15:47 call util :: square in main
    "#]],
    );
}

#[test]
fn chunks_follow_members() {
    check(
        |f| render_chunks(f, ChunkBudget::default()),
        expect![[r#"
        lib/src/shapes.dart
          1-38 Shape | class - | fn -
        lib/src/util.dart
          1-2 square | class - | fn in square[1-1]
        lib/shapes.dart
          1-2 lib/shapes | class - | fn -
        bin/main.dart
          1-17 total | class - | fn -
    "#]],
    );
}
