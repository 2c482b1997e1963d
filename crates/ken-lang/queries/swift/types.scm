; Swift type facts, for receiver type inference: typed parameters and
; properties, properties assigned a call's result (`let c = Canvas()`,
; `let s = store.load()`), and declared return types (`-> Canvas`).

; func f(_ shape: Shape) / init(shape: Shape?): the name right before the type.
(parameter
  (simple_identifier) @name
  .
  [(user_type) (optional_type)] @type) @binding

; let s: Shape = ... / var delegate: Delegate?
(property_declaration
  name: (pattern
    bound_identifier: (simple_identifier) @name)
  (type_annotation
    [(user_type) (optional_type)] @type)) @binding

(protocol_property_declaration
  name: (pattern
    bound_identifier: (simple_identifier) @name)
  (type_annotation
    [(user_type) (optional_type)] @type)) @binding

; let c = Canvas() / let s = store.load()
(property_declaration
  name: (pattern
    bound_identifier: (simple_identifier) @name)
  value: (call_expression
    .
    [(simple_identifier) (navigation_expression)] @value)) @binding

; func make() -> Canvas
(function_declaration
  "->"
  .
  [(user_type) (optional_type)] @type) @returns

(protocol_function_declaration
  "->"
  .
  [(user_type) (optional_type)] @type) @returns
