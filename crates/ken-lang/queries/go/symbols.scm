; Go symbols. A declaration holding a single spec (`type X struct{}`,
; `const Max = 10`) is the definition itself, so the comment above it is its
; doc; in a parenthesised group each spec is its own definition. Specs and
; fields that declare several names at once (`X, Y int`) define each name on
; its own, spanning only the name.

(package_clause
  (package_identifier) @package)

(function_declaration
  name: (identifier) @name) @definition.function

; `func (r *Recv[T]) Name()`: the receiver's type names the method's owner.
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @receiver
        (pointer_type (type_identifier) @receiver)
        (generic_type type: (type_identifier) @receiver)
        (pointer_type (generic_type type: (type_identifier) @receiver))
      ]))
  name: (field_identifier) @name) @definition.method

; Interface methods.
(method_elem
  name: (field_identifier) @name) @definition.method

; Types: a single `type` declaration, then the specs of a group.
(type_declaration .
  (type_spec
    name: (type_identifier) @name
    type: (struct_type)) .) @definition.struct

(type_declaration .
  (type_spec
    name: (type_identifier) @name
    type: (interface_type)) .) @definition.interface

; Other defined types (`type Kind int`, `type HandlerFunc func()`) can have
; methods too; they are classes here.
(type_declaration .
  (type_spec
    name: (type_identifier) @name
    type: [
      (type_identifier) (qualified_type) (generic_type) (pointer_type)
      (slice_type) (array_type) (map_type) (channel_type) (function_type)
    ]) .) @definition.class

(type_declaration
  (type_spec
    name: (type_identifier) @name
    type: (struct_type)) @definition.struct
  (type_spec))

(type_declaration
  (type_spec)
  (type_spec
    name: (type_identifier) @name
    type: (struct_type)) @definition.struct)

(type_declaration
  (type_spec
    name: (type_identifier) @name
    type: (interface_type)) @definition.interface
  (type_spec))

(type_declaration
  (type_spec)
  (type_spec
    name: (type_identifier) @name
    type: (interface_type)) @definition.interface)

(type_declaration
  (type_spec
    name: (type_identifier) @name
    type: [
      (type_identifier) (qualified_type) (generic_type) (pointer_type)
      (slice_type) (array_type) (map_type) (channel_type) (function_type)
    ]) @definition.class
  (type_spec))

(type_declaration
  (type_spec)
  (type_spec
    name: (type_identifier) @name
    type: [
      (type_identifier) (qualified_type) (generic_type) (pointer_type)
      (slice_type) (array_type) (map_type) (channel_type) (function_type)
    ]) @definition.class)

; Struct fields; embedded fields have no name and are inherit references.
(field_declaration .
  name: (field_identifier) @name .
  type: (_)) @definition.field

(field_declaration
  name: (field_identifier) @name @definition.field .
  name: (field_identifier))

(field_declaration
  name: (field_identifier)
  name: (field_identifier) @name @definition.field)

; Constants: a single `const` declaration, the specs of a group, and each
; name of a spec declaring several.
(const_declaration .
  (const_spec .
    name: (identifier) @name .
    [type: (_) value: (_)]) .) @definition.constant

(const_declaration
  (const_spec .
    name: (identifier) @name .
    [type: (_) value: (_)]) @definition.constant
  (const_spec))

(const_declaration
  (const_spec)
  (const_spec .
    name: (identifier) @name .
    [type: (_) value: (_)]) @definition.constant)

; `iota` continuations: a spec with a name only.
(const_declaration
  (const_spec .
    name: (identifier) @name .) @definition.constant)

; (The names of a spec are its only `identifier` children; the grammar puts
; the commas in the `name` field too, so the patterns go without it.)
(const_spec
  (identifier) @name @definition.constant
  (identifier))

(const_spec
  (identifier)
  (identifier) @name @definition.constant)

; A function literal bound to a package-level variable is a function.
(source_file
  (var_declaration .
    (var_spec .
      name: (identifier) @name .
      value: (expression_list . (func_literal) .)) .) @definition.function)

(source_file
  (var_declaration
    (var_spec_list
      (var_spec .
        name: (identifier) @name .
        value: (expression_list . (func_literal) .)) @definition.function)))
