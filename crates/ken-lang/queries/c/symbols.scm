; C symbols. A function's name sits at the end of its declarator chain
; (`char **names(void)`, `void (*signal(int))(int)`). Prototypes are
; symbols too: a header's API is its declarations.

(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))))
  ]) @definition.function

; Prototypes at file level (a declaration in a function body is local).
(translation_unit
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    ]) @definition.function)

(preproc_ifdef
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    ]) @definition.function)

(preproc_if
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    ]) @definition.function)

(preproc_else
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    ]) @definition.function)

(preproc_elif
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    ]) @definition.function)

; Types with a body; a forward declaration (`struct s;`) is not a definition.
(struct_specifier
  name: (type_identifier) @name
  body: (_)) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (_)) @definition.struct

(enum_specifier
  name: (type_identifier) @name
  body: (_)) @definition.enum

; `typedef struct { ... } point_t;`: an anonymous type named by its typedef.
(type_definition
  type: (struct_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (union_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (enum_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.enum

(enumerator
  name: (identifier) @name) @definition.constant

; Fields. A declaration of one field is the field; in `int x, *y;` each
; declarator is a field of its own.
(field_declaration
  type: (_) .
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (array_declarator declarator: (field_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator
      (pointer_declarator declarator: (field_identifier) @name)))
  ] .) @definition.field

(field_declaration
  type: (_) .
  declarator: (field_identifier) @name .
  (bitfield_clause) .) @definition.field

(field_declaration
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (array_declarator declarator: (field_identifier) @name)
  ] @definition.field .
  declarator: (_))

(field_declaration
  declarator: (_)
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (array_declarator declarator: (field_identifier) @name)
  ] @definition.field)

; Object-like macros with a value are constants (include guards have none);
; function-like macros are called like functions.
(preproc_def
  name: (identifier) @name
  value: (_)) @definition.constant

(preproc_function_def
  name: (identifier) @name) @definition.function

; File-level `const` objects (also inside `#ifdef` guards).
(translation_unit
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (pointer_declarator declarator: (identifier) @name)
      ])) @definition.constant
  (#eq? @_const "const"))

(preproc_ifdef
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (pointer_declarator declarator: (identifier) @name)
      ])) @definition.constant
  (#eq? @_const "const"))

(preproc_if
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (pointer_declarator declarator: (identifier) @name)
      ])) @definition.constant
  (#eq? @_const "const"))

(preproc_else
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (pointer_declarator declarator: (identifier) @name)
      ])) @definition.constant
  (#eq? @_const "const"))

(preproc_elif
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (pointer_declarator declarator: (identifier) @name)
      ])) @definition.constant
  (#eq? @_const "const"))
