; Zig raw references: calls with the receiver of `a.b()` (a call of a
; generic type function, `List(u8)`, resolves as an instantiation),
; `const name = @import("file.zig")` imports that file under `name`
; (`@import("x.zig").Member` imports the file unnamed), struct literals
; `Point{ ... }` instantiate, and `self.x` uses a field.

(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (field_expression
    object: (_) @receiver
    member: (identifier) @name) @callee) @reference.call

((variable_declaration
  (identifier) @alias
  (builtin_function
    (builtin_identifier) @_import
    (arguments
      . (string
        (string_content) @path)))) @reference.import
  (#eq? @_import "@import"))

((variable_declaration
  (identifier)
  (field_expression
    object: (builtin_function
      (builtin_identifier) @_import
      (arguments
        . (string
          (string_content) @path))))) @reference.import
  (#eq? @_import "@import"))

(struct_initializer
  .
  [
    (identifier) @name
    (field_expression object: (_) @receiver member: (identifier) @name)
  ]) @reference.instantiate

((field_expression
  object: (identifier) @_self
  member: (identifier) @name) @reference.field_use
  (#eq? @_self "self"))
