mod common;

use common::{render_chunks, render_references, render_symbols, render_types};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

const SOURCES: &str = r#"
//- src/shape.zig
const std = @import("std");
const util = @import("util.zig");
const Color = @import("color.zig").Color;
const Allocator = std.mem.Allocator;

/// The largest number of sides.
pub const max_sides: u32 = 12;
var shapes_made: usize = 0;

/// A point in the plane.
pub const Point = struct {
    x: f64,
    y: f64 = 0,

    pub const origin_name = "origin";

    /// Creates a point.
    pub fn init(x: f64, y: f64) Point {
        shapes_made += 1;
        return .{ .x = x, .y = y };
    }

    pub fn dist(self: Point, other: *const Point) f64 {
        return util.hypot(self.x - other.x, self.y - other.y);
    }
};

pub const Kind = enum {
    circle,
    square,

    pub fn sides(self: Kind) u32 {
        return switch (self) {
            .circle => 0,
            .square => 4,
        };
    }
};

pub const Value = union(enum) { int: i64, float: f64 };

pub const ShapeError = error{ Negative, TooLarge };

/// A growable list of `T`.
pub fn List(comptime T: type) type {
    return struct {
        const Self = @This();

        items: []T,
        allocator: Allocator,

        pub fn init(allocator: Allocator) Self {
            return .{ .items = &.{}, .allocator = allocator };
        }

        pub fn append(self: *Self, item: T) !void {
            try self.ensureCapacity(self.items.len + 1);
            self.items.len += 1;
            self.items[self.items.len - 1] = item;
        }

        fn ensureCapacity(self: *Self, n: usize) !void {
            _ = self;
            _ = n;
        }
    };
}

pub fn area(kind: Kind, size: f64) ShapeError!f64 {
    if (size < 0) return ShapeError.Negative;
    const p = Point.init(0, 0);
    const q = Point{ .x = size, .y = 0 };
    _ = p.dist(&q);
    return switch (kind) {
        .circle => std.math.pi * size * size,
        .square => size * size,
    };
}

fn helper() void {}

test "area of a square" {
    try std.testing.expectEqual(@as(f64, 4), try area(.square, 2));
}
//- src/util.zig
const std = @import("std");

pub fn hypot(a: f64, b: f64) f64 {
    return std.math.sqrt(a * a + b * b);
}
"#;

fn check(render: fn(&str) -> String, expect: Expect) {
    expect.assert_eq(&render(SOURCES));
}

#[test]
fn containers_functions_fields_and_constants() {
    check(
        render_symbols,
        expect![[r#"
        src/shape.zig (module src/shape, 0 parse errors)
          constant max_sides [7-7] `pub const max_sides: u32 = 12` doc: The largest number of sides.
          struct Point [11-26] `pub const Point = struct` doc: A point in the plane.
            field Point.x [12-12] `x: f64`
            field Point.y [13-13] `y: f64 = 0`
            constant Point.origin_name [15-15] `pub const origin_name = "origin"`
            constructor Point.init [18-21] `pub fn init(x: f64, y: f64) Point` doc: Creates a point.
            method Point.dist [23-25] `pub fn dist(self: Point, other: *const Point) f64`
          enum Kind [28-38] `pub const Kind = enum`
            constant Kind.circle [29-29] `circle`
            constant Kind.square [30-30] `square`
            method Kind.sides [32-37] `pub fn sides(self: Kind) u32`
          struct Value [40-40] `pub const Value = union(enum)`
            field Value.int [40-40] `int: i64`
            field Value.float [40-40] `float: f64`
          enum ShapeError [42-42] `pub const ShapeError = error`
          struct List [45-67] `pub fn List(comptime T: type) type` doc: A growable list of `T`.
            field List.items [49-49] `items: []T`
            field List.allocator [50-50] `allocator: Allocator`
            constructor List.init [52-54] `pub fn init(allocator: Allocator) Self`
            method List.append [56-60] `pub fn append(self: *Self, item: T) !void`
            method List.ensureCapacity [62-65] `fn ensureCapacity(self: *Self, n: usize) !void`
          function area [69-78] `pub fn area(kind: Kind, size: f64) ShapeError!f64`
          function helper [80-80] `fn helper() void`
        src/util.zig (module src/util, 0 parse errors)
          function hypot [3-5] `pub fn hypot(a: f64, b: f64) f64`
    "#]],
    );
}

#[test]
fn calls_imports_and_struct_literals() {
    check(
        render_references,
        expect![[r#"
        src/shape.zig
          1:22 import std as std in <module>
          2:23 import util.zig as util in <module>
          3:24 import color.zig in <module>
          24:21 call util :: hypot in Point.dist
          24:32 field_use x in Point.dist
          24:50 field_use y in Point.dist
          57:22 call self :: ensureCapacity in List.append
          57:42 field_use items in List.append
          58:18 field_use items in List.append
          59:18 field_use items in List.append
          59:29 field_use items in List.append
          71:21 call Point :: init in area
          72:15 instantiate Point in area
          73:11 call p :: dist in area
          83:21 call std.testing :: expectEqual in <module>
          83:50 call area in <module>
        src/util.zig
          1:22 import std as std in <module>
          4:21 call std.math :: sqrt in hypot
    "#]],
    );
}

#[test]
fn parameter_variable_and_return_types() {
    check(
        render_types,
        expect![[r#"
            src/shape.zig
              Point.init -> Point
              Point.dist -> f64
              Kind.sides -> u32
              List.init -> Self
              area -> f64
              7: max_sides : u32 (in )
              8: shapes_made : usize (in )
              12: x : f64 (in Point)
              13: y : f64 (in Point)
              18: x : f64 (in Point.init)
              18: y : f64 (in Point.init)
              23: self : Point (in Point.dist)
              23: other : *const Point (in Point.dist)
              32: self : Kind (in Kind.sides)
              40: int : i64 (in Value)
              40: float : f64 (in Value)
              45: T : type (in List)
              49: items : []T (in List)
              50: allocator : Allocator (in List)
              52: allocator : Allocator (in List.init)
              56: self : *Self (in List.append)
              56: item : T (in List.append)
              62: self : *Self (in List.ensureCapacity)
              62: n : usize (in List.ensureCapacity)
              69: kind : Kind (in area)
              69: size : f64 (in area)
              71: p = call Point.init (in area)
              72: q : Point (in area)
            src/util.zig
              hypot -> f64
              3: a : f64 (in hypot)
              3: b : f64 (in hypot)
        "#]],
    );
}

#[test]
fn chunks_follow_declarations() {
    check(
        |f| render_chunks(f, ChunkBudget::default()),
        expect![[r#"
        src/shape.zig
          1-8 max_sides | class - | fn -
          10-26 Point | class - | fn -
          28-38 Kind | class in Kind[28-38] | fn after dist[23-25]
          40-40 Value.float | class in Value[40-40] | fn after sides[32-37]
          42-42 ShapeError | class in ShapeError[42-42] | fn after sides[32-37]
          44-67 List | class after ShapeError[42-42] | fn after sides[32-37]
          69-78 area | class after List[45-67] | fn in area[69-78]
          80-84 helper | class after List[45-67] | fn in helper[80-80]
        src/util.zig
          1-6 hypot | class - | fn -
    "#]],
    );
}
