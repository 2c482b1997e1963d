; Swift raw references. A call of a capitalised name constructs that type
; (`Circle(radius: 2)`); other calls are calls, with the receiver of
; `a.b()` and `a?.b()`. `import Foundation` imports a module. The types
; after `:` in a declaration are its superclass and protocols (a protocol's
; too). `a.b` read without a call is a field use (`self.radius`).

; `a[i]` parses as a call with brackets: a subscript, not a call.
((call_expression
  .
  (simple_identifier) @name
  .
  (call_suffix) @_suffix) @reference.call
  (#match? @name "^[a-z_]")
  (#not-match? @_suffix "^\\["))

((call_expression
  .
  (simple_identifier) @name
  .
  (call_suffix) @_suffix) @reference.instantiate
  (#match? @name "^[A-Z]")
  (#not-match? @_suffix "^\\["))

((call_expression
  .
  (navigation_expression
    target: (_) @receiver
    suffix: (navigation_suffix
      suffix: (simple_identifier) @name)) @callee
  .
  (call_suffix) @_suffix) @reference.call
  (#not-match? @_suffix "^\\["))

; The grammar binds `a + b.c(1)` as `(a + b.c)(1)` and `!a.b()` as
; `(!a.b)()`: the callee is the operand on the right (but `.init(x)`, an
; implicit member of a type not written, is no call we can name).
((call_expression
  .
  [
    (_ rhs: (navigation_expression
      target: (_) @receiver
      suffix: (navigation_suffix
        suffix: (simple_identifier) @name)) @callee)
    (prefix_expression target: (navigation_expression
      target: (_) @receiver
      suffix: (navigation_suffix
        suffix: (simple_identifier) @name)) @callee)
  ]
  .
  (call_suffix) @_suffix) @reference.call
  (#not-match? @_suffix "^\\["))

((call_expression
  .
  [
    (_ rhs: (simple_identifier) @name)
    (prefix_expression target: (simple_identifier) @name)
  ] @_operand
  .
  (call_suffix) @_suffix) @reference.call
  (#match? @name "^[a-z_]")
  (#not-match? @_operand "^\\.")
  (#not-match? @_suffix "^\\["))

((call_expression
  .
  [
    (_ rhs: (simple_identifier) @name)
    (prefix_expression target: (simple_identifier) @name)
  ] @_operand
  .
  (call_suffix) @_suffix) @reference.instantiate
  (#match? @name "^[A-Z]")
  (#not-match? @_operand "^\\.")
  (#not-match? @_suffix "^\\["))

(import_declaration
  (identifier) @path) @reference.import

; A type's name, qualified or not (`UIKit.UIView`, `Box<Int>`): its first
; and last identifier, which the miner joins into one span.
(inheritance_specifier
  inherits_from: [
    (user_type . (type_identifier) @name .)
    (user_type . (type_identifier) @name . (type_arguments) .)
    (user_type . (type_identifier) @name (type_identifier) @name .)
    (user_type . (type_identifier) @name (type_identifier) @name . (type_arguments) .)
  ]) @reference.inherit

(navigation_expression
  target: (_) @receiver
  suffix: (navigation_suffix
    suffix: (simple_identifier) @name)) @reference.field_use
