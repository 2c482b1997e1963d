; Ruby raw references. Every `a.b` is a method call in Ruby; field uses are
; instance variables (`@name`).

; Calls without a receiver, except the ones that are imports or mixins.
(call
  !receiver
  method: (identifier) @name
  (#not-match? @name "^(require|require_relative|load|include|extend|prepend)$")) @reference.call

; Calls with a receiver. `Foo.new` is an instantiation instead.
(call
  receiver: (_) @receiver
  method: (identifier) @name
  (#not-match? @receiver "^(::)?[A-Z][A-Za-z0-9_]*(::[A-Z][A-Za-z0-9_]*)*$")) @reference.call

(call
  receiver: [(constant) (scope_resolution)] @receiver
  method: (identifier) @name
  (#not-eq? @name "new")) @reference.call

(call
  receiver: [
    (constant) @name
    (scope_resolution scope: (_) @receiver name: (constant) @name)
  ]
  method: (identifier) @_new
  (#eq? @_new "new")) @reference.instantiate

; require "json" / require_relative "../lib/base"
(call
  !receiver
  method: (identifier) @_require
  arguments: (argument_list . (string) @path)
  (#match? @_require "^(require|require_relative|load)$")) @reference.import

(superclass
  [
    (constant) @name
    (scope_resolution scope: (_) @receiver name: (constant) @name)
  ]) @reference.inherit

; include Comparable / extend Forwardable / prepend Logging
(call
  !receiver
  method: (identifier) @_mixin
  arguments: (argument_list
    [
      (constant) @name
      (scope_resolution scope: (_) @receiver name: (constant) @name)
    ])
  (#match? @_mixin "^(include|extend|prepend)$")) @reference.inherit

; Klass = Class.new(Base) do ... end
(assignment
  left: (constant)
  right: (call
    receiver: (constant) @_class
    method: (identifier) @_new
    arguments: (argument_list .
      [
        (constant) @name
        (scope_resolution scope: (_) @receiver name: (constant) @name)
      ]))
  (#eq? @_class "Class")
  (#eq? @_new "new")) @reference.inherit

(instance_variable) @name @reference.field_use
