; Zig symbols. A type is a constant bound to a container: `const Point =
; struct { ... }` is a struct (union and opaque too), `enum { ... }` an enum,
; `error { ... }` an error set (an enum). A function returning `type`
; (`fn ArrayList(comptime T: type) type { return struct { ... }; }`) is a
; generic struct. Functions inside a container are its methods (`init` the
; constructor); container fields are fields, enum members constants; a
; constant bound to a literal at the top level or in a container is a
; constant (imports and aliases are not symbols). `test "..."` blocks are not.

(variable_declaration
  (identifier) @name
  [(struct_declaration) (union_declaration) (opaque_declaration)]) @definition.struct

(variable_declaration
  (identifier) @name
  [(enum_declaration) (error_set_declaration)]) @definition.enum

((function_declaration
  name: (identifier) @name
  type: (builtin_type) @_returns) @definition.struct
  (#eq? @_returns "type"))

((function_declaration
  name: (identifier) @name
  type: (_) @_returns) @definition.function
  (#not-eq? @_returns "type"))

(struct_declaration
  (container_field
    name: (identifier) @name) @definition.field)

(union_declaration
  (container_field
    name: (identifier) @name) @definition.field)

(enum_declaration
  (container_field
    name: (identifier) @name) @definition.constant)

(source_file
  (variable_declaration
    "const"
    (identifier) @name
    [(integer) (float) (string) (multiline_string) (boolean) (character)]) @definition.constant)

(struct_declaration
  (variable_declaration
    "const"
    (identifier) @name
    [(integer) (float) (string) (multiline_string) (boolean) (character)]) @definition.constant)

(union_declaration
  (variable_declaration
    "const"
    (identifier) @name
    [(integer) (float) (string) (multiline_string) (boolean) (character)]) @definition.constant)

(enum_declaration
  (variable_declaration
    "const"
    (identifier) @name
    [(integer) (float) (string) (multiline_string) (boolean) (character)]) @definition.constant)

(opaque_declaration
  (variable_declaration
    "const"
    (identifier) @name
    [(integer) (float) (string) (multiline_string) (boolean) (character)]) @definition.constant)
