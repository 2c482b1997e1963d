; Zig type facts, for receiver type inference. Types are kept as written
; (`*const Point`, `?Point`); the resolver strips pointers and optionals.

; Parameters: `self: *Self`, `other: Point`.
(parameter
  name: (identifier) @name
  type: (_) @type) @binding

; `const p: Point = ...`
(variable_declaration
  (identifier) @name
  type: (_) @type) @binding

; `var list = List.init(a)`, `const p = try Point.parse(s)`,
; `const p = Point{ .x = 1 }`, `var s = Stack(u8){ ... }`.
((variable_declaration
  (identifier) @name
  !type
  [
    (call_expression function: [(identifier) (field_expression)] @value)
    (try_expression (call_expression function: [(identifier) (field_expression)] @value))
    (struct_initializer . [(identifier) (field_expression)] @type)
    (struct_initializer . (call_expression function: [(identifier) (field_expression)] @value))
  ]) @binding
  (#not-eq? @name "_"))

; Container fields: `origin: Point`.
(container_field
  name: (identifier) @name
  type: (_) @type) @binding

; Declared return types, the payload of an error union (`!Point`).
((function_declaration
  type: (_) @type) @returns
  (#not-match? @type "^(type|void|noreturn|anyerror)$|!"))

((function_declaration
  type: (error_union_type ok: (_) @type)) @returns
  (#not-match? @type "^(type|void|noreturn)$"))
