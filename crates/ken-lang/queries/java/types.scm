; Java type facts, for receiver type inference.

; void f(Session session) (not `String args[]`, an array of its type)
(formal_parameter
  type: (_) @type
  name: (identifier) @name
  !dimensions) @binding

; Session s = ...; (one binding per declarator of `Pool a, b;`)
((local_variable_declaration
  type: (_) @type
  declarator: (variable_declarator
    name: (identifier) @name
    !dimensions)) @binding
  (#not-eq? @type "var"))

; var lock = new Lock();
((local_variable_declaration
  type: (type_identifier) @_var
  declarator: (variable_declarator
    name: (identifier) @name
    value: (object_creation_expression
      type: (_) @type))) @binding
  (#eq? @_var "var"))

; var pool = createPool(); (a call on an object has no callee node to name)
((local_variable_declaration
  type: (type_identifier) @_var
  declarator: (variable_declarator
    name: (identifier) @name
    value: (method_invocation
      !object
      name: (identifier) @value))) @binding
  (#eq? @_var "var"))

; for (Entry e : entries) / try (Connection c = pool.open())
((enhanced_for_statement
  type: (_) @type
  name: (identifier) @name) @binding
  (#not-eq? @type "var"))

((resource
  type: (_) @type
  name: (identifier) @name) @binding
  (#not-eq? @type "var"))

; Fields and interface constants.
[
  (field_declaration
    type: (_) @type
    declarator: (variable_declarator
      name: (identifier) @name
      !dimensions))
  (constant_declaration
    type: (_) @type
    declarator: (variable_declarator
      name: (identifier) @name
      !dimensions))
] @binding

; this.spare = new Pool();
(assignment_expression
  left: (field_access
    object: (this)) @name
  right: (object_creation_expression
    type: (_) @type)) @binding

; this.session = session;
(assignment_expression
  left: (field_access
    object: (this)) @name
  right: (identifier) @alias) @binding

; Connection open(String url)
(method_declaration
  type: (_) @type) @returns
