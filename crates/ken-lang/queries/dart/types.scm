; Dart type facts, for receiver type inference: typed parameters, fields
; and locals; locals and fields assigned a call's result (`final c =
; Circle(1)`, `var b = Box.make(1)`); declared return types.

(formal_parameter
  (type
    .
    (type_identifier) @type)
  name: (identifier) @name) @binding

(declaration
  (type
    .
    (type_identifier) @type)
  (initialized_identifier_list
    (initialized_identifier
      name: (identifier) @name))) @binding

(initialized_variable_declaration
  (type
    .
    (type_identifier) @type)
  name: (identifier) @name) @binding

(initialized_variable_declaration
  name: (identifier) @name
  value: (call_expression
    function: [(identifier) (member_expression)] @value)) @binding

(initialized_identifier
  name: (identifier) @name
  value: (call_expression
    function: [(identifier) (member_expression)] @value)) @binding

(function_declaration
  signature: (function_signature
    return_type: (type
      .
      (type_identifier) @type))) @returns

(method_declaration
  signature: (method_signature
    [(function_signature
      return_type: (type
        .
        (type_identifier) @type))
     (getter_signature
      return_type: (type
        .
        (type_identifier) @type))])) @returns
