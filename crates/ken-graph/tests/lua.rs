//! Lua end to end: `require` binds a module file to a local name and calls
//! through it resolve into the table that file returns; a class table's
//! methods resolve through `self` and a global class inherits across files.

mod common;

use common::check_edges;
use expect_test::expect;

#[test]
fn requires_tables_classes_and_inheritance() {
    check_edges(
        r#"
//- lua/shapes/util.lua
local M = {}

function M.square(x)
  return x * x
end

return M
//- lua/shapes/init.lua
local util = require("shapes.util")

local M = {}

local Circle = {}
Circle.__index = Circle

function Circle.new(r)
  return setmetatable({ r = r }, Circle)
end

function Circle:area()
  return 3.14 * util.square(self.r)
end

function Circle:describe()
  return "circle of area " .. self:area()
end

local function sum(values)
  local total = 0
  for _, v in ipairs(values) do total = total + v end
  return total
end

function M.total(radii)
  local areas = {}
  for i, r in ipairs(radii) do
    areas[i] = Circle.new(r):area()
  end
  return sum(areas)
end

return M
//- game/entity.lua
Entity = Object:extend()

function Entity:move(dx)
  self.x = self.x + dx
end
//- game/player.lua
Player = Entity:extend()

function Player:update(dt)
  self:move(dt * 10)
end
//- main.lua
local shapes = require("shapes")
local util = require("shapes.util")

local function report()
  print(shapes.total({ 1, 2 }), util.square(3))
end

report()
"#,
        expect![[r#"
            Circle.area -calls-> M.square
            Circle.describe -calls-> Circle.area
            Circle.new -construct-> Circle
            M.total -calls-> Circle.area
            M.total -calls-> Circle.new
            M.total -calls-> sum
            Player -derived_class_of-> Entity [unique_name]
            Player.update -calls-> Entity.move
            lua/shapes/init -imports-> lua/shapes/util
            main -calls-> report
            main -imports-> lua/shapes/util
            report -calls-> M.square
            unresolved:
            Circle.new -calls-> ?setmetatable
            Entity -calls-> ?extend
            Entity -derived_class_of-> ?Object
            M.total -calls-> ?ipairs
            Player -calls-> ?extend
            main -imports-> ?shapes
            report -calls-> ?print
            report -calls-> ?total
            sum -calls-> ?ipairs
        "#]],
    );
}
