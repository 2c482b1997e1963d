; Scala type facts, for receiver type inference: typed parameters, class
; parameters and vals; vals assigned `new C(...)` or a call's result
; (`val c = Circle(2)`, `val r = repo.find(1)`); declared return types.

; def f(shape: Shape) / class C(shape: Shape)
(parameter
  name: (identifier) @name
  type: (_) @type) @binding

(class_parameter
  name: (identifier) @name
  type: (_) @type) @binding

; val s: Shape = ... / var s: Shape = ... / val s: Shape (abstract)
([
  (val_definition pattern: (identifier) @name type: (_) @type)
  (var_definition pattern: (identifier) @name type: (_) @type)
  (val_declaration name: (identifier) @name type: (_) @type)
  (var_declaration name: (identifier) @name type: (_) @type)
] @binding)

; val c = new Circle(2.0)
(val_definition
  pattern: (identifier) @name
  !type
  value: (instance_expression
    [
      (type_identifier)
      (stable_type_identifier)
      (generic_type)
    ] @type)) @binding

; val c = Circle(2.0) / val r = repo.find(1)
(val_definition
  pattern: (identifier) @name
  !type
  value: (call_expression
    function: [(identifier) (field_expression)] @value)) @binding

; def make(): Circle
(function_definition
  return_type: (_) @type) @returns

(function_declaration
  return_type: (_) @type) @returns
