; Kotlin raw references. Kotlin has no `new`: a call of a capitalised name
; constructs that class, any other call is a call, with the receiver of
; `a.b()` and `a?.b()`. `import a.b.C` and `import a.b.C as D` name member C
; of package a.b, `import a.b.*` all of them. Supertypes after `:` (with
; or without a constructor call, or delegated with `by`) are inherited.
; `a.b` read without a call is a field use.

((call_expression
  (identifier) @name) @reference.call
  (#match? @name "^[a-z_]"))

((call_expression
  (identifier) @name) @reference.instantiate
  (#match? @name "^[A-Z]"))

((call_expression
  (navigation_expression
    (_) @receiver
    (identifier) @name .) @callee) @reference.call
  (#not-match? @receiver "^[!+-]+\\s*[\\w$]*$"))

; The grammar binds a prefix operator tighter than a call: `!a.isEmpty()`
; has the receiver `!a` and `!isEmpty()` calls `!isEmpty`.
(call_expression
  (navigation_expression
    (unary_expression
      argument: (_) @receiver)
    (identifier) @name .) @callee) @reference.call

((call_expression
  (unary_expression
    argument: (identifier) @name)) @reference.call
  (#match? @name "^[a-z_]"))

((import
  (qualified_identifier) @name
  (identifier)? @alias) @_import @reference.import
  (#not-match? @_import "\\*\\s*;?\\s*$"))

(import
  (qualified_identifier) @path
  "*") @glob @reference.import

; A supertype's name, qualified or not (`Map.Entry<K, V>`): its first and
; last identifier, which the miner joins into one span (a quantifier
; `(identifier)+` would capture only the first). Direct, with a
; constructor call (`Base()`) or delegated (`Shape by shape`).
(delegation_specifier
  [
    (user_type . (identifier) @name .)
    (user_type . (identifier) @name . (type_arguments) .)
    (user_type . (identifier) @name (identifier) @name .)
    (user_type . (identifier) @name (identifier) @name . (type_arguments) .)
    (_ [
      (user_type . (identifier) @name .)
      (user_type . (identifier) @name . (type_arguments) .)
      (user_type . (identifier) @name (identifier) @name .)
      (user_type . (identifier) @name (identifier) @name . (type_arguments) .)
    ])
  ]) @reference.inherit

(navigation_expression
  (_) @receiver
  (identifier) @name .) @reference.field_use
