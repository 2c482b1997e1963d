; Kotlin symbols. The `package` header names the file's symbols.
; Classes (data, sealed, abstract, annotation, inner), `object`s and
; `typealias`es are classes; `interface` and `fun interface` interfaces;
; `enum class` enums with their entries as constants. Functions inside a
; class, object or interface are methods, top-level and extension functions
; (`fun Shape.describe()`) functions; `constructor(...)` is a constructor.
; A companion object is no symbol: its members are its class's, as Kotlin
; calls them (`Circle.unit()`). Properties in a body and `val`/`var` class
; parameters are fields; top-level properties are constants.

(package_header
  (qualified_identifier) @package)

(class_declaration
  "interface"
  name: (identifier) @name) @definition.interface

((class_declaration
  (modifiers
    (class_modifier) @_enum)
  name: (identifier) @name) @definition.enum
  (#eq? @_enum "enum"))

(class_declaration
  name: (identifier) @name) @definition.class

(object_declaration
  name: (identifier) @name) @definition.class

(type_alias
  type: (identifier) @name) @definition.class

(function_declaration
  name: (identifier) @name) @definition.function

(secondary_constructor
  "constructor" @name) @definition.constructor

(enum_entry
  (identifier) @name) @definition.constant

(class_body
  (property_declaration
    (variable_declaration
      (identifier) @name)) @definition.field)

(class_parameter
  ["val" "var"]
  (identifier) @name) @definition.field

(source_file
  (property_declaration
    (variable_declaration
      (identifier) @name)) @definition.constant)
