; Elixir symbols. Everything is a macro call: `defmodule A.B` is a module
; (B inside A, nesting what it holds), `defprotocol` an interface, `defimpl
; P, for: T` a scope named after T, `def`/`defp`/`defmacro`/`defguard`/
; `defdelegate` functions (with or without `when` guards; the clauses of
; one function make one symbol, its `@spec` included), `@callback`s of a
; behaviour functions too,
; and module attributes other than the documentation ones constants. A
; `defstruct` is not a symbol of its own: the module is the struct.

((call
  target: (identifier) @_def
  (arguments . (alias) @name)) @definition.module
  (#eq? @_def "defmodule"))

((call
  target: (identifier) @_def
  (arguments . (alias) @name)) @definition.interface
  (#eq? @_def "defprotocol"))

((call
  target: (identifier) @_def
  (arguments
    (keywords
      (pair
        key: (keyword) @_for
        value: (alias) @name)))) @scope
  (#eq? @_def "defimpl")
  (#match? @_for "^for:"))

((call
  target: (identifier) @_def
  (arguments
    .
    [
      (call target: (identifier) @name)
      (binary_operator
        left: (call target: (identifier) @name)
        operator: "when")
      (identifier) @name
      (binary_operator
        left: (identifier) @name
        operator: "when")
    ])) @definition.function
  (#any-of? @_def "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp" "defdelegate" "defn" "defnp"))

; @callback price(thing) :: number. A `@spec` right above a `def` is a
; clause of the same function, so the function's span and signature start
; at its spec.
((unary_operator
  operator: "@"
  operand: (call
    target: (identifier) @_callback
    (arguments
      [
        (binary_operator
          left: (call target: (identifier) @name)
          operator: "::")
        (binary_operator
          left: (binary_operator
            left: (call target: (identifier) @name)
            operator: "::")
          operator: "when")
      ]))) @definition.function
  (#any-of? @_callback "callback" "macrocallback" "spec"))

((unary_operator
  operator: "@"
  operand: (call
    target: (identifier) @name
    (arguments))) @definition.constant
  (#not-any-of? @name
    "doc" "moduledoc" "typedoc" "spec" "type" "typep" "opaque" "callback" "macrocallback" "impl" "behaviour"
    "derive" "enforce_keys" "compile" "deprecated" "dialyzer" "external_resource" "on_load" "before_compile"
    "after_compile" "optional_callbacks" "vsn" "since" "tag" "moduletag" "describetag"))
