; Scala raw references. Calls, with the receiver of `a.b(...)`, of
; `f[T](...)` and of alphanumeric infix calls (`xs foreach f`); `new C(...)`
; and a call of a capitalised name (a case class's `apply`) construct.
; `import a.b.C`, `import a.b.{C, D => E}`, `import a.b.C as D` name members
; of a package, `import a.b._` / `a.b.*` / `a.b.{given, _}` all of them.
; `extends A with B` inherits; `a.b` without a call is a field use (Scala
; calls parameterless methods that way too).

((call_expression
  function: [
    (identifier) @name
    (generic_function function: (identifier) @name)
  ]) @reference.call
  (#match? @name "^[a-z_]")
  (#not-any-of? @name "this" "super"))

((call_expression
  function: [
    (identifier) @name
    (generic_function function: (identifier) @name)
  ]) @reference.instantiate
  (#match? @name "^[A-Z]"))

(call_expression
  function: [
    (field_expression
      value: (_) @receiver
      field: (identifier) @name) @callee
    (generic_function
      function: (field_expression
        value: (_) @receiver
        field: (identifier) @name) @callee)
  ]) @reference.call

(infix_expression
  left: (_) @receiver
  operator: (identifier) @name) @reference.call

; `new C(...)`, `new a.b.C[T](...)`, `new Runnable { ... }`.
(instance_expression
  [
    (type_identifier) @name
    (stable_type_identifier) @name
    (generic_type type: [(type_identifier) (stable_type_identifier)] @name)
  ]) @reference.instantiate

; An import's path is flat (`path: (identifier)` per segment): two captures
; of one name, its first and its last segment, span it.
(import_declaration
  . (identifier) @name .) @reference.import

(import_declaration
  . (identifier) @name
  (identifier) @name .) @reference.import

(import_declaration
  . (identifier) @path
  . (namespace_wildcard)) @glob @reference.import

(import_declaration
  . (identifier) @path
  (identifier) @path
  . (namespace_wildcard)) @glob @reference.import

(import_declaration
  . (identifier) @path
  . [
    (as_renamed_identifier
      name: (identifier) @name
      alias: (_) @alias)
    (namespace_selectors
      [
        (identifier) @name
        (arrow_renamed_identifier
          name: (identifier) @name
          alias: (_) @alias)
        (as_renamed_identifier
          name: (identifier) @name
          alias: (_) @alias)
      ])
  ]) @reference.import

(import_declaration
  . (identifier) @path
  (identifier) @path
  . [
    (as_renamed_identifier
      name: (identifier) @name
      alias: (_) @alias)
    (namespace_selectors
      [
        (identifier) @name
        (arrow_renamed_identifier
          name: (identifier) @name
          alias: (_) @alias)
        (as_renamed_identifier
          name: (identifier) @name
          alias: (_) @alias)
      ])
  ]) @reference.import

(import_declaration
  . (identifier) @path
  . (namespace_selectors
    (namespace_wildcard))) @glob @reference.import

(import_declaration
  . (identifier) @path
  (identifier) @path
  . (namespace_selectors
    (namespace_wildcard))) @glob @reference.import

; Supertypes (of a Scala 3 enum case too: `case Red extends Color`). The
; types of `extends A with B` share one field, which a query would match
; only once: they are matched as children.
(extends_clause
  [
    (type_identifier) @name
    (stable_type_identifier) @name
    (generic_type type: [(type_identifier) (stable_type_identifier)] @name)
  ] @reference.inherit)

(field_expression
  value: (_) @receiver
  field: (identifier) @name) @reference.field_use
