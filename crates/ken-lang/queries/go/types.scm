; Go type facts, for receiver type inference. Types are kept as written
; (`*Session`); the resolver strips pointers.
;
; A call returning several results binds its first result to the first name
; (`conn, err := pool.Connect(url)`), so a result list gives the type of its
; first result as the declared return type.

; Receivers, parameters and named results of functions, methods and function
; literals (not of function types, whose names bind nothing):
; func (c *Client) Open(url string, a, b int)
[
  (function_declaration
    (parameter_list
      (parameter_declaration
        name: (identifier) @name
        type: (_) @type) @binding))
  (method_declaration
    (parameter_list
      (parameter_declaration
        name: (identifier) @name
        type: (_) @type) @binding))
  (func_literal
    (parameter_list
      (parameter_declaration
        name: (identifier) @name
        type: (_) @type) @binding))
]

; var tracker Tracker / var a, b Pool
(var_spec
  name: (identifier) @name
  type: (_) @type) @binding

; x := NewPool(n) / conn, err := c.pool.Connect(url) / c := &Client{} /
; p := new(Pool) / s, ok := v.(*Session); and the same with `var x = ...`.
((short_var_declaration
  left: (expression_list . (identifier) @name)
  right: (expression_list .
    [
      (call_expression
        function: [(identifier) (selector_expression)] @value)
      (call_expression
        function: (identifier) @_new
        arguments: (argument_list . [(type_identifier) (qualified_type) (generic_type)] @type .))
      (composite_literal
        type: [(type_identifier) (qualified_type) (generic_type)] @type)
      (unary_expression
        operator: "&"
        operand: (composite_literal
          type: [(type_identifier) (qualified_type) (generic_type)] @type))
      (type_assertion_expression
        type: (_) @type)
    ] .)) @binding
  (#not-eq? @name "_")
  (#eq? @_new "new")
  (#not-any-of? @value "new" "make" "len" "cap" "append" "copy" "complex" "real" "imag" "min" "max" "recover"))

((var_spec .
  name: (identifier) @name
  !type
  value: (expression_list .
    [
      (call_expression
        function: [(identifier) (selector_expression)] @value)
      (call_expression
        function: (identifier) @_new
        arguments: (argument_list . [(type_identifier) (qualified_type) (generic_type)] @type .))
      (composite_literal
        type: [(type_identifier) (qualified_type) (generic_type)] @type)
      (unary_expression
        operator: "&"
        operand: (composite_literal
          type: [(type_identifier) (qualified_type) (generic_type)] @type))
      (type_assertion_expression
        type: (_) @type)
    ] .)) @binding
  (#not-eq? @name "_")
  (#eq? @_new "new")
  (#not-any-of? @value "new" "make" "len" "cap" "append" "copy" "complex" "real" "imag" "min" "max" "recover"))

; Named fields of declared struct types: `session *Session`, `a, b int`
; (embedded fields have no name).
(type_spec
  type: (struct_type
    (field_declaration_list
      (field_declaration
        name: (field_identifier) @name
        type: (_) @type) @binding)))

; Declared results: `*Client`, or the first of `(*Conn, error)`.
((function_declaration
  result: (_) @type) @returns
  (#not-match? @type "^\\("))

((method_declaration
  result: (_) @type) @returns
  (#not-match? @type "^\\("))

((method_elem
  result: (_) @type) @returns
  (#not-match? @type "^\\("))

[
  (function_declaration
    result: (parameter_list . (parameter_declaration type: (_) @type)))
  (method_declaration
    result: (parameter_list . (parameter_declaration type: (_) @type)))
  (method_elem
    result: (parameter_list . (parameter_declaration type: (_) @type)))
] @returns
