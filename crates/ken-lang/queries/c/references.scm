; C raw references.

(call_expression
  function: (identifier) @name) @reference.call

; Calls through struct members: `ops->open(f)`, `dev.reset()`.
(call_expression
  function: (field_expression
    argument: (_) @receiver
    field: (field_identifier) @name) @callee) @reference.call

(call_expression
  function: (parenthesized_expression
    (pointer_expression
      argument: (identifier) @name))) @reference.call

; #include <stdio.h> / #include "util/list.h" (system headers keep their <>).
(preproc_include
  path: (_) @path) @reference.import

; Compound literals: `(struct point){ .x = 1 }`.
(compound_literal_expression
  type: (type_descriptor
    type: [
      (struct_specifier name: (type_identifier) @name)
      (union_specifier name: (type_identifier) @name)
      (type_identifier) @name
    ])) @reference.instantiate

(field_expression
  argument: (_) @receiver
  field: (field_identifier) @name) @reference.field_use
