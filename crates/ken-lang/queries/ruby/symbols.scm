; Ruby symbols. Modules are module symbols that nest what they hold; a
; `def` inside a class is a method (`initialize` the constructor), and
; `def self.x` is a method wherever it is. `class Geo::Circle` names its
; outer scope through `@receiver`.

(module
  name: (constant) @name) @definition.module

(module
  name: (scope_resolution
    scope: (_) @receiver
    name: (constant) @name)) @definition.module

(class
  name: (constant) @name) @definition.class

(class
  name: (scope_resolution
    scope: (_) @receiver
    name: (constant) @name)) @definition.class

; `Point = Struct.new(:x, :y) do ... end` and `Klass = Class.new(Base) do ... end`.
(assignment
  left: (constant) @name
  right: (call
    receiver: (constant) @_maker
    method: (identifier) @_new)
  (#match? @_maker "^(Struct|Class)$")
  (#eq? @_new "new")) @definition.class

(method
  name: (_) @name) @definition.function

(singleton_method
  name: (_) @name) @definition.method

; Constants, except the classes and lambdas above.
(assignment
  left: (constant) @name
  right: (_) @_value
  (#not-match? @_value "^((Struct|Class)\\.new|lambda|proc|Proc\\.new|->)")) @definition.constant

; A lambda or proc bound to a name at the top level is a function.
(program
  (assignment
    left: [(identifier) (constant)] @name
    right: (lambda)) @definition.function)

(program
  (assignment
    left: [(identifier) (constant)] @name
    right: (call
      method: (identifier) @_lambda
      block: (_))
    (#match? @_lambda "^(lambda|proc)$")) @definition.function)
