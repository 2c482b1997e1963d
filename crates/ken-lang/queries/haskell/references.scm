; Haskell raw references: applications are calls (`M.insert k v` with the
; module as receiver), as are a function in backticks, the function operands
; of `$`, `.`, `<$>`, `>>=`, `=<<`, `&` and an action alone in a `do`
; statement; a data constructor applied or built as a record in an
; expression is an instantiation (patterns are not). Imports name a module
; (with `@alias` for `as M`), an import list names its members (not a
; `hiding` one), and an unqualified import brings every name (`@glob`). An
; instance inherits its class, a type its derived classes, and a class its
; superclasses.

(apply
  function: (variable) @name) @reference.call

(apply
  function: (qualified
    module: (module) @receiver
    id: (variable) @name)) @reference.call

(infix
  operator: (infix_id
    [
      (variable) @name
      (qualified module: (module) @receiver id: (variable) @name)
    ])) @reference.call

; f $ x, f <$> xs, f =<< m
((infix
  left_operand: [
    (variable) @name
    (qualified module: (module) @receiver id: (variable) @name)
  ]
  operator: (operator) @_op) @reference.call
  (#any-of? @_op "$" "$!" "." "<$>" "<$" "=<<" "<=<"))

; m >>= f, x & f, g . f
((infix
  operator: (operator) @_op
  right_operand: [
    (variable) @name
    (qualified module: (module) @receiver id: (variable) @name)
  ]) @reference.call
  (#any-of? @_op "." ">>=" ">=>" "&" "<&>"))

; do { helper; M.flush; x <- action; ... }
(do
  (exp
    [
      (variable) @name
      (qualified module: (module) @receiver id: (variable) @name)
    ]) @reference.call)

(do
  (bind
    expression: [
      (variable) @name
      (qualified module: (module) @receiver id: (variable) @name)
    ]) @reference.call)

; Constructors applied in expressions: `= Circle 1`, `(Circle 1)`,
; `Circle 1 : xs`, `pure $ Circle 1`, a `do` statement.
[
  (match expression: (apply function: [
    (constructor) @name
    (qualified module: (module) @receiver id: (constructor) @name)
  ]) @reference.instantiate)
  (parens expression: (apply function: [
    (constructor) @name
    (qualified module: (module) @receiver id: (constructor) @name)
  ]) @reference.instantiate)
  (infix left_operand: (apply function: [
    (constructor) @name
    (qualified module: (module) @receiver id: (constructor) @name)
  ]) @reference.instantiate)
  (infix right_operand: (apply function: [
    (constructor) @name
    (qualified module: (module) @receiver id: (constructor) @name)
  ]) @reference.instantiate)
  (exp (apply function: [
    (constructor) @name
    (qualified module: (module) @receiver id: (constructor) @name)
  ]) @reference.instantiate)
]

; Rect { width = 2 }
(record
  expression: [
    (constructor) @name
    (qualified module: (module) @receiver id: (constructor) @name)
  ]
  field: (field_update)) @reference.instantiate

; import A.B (f, T, C (m))
((import
  module: (module) @path
  names: (import_list
    name: (import_name
      [(variable) (name)] @name))) @_import @reference.import
  (#not-match? @_import "\\shiding\\s*\\("))

((import
  module: (module) @path
  names: (import_list
    name: (import_name
      children: (children
        element: [(variable) (constructor)] @name)))) @_import @reference.import
  (#not-match? @_import "\\shiding\\s*\\("))

; import qualified A.B as M / import A.B qualified as M
((import
  module: (module) @path
  alias: (module)? @alias) @_import @reference.import
  (#match? @_import "^import\\s+(qualified\\s|\\S+\\s+qualified\\s)"))

; import A.B / import A.B as M / import A.B hiding (x): every name, and
; `M.x` through the alias.
((import
  !names
  module: (module) @path) @_import @glob @reference.import
  (#not-match? @_import "^import\\s+(qualified\\s|\\S+\\s+qualified\\s)"))

((import
  module: (module) @path) @_import @glob @reference.import
  (#match? @_import "\\shiding\\s*\\(")
  (#not-match? @_import "^import\\s+(qualified\\s|\\S+\\s+qualified\\s)"))

((import
  module: (module) @path
  alias: (module) @alias) @_import @reference.import
  (#not-match? @_import "^import\\s+(qualified\\s|\\S+\\s+qualified\\s)"))

(instance
  name: [
    (name) @name
    (qualified module: (module) @receiver id: (name) @name)
  ]) @reference.inherit

(deriving
  classes: [
    (name) @name
    (qualified module: (module) @receiver id: (name) @name)
    (parens (name) @name)
    (tuple (name) @name)
  ]) @reference.inherit

(class
  context: (context
    context: [
      (apply constructor: (name) @name)
      (parens (apply constructor: (name) @name))
      (tuple (apply constructor: (name) @name))
    ])) @reference.inherit
