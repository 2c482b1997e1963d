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
fn modules_classes_and_methods() {
    check_symbols(
        r#"
//- lib/geo/shape.rb
# Geometry.
module Geo
  VERSION = "1.0"

  # A shape.
  class Shape < Base
    include Comparable
    MAX_SIDES = 12

    def initialize(name)
      @name = name
    end

    # The area.
    #
    # Zero by default.
    def area = 0

    def self.build(*args, &blk)
      new(*args)
    end

    class << self
      def registry
        @registry ||= {}
      end
    end

    def ==(other) = area == other.area

    def name=(value); @name = value; end

    # Nested.
    class Edge
      def length; 1; end
    end
  end

  class Geo::Circle < Shape; end

  def self.helper; end

  def mixin_method; end
end

class Geo::Square < Geo::Shape
end
"#,
        expect![[r#"
            lib/geo/shape.rb (module lib/geo/shape, 0 parse errors)
              module Geo [2-44] `module Geo` doc: Geometry.
                constant Geo.VERSION [3-3] `VERSION = "1.0"`
                class Geo.Shape [6-37] `class Shape < Base` doc: A shape.
                  constant Geo.Shape.MAX_SIDES [8-8] `MAX_SIDES = 12`
                  constructor Geo.Shape.initialize [10-12] `def initialize(name)`
                  method Geo.Shape.area [17-17] `def area` doc: The area.⏎⏎Zero by default.
                  method Geo.Shape.build [19-21] `def self.build(*args, &blk)`
                  method Geo.Shape.registry [24-26] `def registry`
                  method Geo.Shape.== [29-29] `def ==(other)`
                  method Geo.Shape.name= [31-31] `def name=(value)`
                  class Geo.Shape.Edge [34-36] `class Edge` doc: Nested.
                    method Geo.Shape.Edge.length [35-35] `def length`
              class Geo.Circle [39-39] `class Geo::Circle < Shape; end`
                method Geo.helper [41-41] `def self.helper; end`
                function Geo.mixin_method [43-43] `def mixin_method; end`
              class Geo.Square [46-47] `class Geo::Square < Geo::Shape`
        "#]],
    );
}

#[test]
fn structs_lambdas_and_blocks() {
    check_symbols(
        r#"
//- lib/util.rb
Point = Struct.new(:x, :y) do
  def norm = Math.sqrt(x * x + y * y)
end

Base = Class.new(StandardError)

# Doubles.
DOUBLE = lambda { |x| x * 2 }
square = ->(x) { x * x }
DEFAULTS = { a: 1 }.freeze

def each_twice(items)
  items.each do |item|
    yield item
  end
  items.map { |i| i * 2 }
end
"#,
        expect![[r#"
            lib/util.rb (module lib/util, 0 parse errors)
              class Point [1-3] `Point = Struct.new(:x, :y) do`
                method Point.norm [2-2] `def norm`
              class Base [5-5] `Base = Class.new(StandardError)`
              function DOUBLE [8-8] `DOUBLE = lambda` doc: Doubles.
              function square [9-9] `square = ->(x)`
              constant DEFAULTS [10-10] `DEFAULTS = { a: 1 }.freeze`
              function each_twice [12-17] `def each_twice(items)`
        "#]],
    );
}

#[test]
fn syntax_errors_keep_what_was_recovered() {
    check_symbols(
        r#"
//- broken.rb
class Good
  def ok; end
end

def bad(
  1
end

class After
  def fine; end
end
"#,
        expect![[r#"
            broken.rb (module broken, 1 parse errors)
              class Good [1-3] `class Good`
                method Good.ok [2-2] `def ok; end`
              function bad [5-7] `def bad(`
              class After [9-11] `class After`
                method After.fine [10-10] `def fine; end`
        "#]],
    );
}

#[test]
fn references() {
    check_refs(
        r#"
//- app/main.rb
require "json"
require_relative "../lib/geo/shape"

class Square < Geo::Shape
  include Comparable
  extend Forwardable, Geo::Helpers

  def initialize(side)
    @side = side
    super(side)
  end

  def area
    @side * @side
  end
end

def main
  sq = Square.new(2)
  shape = Geo::Shape.build(1)
  puts sq.area
  Geo::Shape.registry.clear
  JSON.generate(shape.to_h)
  [sq].each { |s| s.area }
  klass.new
end

Error = Class.new(StandardError)
"#,
        expect![[r#"
            app/main.rb
              1:9 import json in <module>
              2:18 import ../lib/geo/shape in <module>
              4:21 inherit Geo :: Shape in Square
              5:11 inherit Comparable in Square
              6:10 inherit Forwardable in Square
              6:28 inherit Geo :: Helpers in Square
              9:5 field_use @side in Square.initialize
              14:5 field_use @side in Square.area
              14:13 field_use @side in Square.area
              19:8 instantiate Square in main
              20:22 call Geo::Shape :: build in main
              21:3 call puts in main
              21:11 call sq :: area in main
              22:14 call Geo::Shape :: registry in main
              22:23 call Geo::Shape.registry :: clear in main
              23:8 call JSON :: generate in main
              23:23 call shape :: to_h in main
              24:8 call [sq] :: each in main
              24:21 call s :: area in main
              25:9 call klass :: new in main
              28:9 instantiate Class in Error
              28:19 inherit StandardError in Error
        "#]],
    );
}

#[test]
fn chunks_keep_definitions_whole_and_split_big_ones() {
    let small = ChunkBudget { max_chars: 400, max_lines: 8, overlap_lines: 2 };
    check_chunks(
        r#"
//- big.rb
require "set"

# A big class.
class Big
  def one
    1
  end

  # two is long
  def two
    a = 1
    b = 2
    c = 3
    d = 4
    e = 5
    f = 6
    a + b + c + d + e + f
  end
end

def tail; end
"#,
        small,
        expect![[r#"
            big.rb
              1-1 big | class - | fn -
              3-7 Big | class - | fn -
              9-10 Big.two | class in Big[4-19] | fn after one[5-7]
              11-18 Big.two | class in Big[4-19] | fn in two[10-18]
              19-19 Big | class in Big[4-19] | fn after two[10-18]
              21-21 tail | class after Big[4-19] | fn in tail[21-21]
        "#]],
    );
}
