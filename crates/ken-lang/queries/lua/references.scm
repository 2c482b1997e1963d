; Lua raw references: calls (`f()`, `t.f()`, `obj:m()` with the receiver),
; `local m = require("a.b")` imports module `a.b` as `m` (a bare
; `require("a.b")` imports it unnamed), inheritance of a class table
; (`setmetatable({}, { __index = Base })`, `Base:extend()`,
; `class("Name", Base)`, `Base:subclass("Name")`), and `self.x` field uses.

((function_call
  name: (identifier) @name) @reference.call
  (#not-eq? @name "require"))

(function_call
  name: (dot_index_expression
    table: (_) @receiver
    field: (identifier) @name) @callee) @reference.call

(function_call
  name: (method_index_expression
    table: (_) @receiver
    method: (identifier) @name) @callee) @reference.call

; local m = require("a.b") / local m = require "a.b"
((variable_declaration
  (assignment_statement
    (variable_list
      . name: (identifier) @alias)
    (expression_list
      . value: (function_call
        name: (identifier) @_require
        arguments: (arguments
          . (string
            content: (string_content) @path))))))
  @reference.import
  (#eq? @_require "require"))

; require("a.b") as a statement.
(chunk
  (function_call
    name: (identifier) @_require
    arguments: (arguments
      . (string
        content: (string_content) @path))) @reference.import
  (#eq? @_require "require"))

(block
  (function_call
    name: (identifier) @_require
    arguments: (arguments
      . (string
        content: (string_content) @path))) @reference.import
  (#eq? @_require "require"))

; Bases of a class table declared at the top level.
(chunk
  [
    (variable_declaration (assignment_statement (expression_list . value: (function_call
      name: (identifier) @_setmetatable
      arguments: (arguments
        (table_constructor
          (field
            name: (identifier) @_index
            value: [
              (identifier) @name
              (dot_index_expression table: (_) @receiver field: (identifier) @name)
            ])))))))
    (assignment_statement (expression_list . value: (function_call
      name: (identifier) @_setmetatable
      arguments: (arguments
        (table_constructor
          (field
            name: (identifier) @_index
            value: [
              (identifier) @name
              (dot_index_expression table: (_) @receiver field: (identifier) @name)
            ]))))))
  ] @reference.inherit
  (#eq? @_setmetatable "setmetatable")
  (#eq? @_index "__index"))

(chunk
  [
    (variable_declaration (assignment_statement (expression_list . value: (function_call
      name: (method_index_expression
        table: [
          (identifier) @name
          (dot_index_expression table: (_) @receiver field: (identifier) @name)
        ]
        method: (identifier) @_extend)))))
    (assignment_statement (expression_list . value: (function_call
      name: (method_index_expression
        table: [
          (identifier) @name
          (dot_index_expression table: (_) @receiver field: (identifier) @name)
        ]
        method: (identifier) @_extend))))
  ] @reference.inherit
  (#match? @_extend "^(extend|subclass)$"))

(chunk
  [
    (variable_declaration (assignment_statement (expression_list . value: (function_call
      name: (identifier) @_class
      arguments: (arguments
        (string)
        .
        [
          (identifier) @name
          (dot_index_expression table: (_) @receiver field: (identifier) @name)
        ])))))
    (assignment_statement (expression_list . value: (function_call
      name: (identifier) @_class
      arguments: (arguments
        (string)
        .
        [
          (identifier) @name
          (dot_index_expression table: (_) @receiver field: (identifier) @name)
        ]))))
  ] @reference.inherit
  (#match? @_class "^(class|Class)$"))

((dot_index_expression
  table: (identifier) @_self
  field: (identifier) @name) @reference.field_use
  (#eq? @_self "self"))
