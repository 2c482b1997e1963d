; Julia type facts: typed arguments and fields (`c::Circle`), names bound
; to a call's result (`c = Circle(1.0)`), declared return types
; (`function f(x)::Circle`).

(typed_expression
  .
  (identifier) @name
  .
  (identifier) @type) @binding

(assignment
  .
  (identifier) @name
  .
  (operator)
  .
  (call_expression
    .
    [(identifier) (field_expression)] @value)) @binding

(function_definition
  (signature
    (typed_expression
      (call_expression)
      .
      (identifier) @type))) @returns
