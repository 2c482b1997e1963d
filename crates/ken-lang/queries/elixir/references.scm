; Elixir raw references. `f(x)` is a call of a local function (except the
; special forms, the definition macros and built-in types), `Mod.f(x)` and `:erl.f(x)` calls
; with the module as the receiver, `&f/1` and `&Mod.f/1` captures calls too;
; `%Mod{}` builds a struct; `alias` and `require` import a module (`alias
; A.{B, C}` names several, `as:` renames), `import` and `use` bring all of
; one (`@glob`); `defimpl P` (without `for:`) implements protocol P for
; its module and `@behaviour B` implements behaviour B; `var.key` uses a field.

((call
  target: (identifier) @name) @reference.call
  (#not-any-of? @name
    "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp" "defdelegate" "defmodule" "defprotocol" "defimpl"
    "defstruct" "defexception" "defoverridable" "alias" "import" "use" "require" "quote" "unquote" "unquote_splicing"
    "fn" "case" "cond" "if" "unless" "with" "for" "receive" "try" "raise" "reraise" "throw" "super" "when" "and" "or"
    "not" "in" "is_nil" "is_atom" "is_binary" "is_list" "is_map" "is_integer" "is_function" "defn" "defnp"
    ; module attributes with a meaning
    "doc" "moduledoc" "typedoc" "spec" "type" "typep" "opaque" "callback" "macrocallback" "impl" "behaviour" "derive"
    "enforce_keys" "compile" "deprecated" "dialyzer" "external_resource" "on_load" "before_compile" "after_compile"
    "optional_callbacks" "vsn" "since" "tag" "moduletag" "describetag"
    ; ExUnit
    "describe" "test" "setup" "setup_all" "assert" "refute" "assert_raise" "assert_receive" "refute_receive"
    "assert_received" "refute_received" "flunk"
    ; built-in types, as written in specs
    "t" "term" "any" "atom" "integer" "float" "number" "binary" "bitstring" "boolean" "pid" "keyword" "iodata"
    "iolist" "no_return" "non_neg_integer" "pos_integer" "neg_integer" "charlist" "nonempty_list" "mfa" "arity"
    "timeout" "none" "maybe_improper_list"))

(call
  target: (dot
    left: [(alias) (atom)] @receiver
    right: (identifier) @name) @callee) @reference.call

; &helper/2, &Mod.fun/1
(unary_operator
  operator: "&"
  operand: (binary_operator
    left: [
      (identifier) @name
      (call
        target: (dot
          left: [(alias) (atom)] @receiver
          right: (identifier) @name))
    ]
    operator: "/")) @reference.call

; map.key (a variable's field; calls on variables do not exist)
((call
  target: (dot
    left: (identifier) @receiver
    right: (identifier) @name)) @reference.field_use @_use
  (#not-match? @_use "\\)$"))

(struct
  (alias) @name) @reference.instantiate

((call
  target: (identifier) @_alias
  (arguments . (alias) @path .)) @reference.import
  (#any-of? @_alias "alias" "require"))

((call
  target: (identifier) @_alias
  (arguments
    . (alias) @path
    (keywords
      (pair
        key: (keyword) @_as
        value: (alias) @alias)))) @reference.import
  (#eq? @_alias "alias")
  (#match? @_as "^as:"))

((call
  target: (identifier) @_alias
  (arguments .
    (dot
      left: (alias) @path
      right: (tuple (alias) @name)))) @reference.import
  (#eq? @_alias "alias"))

((call
  target: (identifier) @_import
  (arguments . (alias) @path)) @glob @reference.import
  (#any-of? @_import "import" "use"))

; `defimpl P do ... end` inside the module it implements P for (with
; `for: T` it is a scope named T, see symbols.scm).
((call
  target: (identifier) @_def
  (arguments . (alias) @name .)) @reference.inherit
  (#eq? @_def "defimpl"))

((unary_operator
  operator: "@"
  operand: (call
    target: (identifier) @_behaviour
    (arguments . (alias) @name))) @reference.inherit
  (#eq? @_behaviour "behaviour"))
