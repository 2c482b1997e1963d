//! Kotlin end to end: packages name the symbols; member, aliased and
//! wildcard imports and the file's own package (another file of it)
//! resolve across files; constructions without `new`, supertypes and
//! overrides, companion functions called on their class, and calls through
//! typed values.

mod common;

use common::check_edges;
use expect_test::expect;

#[test]
fn packages_imports_supertypes_and_calls() {
    check_edges(
        r#"
//- src/main/kotlin/com/acme/geo/Shape.kt
package com.acme.geo

interface Shape {
    fun area(): Double
}

open class Circle(val radius: Double) : Shape {
    override fun area(): Double = 3.0 * radius * radius

    companion object {
        fun unit(): Circle = Circle(1.0)
    }
}

class Ring(radius: Double, val hole: Circle) : Circle(radius) {
    override fun area(): Double = super.area() - hole.area()
}
//- src/main/kotlin/com/acme/geo/ops/Sum.kt
package com.acme.geo.ops

import com.acme.geo.*

fun totalArea(shapes: List<Shape>): Double = shapes.sumOf { it.area() }

fun largest(): Circle = Ring(2.0, Circle.unit())
//- src/main/kotlin/com/acme/util/Log.kt
package com.acme.util

object Log {
    fun info(message: String) = println(message)
}
//- src/main/kotlin/com/acme/app/Banner.kt
package com.acme.app

fun banner(): String = "shapes"
//- src/main/kotlin/com/acme/app/Main.kt
package com.acme.app

import com.acme.geo.Circle
import com.acme.geo.ops.*
import com.acme.util.Log as Logger

fun main() {
    val c = Circle(2.0)
    val big = largest()
    Logger.info(banner() + " ${totalArea(listOf(c, big))}")
    println(c.area() + big.radius)
}
"#,
        expect![[r#"
            com.acme.app -imports-> com.acme.geo.Circle
            com.acme.app -imports-> com.acme.geo.ops
            com.acme.app -imports-> com.acme.util.Log
            com.acme.app.main -calls-> com.acme.app.banner
            com.acme.app.main -calls-> com.acme.geo.Circle.area [type_inferred]
            com.acme.app.main -calls-> com.acme.geo.ops.largest
            com.acme.app.main -calls-> com.acme.geo.ops.totalArea
            com.acme.app.main -calls-> com.acme.util.Log.info
            com.acme.app.main -instantiates-> com.acme.geo.Circle
            com.acme.app.main -uses-> com.acme.geo.Circle.radius [type_inferred]
            com.acme.geo.Circle -derived_class_of-> com.acme.geo.Shape
            com.acme.geo.Circle.area -overrides-> com.acme.geo.Shape.area
            com.acme.geo.Circle.unit -instantiates-> com.acme.geo.Circle
            com.acme.geo.Ring -derived_class_of-> com.acme.geo.Circle
            com.acme.geo.Ring.area -calls-> com.acme.geo.Circle.area
            com.acme.geo.Ring.area -calls-> com.acme.geo.Circle.area [type_inferred]
            com.acme.geo.Ring.area -overrides-> com.acme.geo.Circle.area
            com.acme.geo.ops -imports-> com.acme.geo
            com.acme.geo.ops.largest -calls-> com.acme.geo.Circle.unit
            com.acme.geo.ops.largest -instantiates-> com.acme.geo.Ring
            unresolved:
            com.acme.app.main -calls-> ?listOf
            com.acme.app.main -calls-> ?println
            com.acme.geo.ops.totalArea -calls-> ?area
            com.acme.geo.ops.totalArea -calls-> ?sumOf
            com.acme.util.Log.info -calls-> ?println
        "#]],
    );
}
