; Python symbols. Decorators are added to a definition's span by the miner
; (through the enclosing `decorated_definition`).

(class_definition
  name: (identifier) @name) @definition.class

(function_definition
  name: (identifier) @name) @definition.function

; Class attributes: `x: int = 0` and `x = 0` directly in a class body.
(class_definition
  body: (block
    (expression_statement
      (assignment
        left: (identifier) @name) @definition.field)))

; Module constants: upper-case names assigned at the top level.
(module
  (expression_statement
    (assignment
      left: (identifier) @name) @definition.constant)
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

; A lambda bound to a name is a function.
(module
  (expression_statement
    (assignment
      left: (identifier) @name
      right: (lambda)) @definition.function))

; PEP 695's `type Alias = …` and `type Pair[T] = …` name a type.
(type_alias_statement
  left: (type [(identifier) @name (generic_type (identifier) @name)])) @definition.class
