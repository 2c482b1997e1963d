; Kotlin type facts, for receiver type inference: typed parameters, class
; parameters and properties; properties assigned a call's result
; (`val c = Circle(2.0)`, `val r = repo.find(1)`); declared return types.

; fun f(shape: Shape) / class C(val shape: Shape)
(parameter
  (identifier) @name
  [(user_type) (nullable_type)] @type) @binding

(class_parameter
  (identifier) @name
  [(user_type) (nullable_type)] @type) @binding

; val s: Shape = ...
(property_declaration
  (variable_declaration
    (identifier) @name
    [(user_type) (nullable_type)] @type)) @binding

; val c = Circle(2.0) / val c = repo.make()
(property_declaration
  (variable_declaration
    (identifier) @name
    .)
  .
  (call_expression
    .
    [(identifier) (navigation_expression)] @value)) @binding

; fun make(): Circle
(function_declaration
  (function_value_parameters)
  .
  [(user_type) (nullable_type)] @type) @returns
