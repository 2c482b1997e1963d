; TypeScript type facts (also used for TSX), for receiver type inference.

; f(x: Session) / f(x?: Session) / constructor(private s: Session), in
; functions and methods with a body (not function types or signatures).
; A parameter property is bound by its plain name, in the constructor.
[
  (function_declaration
    parameters: (formal_parameters
      [
        (required_parameter
          pattern: (identifier) @name
          type: (type_annotation (_) @type))
        (optional_parameter
          pattern: (identifier) @name
          type: (type_annotation (_) @type))
      ] @binding))
  (generator_function_declaration
    parameters: (formal_parameters
      [
        (required_parameter
          pattern: (identifier) @name
          type: (type_annotation (_) @type))
        (optional_parameter
          pattern: (identifier) @name
          type: (type_annotation (_) @type))
      ] @binding))
  (function_expression
    parameters: (formal_parameters
      [
        (required_parameter
          pattern: (identifier) @name
          type: (type_annotation (_) @type))
        (optional_parameter
          pattern: (identifier) @name
          type: (type_annotation (_) @type))
      ] @binding))
  (generator_function
    parameters: (formal_parameters
      [
        (required_parameter
          pattern: (identifier) @name
          type: (type_annotation (_) @type))
        (optional_parameter
          pattern: (identifier) @name
          type: (type_annotation (_) @type))
      ] @binding))
  (arrow_function
    parameters: (formal_parameters
      [
        (required_parameter
          pattern: (identifier) @name
          type: (type_annotation (_) @type))
        (optional_parameter
          pattern: (identifier) @name
          type: (type_annotation (_) @type))
      ] @binding))
  (method_definition
    parameters: (formal_parameters
      [
        (required_parameter
          pattern: (identifier) @name
          type: (type_annotation (_) @type))
        (optional_parameter
          pattern: (identifier) @name
          type: (type_annotation (_) @type))
      ] @binding))
]

; const x: Session = ...
(variable_declarator
  name: (identifier) @name
  type: (type_annotation (_) @type)) @binding

; const x = new Session() / const x = new net.Session()
(variable_declarator
  name: (identifier) @name
  !type
  value: (new_expression
    constructor: [(identifier) (member_expression)] @type)) @binding

; const x = makeSession() / const conn = this.pool.connect()
; (not `const fs = require("fs")`)
((variable_declarator
  name: (identifier) @name
  !type
  value: (call_expression
    function: [(identifier) (member_expression)] @value)) @binding
  (#not-eq? @value "require"))

; Class fields: `session: Session`, `static shared = new Registry()`,
; `pool = makePool()`.
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  type: (type_annotation (_) @type)) @binding

(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  !type
  value: (new_expression
    constructor: [(identifier) (member_expression)] @type)) @binding

(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  !type
  value: (call_expression
    function: [(identifier) (member_expression)] @value)) @binding

; Interface properties: `size: number`.
(property_signature
  name: [(property_identifier) (private_property_identifier)] @name
  type: (type_annotation (_) @type)) @binding

; this.session = new Session() / s = new Session()
(assignment_expression
  left: [
    (identifier)
    (member_expression object: (this))
  ] @name
  right: (new_expression
    constructor: [(identifier) (member_expression)] @type)) @binding

; this.pool = makePool() / s = makeSession()
(assignment_expression
  left: [
    (identifier)
    (member_expression object: (this))
  ] @name
  right: (call_expression
    function: [(identifier) (member_expression)] @value)) @binding

; this.session = session
(assignment_expression
  left: (member_expression object: (this)) @name
  right: (identifier) @alias) @binding

; Declared return types, on the node that defines the symbol: the function
; or method itself, its `export` statement, or the top-level `const` that
; binds a function expression.
[
  (function_declaration return_type: (type_annotation (_) @type))
  (generator_function_declaration return_type: (type_annotation (_) @type))
  (function_signature return_type: (type_annotation (_) @type))
  (method_definition return_type: (type_annotation (_) @type))
  (method_signature return_type: (type_annotation (_) @type))
  (abstract_method_signature return_type: (type_annotation (_) @type))
] @returns

(export_statement
  declaration: [
    (function_declaration return_type: (type_annotation (_) @type))
    (generator_function_declaration return_type: (type_annotation (_) @type))
    (function_signature return_type: (type_annotation (_) @type))
    (ambient_declaration
      (function_signature return_type: (type_annotation (_) @type)))
  ]) @returns

(ambient_declaration
  (function_signature return_type: (type_annotation (_) @type))) @returns

[
  (lexical_declaration
    (variable_declarator
      value: [
        (arrow_function return_type: (type_annotation (_) @type))
        (function_expression return_type: (type_annotation (_) @type))
        (generator_function return_type: (type_annotation (_) @type))
      ]))
  (variable_declaration
    (variable_declarator
      value: [
        (arrow_function return_type: (type_annotation (_) @type))
        (function_expression return_type: (type_annotation (_) @type))
        (generator_function return_type: (type_annotation (_) @type))
      ]))
  (export_statement
    declaration: [
      (lexical_declaration
        (variable_declarator
          value: [
            (arrow_function return_type: (type_annotation (_) @type))
            (function_expression return_type: (type_annotation (_) @type))
            (generator_function return_type: (type_annotation (_) @type))
          ]))
      (variable_declaration
        (variable_declarator
          value: [
            (arrow_function return_type: (type_annotation (_) @type))
            (function_expression return_type: (type_annotation (_) @type))
            (generator_function return_type: (type_annotation (_) @type))
          ]))
    ])
] @returns
