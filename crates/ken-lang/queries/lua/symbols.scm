; Lua symbols. A file is a module; the table it returns (`local M = {}`
; ... `return M`) is a module symbol whose functions stay the file's
; members, so `require("a.b").f` finds them. Any other capitalized table
; declared at the top level (`local Circle = {}`, `Point =
; setmetatable({}, ...)`, `Dog = Animal:extend()`, `class("Cat", Animal)`)
; is a class holding its `function T.f` and `function T:m` (named `T.f`,
; through `@receiver`); in a file that returns nothing only global ones are.
; `function f`, `local function f` and `f = function` are functions; a
; top-level local or table field set to a literal is a constant.

; --- Tables at the top level -------------------------------------------
; (A top-level `return` is always the file's last statement.)

; The returned table: the file's own module.
(chunk
  (variable_declaration
    (assignment_statement
      (variable_list . name: (identifier) @name)
      (expression_list . value: [(table_constructor) (function_call)]))) @definition.module
  (return_statement (expression_list . (identifier) @_returned))
  (#eq? @name @_returned))

; Another capitalized local table of a module that returns a name or a
; table, made by `{}` or a class maker: a class.
(chunk
  (variable_declaration
    (assignment_statement
      (variable_list . name: (identifier) @name)
      (expression_list . value: (table_constructor)))) @definition.class
  (return_statement (expression_list . [(identifier) (table_constructor)] @_returned))
  (#not-eq? @name @_returned)
  (#match? @name "^[A-Z]"))

(chunk
  (variable_declaration
    (assignment_statement
      (variable_list . name: (identifier) @name)
      (expression_list . value: [
        (function_call name: (identifier) @_maker)
        (function_call name: (method_index_expression method: (identifier) @_maker))
      ]))) @definition.class
  (return_statement (expression_list . [(identifier) (table_constructor)] @_returned))
  (#not-eq? @name @_returned)
  (#match? @name "^[A-Z]")
  (#match? @_maker "^(setmetatable|class|Class|extend|subclass)$"))

; A capitalized global table (scripts, LÖVE games): `Player = {}`,
; `Player = Entity:extend()`.
(chunk
  (assignment_statement
    (variable_list . name: (identifier) @name)
    (expression_list . value: (table_constructor))) @definition.class
  (#match? @name "^[A-Z]"))

(chunk
  (assignment_statement
    (variable_list . name: (identifier) @name)
    (expression_list . value: [
      (function_call name: (identifier) @_maker)
      (function_call name: (method_index_expression method: (identifier) @_maker))
    ])) @definition.class
  (#match? @name "^[A-Z]")
  (#match? @_maker "^(setmetatable|class|Class|extend|subclass)$"))

; --- Functions -----------------------------------------------------------

(function_declaration
  name: (identifier) @name) @definition.function

(function_declaration
  name: (dot_index_expression
    table: (_) @receiver
    field: (identifier) @name)) @definition.function

(function_declaration
  name: (method_index_expression
    table: (_) @receiver
    method: (identifier) @name)) @definition.method

; `local f = function() end`
(variable_declaration
  (assignment_statement
    (variable_list . name: (identifier) @name)
    (expression_list . value: (function_definition)))) @definition.function

; `f = function() end` (not under `local`), `T.f = function() end`.
(chunk
  (assignment_statement
    (variable_list . name: (identifier) @name)
    (expression_list . value: (function_definition))) @definition.function)

(block
  (assignment_statement
    (variable_list . name: (identifier) @name)
    (expression_list . value: (function_definition))) @definition.function)

(assignment_statement
  (variable_list
    . name: (dot_index_expression
      table: (_) @receiver
      field: (identifier) @name))
  (expression_list . value: (function_definition))) @definition.function

; `local M = { f = function() end }`, `return { f = function() end }`.
(chunk
  (variable_declaration
    (assignment_statement
      (expression_list
        value: (table_constructor
          (field
            name: (identifier) @name
            value: (function_definition)) @definition.function)))))

(chunk
  (return_statement
    (expression_list
      (table_constructor
        (field
          name: (identifier) @name
          value: (function_definition)) @definition.function))))

; --- Constants -------------------------------------------------------------

; `local MAX = 10`, `M.VERSION = "1.0"` at the top level.
(chunk
  (variable_declaration
    (assignment_statement
      (variable_list . name: (identifier) @name)
      (expression_list . value: [(number) (string) (true) (false)]))) @definition.constant)

(chunk
  (assignment_statement
    (variable_list
      . name: (dot_index_expression
        table: (identifier) @receiver
        field: (identifier) @name))
    (expression_list . value: [(number) (string) (true) (false)])) @definition.constant)
