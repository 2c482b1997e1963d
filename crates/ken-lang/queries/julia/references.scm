; Julia raw references: `using M` brings every exported name of M (as does
; `using M: a, b`, taken whole); `import M` names M; calls (`f(x)`,
; `M.f(x)`, `obj.f(x)`); a supertype (`struct C <: Shape`) is inheritance;
; `obj.field` outside a call is a field use.

(using_statement
  (identifier) @path @glob) @reference.import

(using_statement
  (import_path
    (identifier) @path @glob)) @reference.import

[(using_statement
  (selected_import
    .
    [(identifier) @path
     (import_path
       (identifier) @path)]
    @glob))
 (import_statement
  (selected_import
    .
    [(identifier) @path
     (import_path
       (identifier) @path)]
    @glob))] @reference.import

(import_statement
  (identifier) @path) @reference.import

(import_statement
  (import_path
    (identifier) @path)) @reference.import

(call_expression
  .
  (identifier) @name) @reference.call

(call_expression
  .
  (field_expression
    value: (_) @receiver
    (identifier) @name .) @callee) @reference.call

(struct_definition
  (type_head
    (binary_expression
      (operator) @_op
      .
      [(identifier) @name
       (parametrized_type_expression
         .
         (identifier) @name)] .) @reference.inherit)
  (#eq? @_op "<:"))

(abstract_definition
  (type_head
    (binary_expression
      (operator) @_op
      .
      [(identifier) @name
       (parametrized_type_expression
         .
         (identifier) @name)] .) @reference.inherit)
  (#eq? @_op "<:"))

(field_expression
  value: (_) @receiver
  (identifier) @name .) @reference.field_use
