; C# type facts, for receiver type inference.

; void Open(string url, ref int attempts), typed lambda parameters, and
; primary constructor parameters (not those of a delegate type).
[
  (method_declaration
    (parameter_list
      (parameter
        type: (_) @type
        name: (identifier) @name) @binding))
  (constructor_declaration
    (parameter_list
      (parameter
        type: (_) @type
        name: (identifier) @name) @binding))
  (local_function_statement
    (parameter_list
      (parameter
        type: (_) @type
        name: (identifier) @name) @binding))
  (operator_declaration
    (parameter_list
      (parameter
        type: (_) @type
        name: (identifier) @name) @binding))
  (lambda_expression
    (parameter_list
      (parameter
        type: (_) @type
        name: (identifier) @name) @binding))
  (anonymous_method_expression
    (parameter_list
      (parameter
        type: (_) @type
        name: (identifier) @name) @binding))
  (record_declaration
    (parameter_list
      (parameter
        type: (_) @type
        name: (identifier) @name) @binding))
  (class_declaration
    (parameter_list
      (parameter
        type: (_) @type
        name: (identifier) @name) @binding))
  (struct_declaration
    (parameter_list
      (parameter
        type: (_) @type
        name: (identifier) @name) @binding))
]

; Locals, fields, events, `using` and `for` variables with a declared type:
; one binding per declarator of `Pool a = new(), b;`.
((variable_declaration
  type: (_) @type
  (variable_declarator
    name: (identifier) @name)) @binding
  (#not-eq? @type "var"))

; var lockObj = new Lock();
(variable_declaration
  type: (implicit_type)
  (variable_declarator
    name: (identifier) @name
    (object_creation_expression
      type: (_) @type))) @binding

; var tracker = CreateTracker(); / var conn = _pool.Connect(url);
(variable_declaration
  type: (implicit_type)
  (variable_declarator
    name: (identifier) @name
    (invocation_expression
      function: [(identifier) (member_access_expression)] @value))) @binding

; foreach (Entry e in entries) / x is Session s / TryGet(key, out Entry e)
((foreach_statement
  type: (_) @type
  left: (identifier) @name) @binding
  (#not-eq? @type "var"))

(declaration_pattern
  type: (_) @type
  name: (identifier) @name) @binding

((declaration_expression
  type: (_) @type
  name: (identifier) @name) @binding
  (#not-eq? @type "var"))

; Properties: public Pool Primary { get; }
(property_declaration
  type: (_) @type
  name: (identifier) @name) @binding

; this._spare = new Pool(); / this._pool = Pools.Create(); / this._session = session;
(assignment_expression
  left: (member_access_expression
    expression: "this") @name
  right: (object_creation_expression
    type: (_) @type)) @binding

(assignment_expression
  left: (member_access_expression
    expression: "this") @name
  right: (invocation_expression
    function: [(identifier) (member_access_expression)] @value)) @binding

(assignment_expression
  left: (member_access_expression
    expression: "this") @name
  right: (identifier) @alias) @binding

; Task<Connection> Open(string url)
(method_declaration
  returns: (_) @type) @returns

(local_function_statement
  type: (_) @type) @returns
