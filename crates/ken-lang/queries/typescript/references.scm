; TypeScript raw references (TSX adds JSX components).

; Calls. `require(...)` and `import(...)` are imports, not calls.
((call_expression
  function: (identifier) @name) @reference.call
  (#not-eq? @name "require"))

(call_expression
  function: (member_expression
    object: (_) @receiver
    property: [(property_identifier) (private_property_identifier)] @name) @callee) @reference.call

; `await a.b<T>()` parses as a call of `await a.b`.
(call_expression
  function: (await_expression
    (member_expression
      object: (_) @receiver
      property: [(property_identifier) (private_property_identifier)] @name) @callee)) @reference.call

; `super(…)` in a constructor calls the base class's constructor.
(call_expression
  function: (super) @name) @reference.call

(new_expression
  constructor: (identifier) @name) @reference.instantiate

(new_expression
  constructor: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name) @callee) @reference.instantiate

; import d from "m" / import {a, b as c} from "m" / import * as ns from "m"
(import_statement
  (import_clause
    (identifier) @name)
  source: (string) @path) @reference.import

(import_statement
  (import_clause
    (named_imports
      (import_specifier
        name: (_) @name
        alias: (_)? @alias)))
  source: (string) @path) @reference.import

(import_statement
  (import_clause
    (namespace_import
      "*" @name
      (identifier) @alias))
  source: (string) @path) @reference.import

; import "m"
(import_statement
  .
  source: (string) @path) @reference.import

; Re-exports depend on their module too: export {a as b} from "m" / export * from "m"
(export_statement
  (export_clause
    (export_specifier
      name: (_) @name
      alias: (_)? @alias))
  source: (string) @path) @reference.import

(export_statement
  "*" @name
  source: (string) @path) @reference.import

(export_statement
  (namespace_export
    "*" @name
    (_) @alias)
  source: (string) @path) @reference.import

; CommonJS: const m = require("m") / const {a, b: c} = require("m") / require("m")
((variable_declarator
  name: (identifier) @alias
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @path .))) @reference.import
  (#eq? @_require "require"))

((variable_declarator
  name: (object_pattern
    (shorthand_property_identifier_pattern) @name)
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @path .))) @reference.import
  (#eq? @_require "require"))

((variable_declarator
  name: (object_pattern
    (pair_pattern
      key: (_) @name
      value: (identifier) @alias))
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @path .))) @reference.import
  (#eq? @_require "require"))

(expression_statement
  (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @path .)) @reference.import
  (#eq? @_require "require"))

(member_expression
  object: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @path .)) @reference.import
  (#eq? @_require "require"))

(call_expression
  function: (import)
  arguments: (arguments . (string) @path)) @reference.import

; import fs = require("fs")
(import_statement
  (import_require_clause
    (identifier) @alias
    source: (string) @path)) @reference.import

; Base classes, implemented interfaces and extended interfaces.
(extends_clause
  value: [(identifier) (member_expression)] @name) @reference.inherit

(implements_clause
  [
    (type_identifier) @name
    (nested_type_identifier) @name
    (generic_type name: (_) @name)
  ]) @reference.inherit

(extends_type_clause
  type: [
    (type_identifier) @name
    (nested_type_identifier) @name
    (generic_type name: (_) @name)
  ]) @reference.inherit

; Property reads and writes: this.x, obj.field.
(member_expression
  object: (_) @receiver
  property: [(property_identifier) (private_property_identifier)] @name) @reference.field_use

; A definition passed or stored by its bare name: f(callback), x = handler,
; { error: handler }, { handler }, [handler], (f = fallback) => ..., return
; handler. Kept only where the name is one of the file's definitions or
; imports (references.rs): most bare names are locals.
(arguments
  (identifier) @name @reference.field_use)

(assignment_expression
  right: (identifier) @name @reference.field_use)

(variable_declarator
  value: (identifier) @name @reference.field_use)

(pair
  value: (identifier) @name @reference.field_use)

(object
  (shorthand_property_identifier) @name @reference.field_use)

(array
  (identifier) @name @reference.field_use)

(return_statement
  (identifier) @name @reference.field_use)

(required_parameter
  value: (identifier) @name @reference.field_use)

(optional_parameter
  value: (identifier) @name @reference.field_use)

; Destructuring reads members: `const { runMode, now: at } = this`.
(variable_declarator
  name: (object_pattern
    (shorthand_property_identifier_pattern) @name)
  value: [(this) (identifier) (member_expression)] @receiver) @reference.field_use

(variable_declarator
  name: (object_pattern
    (pair_pattern
      key: (property_identifier) @name))
  value: [(this) (identifier) (member_expression)] @receiver) @reference.field_use
