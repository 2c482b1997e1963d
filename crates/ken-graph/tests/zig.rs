//! Zig end to end: `@import` binds a file's module to a name; calls through
//! it, through a container's name, on typed values (`self`, parameters,
//! results of calls and struct literals) and on generic containers resolve.

mod common;

use common::check_edges;
use expect_test::expect;

#[test]
fn imports_containers_and_methods() {
    check_edges(
        r#"
//- src/math.zig
pub fn hypot(a: f64, b: f64) f64 {
    return a * a + b * b;
}
//- src/geo/point.zig
const std = @import("std");
const math = @import("../math.zig");

pub const Point = struct {
    x: f64,
    y: f64,

    pub fn init(x: f64, y: f64) Point {
        return .{ .x = x, .y = y };
    }

    pub fn norm(self: Point) f64 {
        return math.hypot(self.x, self.y);
    }

    pub fn distance(self: *const Point, other: Point) f64 {
        const d = Point{ .x = self.x - other.x, .y = self.y - other.y };
        return d.norm();
    }
};

pub fn Stack(comptime T: type) type {
    return struct {
        const Self = @This();
        items: std.ArrayList(T),

        pub fn push(self: *Self, item: T) !void {
            try self.items.append(item);
        }

        pub fn top(self: Self) ?T {
            return self.peek(0);
        }

        fn peek(self: Self, depth: usize) ?T {
            _ = depth;
            return self.items.getLastOrNull();
        }
    };
}
//- src/main.zig
const std = @import("std");
const point = @import("geo/point.zig");

pub fn main() !void {
    const p = point.Point.init(3, 4);
    const q = try parse("1,2");
    std.debug.print("{d}\n", .{p.distance(q)});
    var stack = point.Stack(point.Point){ .items = undefined };
    try stack.push(p);
}

fn parse(text: []const u8) !point.Point {
    _ = text;
    return point.Point.init(1, 2);
}
"#,
        expect![[r#"
            Point.distance -calls-> Point.norm [type_inferred]
            Point.distance -instantiates-> Point
            Point.init -construct-> Point
            Point.norm -calls-> hypot
            Stack.top -calls-> Stack.peek
            main -calls-> Point.distance [type_inferred]
            main -calls-> Point.init
            main -calls-> Stack.push [type_inferred]
            main -calls-> parse
            main -instantiates-> Stack
            parse -calls-> Point.init
            src/geo/point -imports-> src/math
            src/main -imports-> src/geo/point
            unresolved:
            Stack -calls-> ?ArrayList
            Stack.peek -calls-> ?getLastOrNull
            Stack.push -calls-> ?append
            main -calls-> ?print
            src/geo/point -imports-> ?std
            src/main -imports-> ?std
        "#]],
    );
}
