; Go raw references.

(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (selector_expression
    operand: (_) @receiver
    field: (field_identifier) @name) @callee) @reference.call

(call_expression
  function: (parenthesized_expression
    (identifier) @name)) @reference.call

; Explicitly instantiated generic functions: `Map[int, string](xs, f)`.
(call_expression
  function: (index_expression
    operand: [
      (identifier) @name
      (selector_expression operand: (_) @receiver field: (field_identifier) @name)
    ]) @callee) @reference.call

; `Map[int](xs)` parses as a conversion to a generic type; it is nearly
; always a call of a generic function.
(type_conversion_expression
  type: (generic_type
    type: [
      (type_identifier) @name
      (qualified_type package: (_) @receiver name: (type_identifier) @name)
    ])) @reference.call

; import "fmt" / import m "math" / import . "strings" / import _ "embed"
(import_spec
  name: (_)? @alias
  path: (_) @path) @reference.import

; Composite literals: `Point{X: 1}`, `&pkg.Thing{}`, `List[int]{}`.
(composite_literal
  type: [
    (type_identifier) @name
    (qualified_type package: (_) @receiver name: (type_identifier) @name)
    (generic_type type: [
      (type_identifier) @name
      (qualified_type package: (_) @receiver name: (type_identifier) @name)
    ])
  ]) @reference.instantiate

; Embedded struct fields and embedded interfaces.
(field_declaration
  !name
  type: [
    (type_identifier) @name
    (qualified_type package: (_) @receiver name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (pointer_type [
      (type_identifier) @name
      (qualified_type package: (_) @receiver name: (type_identifier) @name)
      (generic_type type: (type_identifier) @name)
    ])
  ]) @reference.inherit

(interface_type
  (type_elem .
    [
      (type_identifier) @name
      (qualified_type package: (_) @receiver name: (type_identifier) @name)
      (generic_type type: (type_identifier) @name)
    ] .) @reference.inherit)

(selector_expression
  operand: (_) @receiver
  field: (field_identifier) @name) @reference.field_use
