; Rust type facts, for receiver type inference. Types are kept as written
; (`&mut Pool`, `Arc<Session>`); the resolver strips references and wrappers.

; fn f(session: Arc<Session>) / |conn: &Conn| ... (not trait method
; signatures or `fn(x: T)` pointer types)
[
  (function_item
    parameters: (parameters
      (parameter
        pattern: (identifier) @name
        type: (_) @type) @binding))
  (closure_parameters
    (parameter
      pattern: (identifier) @name
      type: (_) @type) @binding)
]

; let conn: Connection = ...
(let_declaration
  pattern: (identifier) @name
  type: (_) @type) @binding

; let pool = Pool::new(3) / let conn = self.pool.connect(url)? /
; let conn = connect().await / let x = self.make::<T>()
(let_declaration
  pattern: (identifier) @name
  !type
  value: [
    (call_expression
      function: [
        (identifier) @value
        (scoped_identifier) @value
        (field_expression) @value
        (generic_function function: [(identifier) (scoped_identifier) (field_expression)] @value)
      ])
    (try_expression
      (call_expression
        function: [
          (identifier) @value
          (scoped_identifier) @value
          (field_expression) @value
          (generic_function function: [(identifier) (scoped_identifier) (field_expression)] @value)
        ]))
    (await_expression
      (call_expression
        function: [
          (identifier) @value
          (scoped_identifier) @value
          (field_expression) @value
          (generic_function function: [(identifier) (scoped_identifier) (field_expression)] @value)
        ]))
  ]) @binding

; let guard = Lock { held: true } / let opts = Options::<u8> { .. }
(let_declaration
  pattern: (identifier) @name
  !type
  value: (struct_expression
    name: [
      [(type_identifier) (scoped_type_identifier)] @type
      (generic_type_with_turbofish type: (_) @type)
    ])) @binding

; Struct fields, statics and constants.
(field_declaration
  name: (field_identifier) @name
  type: (_) @type) @binding

[
  (const_item name: (identifier) @name type: (_) @type)
  (static_item name: (identifier) @name type: (_) @type)
] @binding

; fn open(&self) -> Result<Connection, Error>
[
  (function_item return_type: (_) @type)
  (function_signature_item return_type: (_) @type)
] @returns
