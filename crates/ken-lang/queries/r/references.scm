; R raw references: `source("R/util.R")` imports that file's functions,
; `library(pkg)` and `require(pkg)` a package; calls (`f()`, `obj$m()`,
; `self$m()`, `pkg::f()` with the package as receiver); `Class$new()` of an
; R6 class and `new("Class")` of an S4 one instantiate it; an R6 `inherit = Base` or an S4 `contains =
; "Base"` is inheritance; `obj$field` and `obj@slot` outside a call are
; field uses.

((call
  function: (identifier) @_f
  arguments: (arguments
    .
    (argument
      value: (string
        (string_content) @path)))) @reference.import
  (#any-of? @_f "source" "sys.source"))

((call
  function: (identifier) @_f
  arguments: (arguments
    .
    (argument
      value: [(identifier) (string (string_content))] @path))) @reference.import
  (#any-of? @_f "library" "require" "requireNamespace"))

((call
  function: (identifier) @name) @reference.call
  (#not-any-of? @name "source" "sys.source" "library" "require" "requireNamespace" "new"))

; S4: `new("Person", ...)`.
((call
  function: (identifier) @_new
  arguments: (arguments
    .
    (argument
      value: (string
        (string_content) @name)))) @reference.instantiate
  (#eq? @_new "new"))

((call
  function: (extract_operator
    lhs: (_) @receiver
    rhs: (identifier) @name) @callee) @reference.call
  (#not-eq? @name "new"))

((call
  function: (extract_operator
    lhs: (identifier) @name
    rhs: (identifier) @_new) @callee) @reference.instantiate
  (#eq? @_new "new"))

(call
  function: (namespace_operator
    lhs: (identifier) @receiver
    rhs: (identifier) @name) @callee) @reference.call

((argument
  name: (identifier) @_key
  value: (identifier) @name) @reference.inherit
  (#eq? @_key "inherit"))

((argument
  name: (identifier) @_key
  value: (string
    (string_content) @name)) @reference.inherit
  (#eq? @_key "contains"))

(extract_operator
  lhs: (_) @receiver
  rhs: (identifier) @name) @reference.field_use
