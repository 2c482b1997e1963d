mod common;

use common::{render_chunks, render_references, render_symbols};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

fn check_symbols(fixture: &str, expect: Expect) {
    expect.assert_eq(&render_symbols(fixture));
}

fn check_refs(fixture: &str, expect: Expect) {
    expect.assert_eq(&render_references(fixture));
}

fn check_chunks(fixture: &str, budget: ChunkBudget, expect: Expect) {
    expect.assert_eq(&render_chunks(fixture, budget));
}

#[test]
fn classes_namespaces_and_members() {
    check_symbols(
        r#"
//- include/geo/shape.hpp
#pragma once
#include <string>

namespace geo {

constexpr int kMaxSides = 12;

/// A shape with an area.
class Shape : public Base {
public:
    explicit Shape(int sides);
    virtual ~Shape();
    /// The area.
    virtual double area() const = 0;
    static Shape* make(const std::string& name);
    Shape& operator=(const Shape&) = default;
    int sides() const { return sides_; }

    struct Bounds {
        double w, h;
    };
    enum class Kind { Polygon, Round };

protected:
    int sides_;
    static constexpr int kMin = 3;
    Bounds* bounds_ = nullptr;
};

union Number { int i; double d; };

namespace detail {
int count(const Shape& s);
}

}  // namespace geo

namespace geo::io {
void write(const geo::Shape& s);
}
"#,
        expect![[r#"
            include/geo/shape.hpp (module include/geo/shape, 0 parse errors)
              constant geo::kMaxSides [6-6] `constexpr int kMaxSides = 12`
              class geo::Shape [9-28] `class Shape : public Base` doc: A shape with an area.
                constructor geo::Shape::Shape [11-11] `explicit Shape(int sides)`
                method geo::Shape::~Shape [12-12] `virtual ~Shape()`
                method geo::Shape::area [14-14] `virtual double area() const = 0` doc: The area.
                method geo::Shape::make [15-15] `static Shape* make(const std::string& name)`
                method geo::Shape::operator= [16-16] `Shape& operator=(const Shape&) = default`
                method geo::Shape::sides [17-17] `int sides() const`
                struct geo::Shape::Bounds [19-21] `struct Bounds`
                  field geo::Shape::Bounds::w [20-20] `w`
                  field geo::Shape::Bounds::h [20-20] `h`
                enum geo::Shape::Kind [22-22] `enum class Kind`
                  constant geo::Shape::Kind::Polygon [22-22] `Polygon`
                  constant geo::Shape::Kind::Round [22-22] `Round`
                field geo::Shape::sides_ [25-25] `int sides_`
                field geo::Shape::kMin [26-26] `static constexpr int kMin = 3`
                field geo::Shape::bounds_ [27-27] `Bounds* bounds_ = nullptr`
              struct geo::Number [30-30] `union Number`
                field geo::Number::i [30-30] `int i`
                field geo::Number::d [30-30] `double d`
              function geo::detail::count [33-33] `int count(const Shape& s)`
              function geo::io::write [39-39] `void write(const geo::Shape& s)`
        "#]],
    );
}

#[test]
fn out_of_line_definitions_and_constructors() {
    check_symbols(
        r#"
//- src/geo/shape.cpp
#include "geo/shape.hpp"

namespace geo {

// Builds a shape.
Shape::Shape(int sides) : sides_(sides) {}

Shape::~Shape() {}

Shape* Shape::make(const std::string& name) { return nullptr; }

int detail::count(const Shape& s) { return s.sides(); }

}  // namespace geo

double geo::Circle::area() const { return 3.14 * r_ * r_; }

static int helper() { return 1; }
"#,
        expect![[r#"
            src/geo/shape.cpp (module src/geo/shape, 0 parse errors)
              constructor Shape::Shape [6-6] `Shape::Shape(int sides) : sides_(sides)` doc: Builds a shape.
              method Shape::~Shape [8-8] `Shape::~Shape()`
              method Shape::make [10-10] `Shape* Shape::make(const std::string& name)`
              method detail::count [12-12] `int detail::count(const Shape& s)`
              method Circle::area [16-16] `double geo::Circle::area() const`
              function helper [18-18] `static int helper()`
        "#]],
    );
}

#[test]
fn templates_overloads_and_lambdas() {
    check_symbols(
        r#"
//- src/util.hpp
// A box of anything.
template <typename T>
struct Box {
    T value;
    template <typename U> U as() const { return U(value); }
    void set(T v);
};

template <>
struct Box<void> {};

template <typename T>
void Box<T>::set(T v) { value = v; }

template <typename T>
T max(T a, T b) { return a < b ? b : a; }

int max(int a, int b);
double max(double a, double b) { return a; }

auto square = [](int x) { return x * x; };

void run() {
    auto local = [](int y) { return y; };
    local(1);
}
"#,
        expect![[r#"
            src/util.hpp (module src/util, 0 parse errors)
              struct Box [3-7] `struct Box`
                field Box::value [4-4] `T value`
                method Box::as [5-5] `U as() const`
                method Box::set [6-6] `void set(T v)`
              struct Box [10-10] `struct Box<void>`
                method Box::set [13-13] `void Box<T>::set(T v)`
              function max [16-16] `T max(T a, T b)`
              function max [18-18] `int max(int a, int b)`
              function max [19-19] `double max(double a, double b)`
              function square [21-21] `auto square = [](int x)`
              function run [23-26] `void run()`
        "#]],
    );
}

#[test]
fn syntax_errors_keep_what_was_recovered() {
    check_symbols(
        r#"
//- src/broken.cpp
class Good {
    void ok();
};

void Good::ok() {
    int x = ;
}

int lost(int a, ) { return a; }

class After {
    int field;
};
"#,
        expect![[r#"
            src/broken.cpp (module src/broken, 2 parse errors)
              class Good [1-3] `class Good`
                method Good::ok [2-2] `void ok()`
                method Good::ok [5-7] `void Good::ok()`
              function lost [9-9] `int lost(int a,)`
              class After [11-13] `class After`
                field After::field [12-12] `int field`
        "#]],
    );
}

#[test]
fn references() {
    check_refs(
        r#"
//- src/app.cpp
#include <vector>
#include "geo/shape.hpp"
using std::string;
using namespace geo;

class Square : public Shape, private util::Mixin<Square> {
public:
    double area() const override { return side_ * this->side_; }
};

int main() {
    Shape* s = new Square();
    auto b = new util::Box<int>(3);
    s->area();
    b->get<int>();
    Shape::make("x");
    std::sort(v.begin(), v.end());
    auto p = std::make_unique<Square>();
    a::b::c(s->sides_);
    helper<int>(1);
    return run(s);
}
"#,
        expect![[r#"
            src/app.cpp
              1:10 import <vector> in <module>
              2:10 import geo/shape.hpp in <module>
              3:12 import std :: string in <module>
              4:17 import geo in <module>
              6:23 inherit Shape in Square
              6:44 inherit util :: Mixin in Square
              8:57 field_use this :: side_ in Square::area
              12:20 instantiate Square in main
              13:24 instantiate util :: Box in main
              14:8 call s :: area in main
              15:8 call b :: get in main
              16:5 call Shape :: make in main
              17:5 call std :: sort in main
              17:17 call v :: begin in main
              17:28 call v :: end in main
              18:19 call std :: make_unique in main
              19:5 call a::b :: c in main
              19:16 field_use s :: sides_ in main
              20:5 call helper in main
              21:12 call run in main
        "#]],
    );
}

#[test]
fn chunks_keep_definitions_whole_and_split_big_ones() {
    let small = ChunkBudget { max_chars: 400, max_lines: 8, overlap_lines: 2 };
    check_chunks(
        r#"
//- big.cpp
#include <vector>

namespace big {
/// A big class.
class Big {
    int one() {
        return 1;
    }

    // two is long
    int two() {
        int a = 1;
        int b = 2;
        int c = 3;
        int d = 4;
        int e = 5;
        int f = 6;
        return a + b + c + d + e + f;
    }
};
}

void tail() {}
"#,
        small,
        expect![[r#"
            big.cpp
              1-2 big | class - | fn -
              3-3 big | class - | fn -
              4-8 big::Big | class - | fn -
              10-17 big::Big::two | class in Big[5-20] | fn after one[6-8]
              18-21 big | class in Big[5-20] | fn in two[11-19]
              23-23 tail | class after Big[5-20] | fn in tail[23-23]
        "#]],
    );
}
