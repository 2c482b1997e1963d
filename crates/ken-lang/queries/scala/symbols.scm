; Scala symbols. The `package` clause names the file's symbols (with
; chained clauses, `package a` then `package b`, the last one). Classes,
; case classes, objects and `type` aliases are classes (a companion object
; is a scope of its class or trait), traits traits, Scala 3 enums enums with their cases
; as constants; a `package object` is a module named after it. `def`s in a
; template are methods, top-level ones and extension methods functions;
; `def this(...)` is a constructor. `val`/`var` members are fields, as are
; `val`/`var` class parameters and every parameter of a case class;
; top-level `val`s and named `given`s are constants.

(package_clause
  name: (package_identifier) @package)

(package_object
  name: (identifier) @name) @definition.module

; A companion object after its class or trait is a scope of that type, as
; a Rust `impl` is: its members are the type's (`Circle.unit()`). (One
; before its type stays a class of the same name: the first match of a node
; wins, and this one comes after the object's own.)
((_
  [
    (class_definition name: (identifier) @_type)
    (trait_definition name: (identifier) @_type)
  ]
  (object_definition
    name: (identifier) @name) @scope)
  (#eq? @_type @name))

(class_definition
  name: (identifier) @name) @definition.class

(object_definition
  name: (identifier) @name) @definition.class

(trait_definition
  name: (identifier) @name) @definition.trait

(enum_definition
  name: (identifier) @name) @definition.enum

(simple_enum_case
  name: (identifier) @name) @definition.constant

(full_enum_case
  name: (identifier) @name) @definition.constant

(type_definition
  name: (type_identifier) @name) @definition.class

((function_definition
  name: (identifier) @name) @definition.constructor
  (#eq? @name "this"))

(function_definition
  name: (identifier) @name) @definition.function

(function_declaration
  name: (identifier) @name) @definition.function

(template_body
  [
    (val_definition
      pattern: (identifier) @name)
    (var_definition
      pattern: (identifier) @name)
    (val_declaration
      name: (identifier) @name)
    (var_declaration
      name: (identifier) @name)
  ] @definition.field)

(class_parameter
  ["val" "var"]
  name: (identifier) @name) @definition.field

(class_definition
  "case"
  class_parameters: (class_parameters
    (class_parameter
      name: (identifier) @name) @definition.field))

(compilation_unit
  (val_definition
    pattern: (identifier) @name) @definition.constant)

(given_definition
  name: (identifier) @name) @definition.constant
