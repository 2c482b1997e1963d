//! Scala end to end: packages name the symbols; selector, renaming and
//! wildcard imports resolve across files; companion objects, `new` and
//! `apply` constructions, `extends ... with ...` and overrides, and calls
//! through typed values and declared return types.

mod common;

use common::check_edges;
use expect_test::expect;

#[test]
fn packages_imports_traits_and_objects() {
    check_edges(
        r#"
//- src/main/scala/com/acme/geo/Shapes.scala
package com.acme.geo

trait Shape {
  def area(): Double
}

trait Named {
  def name: String = getClass.getSimpleName
}

class Circle(val radius: Double) extends Shape with Named {
  override def area(): Double = 3.0 * radius * radius
}

object Circle {
  def unit(): Circle = new Circle(1.0)
}

case class Square(side: Double) extends Shape {
  def area(): Double = side * side
}
//- src/main/scala/com/acme/util/Log.scala
package com.acme.util

object Log {
  def info(message: String): Unit = println(message)
}
//- src/main/scala/com/acme/app/Main.scala
package com.acme.app

import com.acme.geo._
import com.acme.util.{Log => Logger}

object Main {
  def describe(shape: Shape): String = shape.name + shape.area()

  def main(args: Array[String]): Unit = {
    val c = Circle.unit()
    val s = Square(2.0)
    Logger.info(describe(c) + s.area() + c.radius)
  }
}
"#,
        expect![[r#"
            com.acme.app -imports-> com.acme.geo
            com.acme.app -imports-> com.acme.util.Log
            com.acme.app.Main.describe -calls-> com.acme.geo.Shape.area [type_inferred]
            com.acme.app.Main.main -calls-> com.acme.app.Main.describe
            com.acme.app.Main.main -calls-> com.acme.geo.Circle.unit
            com.acme.app.Main.main -calls-> com.acme.geo.Square.area [type_inferred]
            com.acme.app.Main.main -calls-> com.acme.util.Log.info
            com.acme.app.Main.main -instantiates-> com.acme.geo.Square
            com.acme.app.Main.main -uses-> com.acme.geo.Circle.radius [type_inferred]
            com.acme.geo.Circle -derived_class_of-> com.acme.geo.Named
            com.acme.geo.Circle -derived_class_of-> com.acme.geo.Shape
            com.acme.geo.Circle.area -overrides-> com.acme.geo.Shape.area
            com.acme.geo.Circle.unit -instantiates-> com.acme.geo.Circle
            com.acme.geo.Square -derived_class_of-> com.acme.geo.Shape
            com.acme.geo.Square.area -overrides-> com.acme.geo.Shape.area
            unresolved:
            com.acme.util.Log.info -calls-> ?println
        "#]],
    );
}
