; Swift symbols. `class_declaration` holds classes, actors, structs, enums
; and extensions, told apart by `declaration_kind`; an extension is a scope
; named after the type it extends (`extension Canvas.Layer`), so its
; functions are that type's methods (as a Rust `impl`). Protocols are
; interfaces with their required functions (methods) and properties
; (fields); `init` is the constructor; stored and computed properties are
; fields, top-level `let`/`var` constants; each case of an enum is a
; constant; `typealias` names a class. Swift has no declared package: one
; module's files share one namespace.

(protocol_declaration
  name: (type_identifier) @name) @definition.interface

(protocol_function_declaration
  name: (simple_identifier) @name) @definition.method

(protocol_body
  (protocol_property_declaration
    name: (pattern
      bound_identifier: (simple_identifier) @name)) @definition.field)

(class_declaration
  declaration_kind: ["class" "actor"]
  name: (type_identifier) @name) @definition.class

(class_declaration
  declaration_kind: "struct"
  name: (type_identifier) @name) @definition.struct

(class_declaration
  declaration_kind: "enum"
  name: (type_identifier) @name) @definition.enum

(class_declaration
  declaration_kind: "extension"
  name: (user_type) @name) @scope

; An enum case with one name is the whole entry (`case custom(String)`,
; `indirect case node(Tree)`, `case north = 1`), with its doc comment; in
; `case north, south` each name is its own constant (siblings, not nested).
([
  (enum_entry
    . (simple_identifier) @name .)
  (enum_entry
    . (simple_identifier) @name
    . [(enum_type_parameters) (integer_literal) (real_literal) (hex_literal) (oct_literal)
       (bin_literal) (line_string_literal) (boolean_literal) (prefix_expression)] .)
  (enum_entry
    . (modifiers) . (simple_identifier) @name .)
  (enum_entry
    . (modifiers) . (simple_identifier) @name
    . [(enum_type_parameters) (integer_literal) (real_literal) (hex_literal) (oct_literal)
       (bin_literal) (line_string_literal) (boolean_literal) (prefix_expression)] .)
] @definition.constant)

(enum_entry
  (simple_identifier) @name @definition.constant
  (simple_identifier))

(enum_entry
  (simple_identifier)
  (simple_identifier) @name @definition.constant)

(function_declaration
  name: (simple_identifier) @name) @definition.function

(init_declaration
  name: "init" @name) @definition.constructor

([
  (class_body
    (property_declaration
      name: (pattern
        bound_identifier: (simple_identifier) @name)) @definition.field)
  (enum_class_body
    (property_declaration
      name: (pattern
        bound_identifier: (simple_identifier) @name)) @definition.field)
])

(source_file
  (property_declaration
    name: (pattern
      bound_identifier: (simple_identifier) @name)) @definition.constant)

(typealias_declaration
  name: (type_identifier) @name) @definition.class
