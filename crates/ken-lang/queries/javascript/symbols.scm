; JavaScript symbols.
;
; An exported declaration is defined by its `export` statement, so the doc
; comment above `export` is found and `export` is part of the signature. An
; `export` with decorators before it is the exception: its signature would be
; the decorators, so the declaration itself is the definition there. Every
; other declaration is matched under the parents it may have (program and
; block), which keeps the exported and the plain patterns from both matching.

; Classes.

(export_statement
  !decorator
  declaration: (class_declaration
    name: (identifier) @name)) @definition.class

[
  (program (class_declaration name: (identifier) @name) @definition.class)
  (statement_block (class_declaration name: (identifier) @name) @definition.class)
  (export_statement
    decorator: (decorator)
    declaration: (class_declaration name: (identifier) @name) @definition.class)
]

; A named class expression (also what a class declaration becomes in some
; broken code).
(class
  name: (identifier) @name) @definition.class

; Function declarations.

(export_statement
  !decorator
  declaration: [
    (function_declaration name: (identifier) @name)
    (generator_function_declaration name: (identifier) @name)
  ]) @definition.function

[
  (program
    [
      (function_declaration name: (identifier) @name)
      (generator_function_declaration name: (identifier) @name)
    ] @definition.function)
  (statement_block
    [
      (function_declaration name: (identifier) @name)
      (generator_function_declaration name: (identifier) @name)
    ] @definition.function)
]

; A function or class expression bound to a top-level const, let or var is
; named after the variable; so is a parenthesized one, as bundlers write it
; (vue's `const createApp = ((...args) => {...})`).

[
  (program
    [
      (lexical_declaration
        (variable_declarator
          name: (identifier) @name
          value: [(arrow_function) (function_expression) (generator_function) (parenthesized_expression [(arrow_function) (function_expression)])]))
      (variable_declaration
        (variable_declarator
          name: (identifier) @name
          value: [(arrow_function) (function_expression) (generator_function) (parenthesized_expression [(arrow_function) (function_expression)])]))
    ] @definition.function)
  (export_statement
    declaration: [
      (lexical_declaration
        (variable_declarator
          name: (identifier) @name
          value: [(arrow_function) (function_expression) (generator_function) (parenthesized_expression [(arrow_function) (function_expression)])]))
      (variable_declaration
        (variable_declarator
          name: (identifier) @name
          value: [(arrow_function) (function_expression) (generator_function) (parenthesized_expression [(arrow_function) (function_expression)])]))
    ]) @definition.function
]

[
  (program
    [
      (lexical_declaration
        (variable_declarator name: (identifier) @name value: (class !name)))
      (variable_declaration
        (variable_declarator name: (identifier) @name value: (class !name)))
    ] @definition.class)
  (export_statement
    declaration: [
      (lexical_declaration
        (variable_declarator name: (identifier) @name value: (class !name)))
      (variable_declaration
        (variable_declarator name: (identifier) @name value: (class !name)))
    ]) @definition.class
]

; `exports.run = function () {}`, `Foo.prototype.bar = () => {}` at the top level.
(program
  (expression_statement
    (assignment_expression
      left: [
        (identifier) @name
        (member_expression property: (property_identifier) @name)
      ]
      right: [(arrow_function) (function_expression) (generator_function)])) @definition.function)

; Functions in object literals: a visitor table, the rule object that
; `module.exports` holds, the handlers passed in an options object. Tags
; peers (ctags, aider) name them too; a bug report names them as often as a
; class's methods. A literal bound to a variable is a scope named after it, so
; its functions are its methods (`visitors.Identifier`); one passed inline is
; named under the enclosing definition (`proxy.set`), like a nested function.

(variable_declarator
  name: (identifier) @name
  value: (object) @scope)

(object
  (method_definition
    name: [(property_identifier) (string)] @name) @definition.function)

(object
  (pair
    key: [(property_identifier) (string)] @name
    value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)

; Module constants: upper-case names bound by a top-level `const` to a value
; that is not a function or class.

(program
  (lexical_declaration
    kind: "const"
    (variable_declarator
      name: (identifier) @name
      value: [
        (string) (template_string) (number) (regex) (true) (false) (null) (undefined)
        (array) (object) (identifier) (member_expression) (subscript_expression)
        (call_expression) (new_expression) (unary_expression) (binary_expression)
        (ternary_expression) (parenthesized_expression) (await_expression)
      ])) @definition.constant
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

((export_statement
  declaration: (lexical_declaration
    kind: "const"
    (variable_declarator
      name: (identifier) @name
      value: [
        (string) (template_string) (number) (regex) (true) (false) (null) (undefined)
        (array) (object) (identifier) (member_expression) (subscript_expression)
        (call_expression) (new_expression) (unary_expression) (binary_expression)
        (ternary_expression) (parenthesized_expression) (await_expression)
      ]))) @definition.constant
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

; Class members. `constructor` becomes a constructor in the miner.

(class_body
  (method_definition
    name: (_) @name) @definition.method)

(class_body
  (field_definition
    property: (_) @name) @definition.field)
