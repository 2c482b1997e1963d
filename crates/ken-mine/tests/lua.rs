mod common;

use common::{render_chunks, render_references, render_symbols};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

const SOURCES: &str = r#"
//- lua/shapes/init.lua
--- Shapes and their areas.
local util = require("shapes.util")
local log = require "shapes.log"
require("shapes.setup")

local M = {}

--- The largest number of sides.
M.MAX_SIDES = 12
local DEFAULT_RADIUS = 1.0

--- A circle, with its metatable.
local Circle = setmetatable({}, { __index = util.Base })
Circle.__index = Circle

--- Creates a circle.
function Circle.new(r)
  local self = setmetatable({}, Circle)
  self.r = r or DEFAULT_RADIUS
  return self
end

function Circle:area()
  return math.pi * util.square(self.r)
end

function Circle:describe()
  log.info("circle of area " .. self:area())
end

local function helper(x)
  return x * 2
end

--- Sums the areas of `shapes`.
function M.total(shapes)
  local sum = 0
  for _, s in ipairs(shapes) do
    sum = sum + s:area() + helper(1)
  end
  return sum
end

M.make = function(r)
  return Circle.new(r)
end

M.Circle = Circle

return M
//- lua/shapes/util.lua
local Base = {}
Base.__index = Base

function Base:describe()
  return "shape"
end

return {
  Base = Base,
  square = function(x) return x * x end,
  VERSION = "1.0",
}
//- game/player.lua
-- A global class in the style of classic.lua.
Player = Entity:extend()

function Player:new(x, y)
  Player.super.new(self, x, y)
  self.speed = 100
end

function Player:update(dt)
  self.x = self.x + self.speed * dt
  self:move(dt)
end

local add = function(a, b) return a + b end

function love.update(dt)
  player:update(dt)
end
-- end of file
//- game/cat.lua
local class = require("middleclass")
local Animal = require("game.animal")

local Cat = class("Cat", Animal)
local Kitten = Cat:subclass("Kitten")

function Cat:initialize(name)
  Animal.initialize(self, name)
end

return Cat
"#;

fn check(render: fn(&str) -> String, expect: Expect) {
    expect.assert_eq(&render(SOURCES));
}

#[test]
fn modules_classes_functions_and_constants() {
    check(
        render_symbols,
        expect![[r#"
            lua/shapes/init.lua (module lua/shapes/init, 0 parse errors)
              module M [6-6] `local M = {}`
              constant M.MAX_SIDES [9-9] `M.MAX_SIDES = 12` doc: The largest number of sides.
              constant DEFAULT_RADIUS [10-10] `local DEFAULT_RADIUS = 1.0`
              class Circle [13-13] `local Circle = setmetatable(` doc: A circle, with its metatable.
                constructor Circle.new [17-21] `function Circle.new(r)` doc: Creates a circle.
                method Circle.area [23-25] `function Circle:area()`
                method Circle.describe [27-29] `function Circle:describe()`
              function helper [31-33] `local function helper(x)`
              function M.total [36-42] `function M.total(shapes)` doc: Sums the areas of `shapes`.
              function M.make [44-46] `M.make = function(r)`
            lua/shapes/util.lua (module lua/shapes/util, 0 parse errors)
              class Base [1-1] `local Base`
                method Base.describe [4-6] `function Base:describe()`
              function square [10-10] `square = function(x) return x * x end`
            game/player.lua (module game/player, 0 parse errors)
              class Player [2-2] `Player = Entity:extend()` doc: A global class in the style of classic.lua.
                constructor Player.new [4-7] `function Player:new(x, y)`
                method Player.update [9-12] `function Player:update(dt)`
              function add [14-14] `local add = function(a, b) return a + b end`
              method love.update [16-18] `function love.update(dt)`
            game/cat.lua (module game/cat, 0 parse errors)
              module Cat [4-4] `local Cat = class("Cat", Animal)`
              class Kitten [5-5] `local Kitten = Cat:subclass("Kitten")`
              method Cat.initialize [7-9] `function Cat:initialize(name)`
        "#]],
    );
}

#[test]
fn calls_requires_inheritance_and_fields() {
    check(
        render_references,
        expect![[r#"
        lua/shapes/init.lua
          2:23 import shapes.util as util in <module>
          3:22 import shapes.log as log in <module>
          4:10 import shapes.setup in <module>
          13:16 call setmetatable in Circle
          13:50 inherit util :: Base in Circle
          18:16 call setmetatable in Circle.new
          19:8 field_use r in Circle.new
          24:25 call util :: square in Circle.area
          24:37 field_use r in Circle.area
          28:7 call log :: info in Circle.describe
          28:38 call self :: area in Circle.describe
          38:15 call ipairs in M.total
          39:19 call s :: area in M.total
          39:28 call helper in M.total
          45:17 call Circle :: new in M.make
        lua/shapes/util.lua
        game/player.lua
          2:10 inherit Entity in Player
          2:17 call Entity :: extend in Player
          5:16 call Player.super :: new in Player.new
          6:8 field_use speed in Player.new
          10:8 field_use x in Player.update
          10:17 field_use x in Player.update
          10:26 field_use speed in Player.update
          11:8 call self :: move in Player.update
          17:10 call player :: update in love.update
        game/cat.lua
          1:24 import middleclass as class in <module>
          2:25 import game.animal as Animal in <module>
          4:13 call class in Cat
          4:26 inherit Animal in Cat
          5:16 inherit Cat in Kitten
          5:20 call Cat :: subclass in Kitten
          8:10 call Animal :: initialize in Cat.initialize
    "#]],
    );
}

#[test]
fn chunks_follow_functions() {
    check(
        |f| render_chunks(f, ChunkBudget::default()),
        expect![[r#"
        lua/shapes/init.lua
          1-6 M | class - | fn -
          8-9 M.MAX_SIDES | class - | fn -
          10-10 DEFAULT_RADIUS | class - | fn -
          12-14 Circle | class - | fn -
          16-21 Circle.new | class after Circle[13-13] | fn -
          23-25 Circle.area | class after Circle[13-13] | fn in area[23-25]
          27-29 Circle.describe | class after Circle[13-13] | fn in describe[27-29]
          31-33 helper | class after Circle[13-13] | fn in helper[31-33]
          35-42 M.total | class after Circle[13-13] | fn after helper[31-33]
          44-50 M.make | class after Circle[13-13] | fn in make[44-46]
        lua/shapes/util.lua
          1-13 Base | class in Base[1-1] | fn -
        game/player.lua
          1-20 Player | class - | fn -
        game/cat.lua
          1-12 Cat | class - | fn -
    "#]],
    );
}
