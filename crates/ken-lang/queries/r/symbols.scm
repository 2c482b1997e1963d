; R symbols. `f <- function(...)` (or `=`, `<<-`) is a function. A class
; made by `R6Class` or `setRefClass` and assigned to a name is a class whose
; `public`, `private`, `active` and `methods` lists hold its methods and
; other members (and `fields` lists) its fields; `setClass("Name", ...)` is
; an S4 class, `setGeneric("f", ...)` a function and `setMethod("f",
; "Class", ...)` the method `Class.f`. A top-level name in capitals bound to
; a literal is a constant.

(binary_operator
  lhs: (identifier) @name
  operator: ["<-" "=" "<<-"]
  rhs: (function_definition)) @definition.function

(binary_operator
  lhs: (identifier) @name
  operator: ["<-" "=" "<<-"]
  rhs: (call
    function: (identifier) @_maker)
  (#any-of? @_maker "R6Class" "setRefClass")) @definition.class

(argument
  name: (identifier) @_section
  value: (call
    function: (identifier) @_list
    arguments: (arguments
      (argument
        name: (identifier) @name
        value: (function_definition)) @definition.function))
  (#any-of? @_section "public" "private" "active" "methods")
  (#eq? @_list "list"))

(argument
  name: (identifier) @_section
  value: (call
    function: (identifier) @_list
    arguments: (arguments
      (argument
        name: (identifier) @name
        value: [(null) (float) (integer) (string) (true) (false) (na) (identifier) (call)]) @definition.field))
  (#any-of? @_section "public" "private" "fields")
  (#eq? @_list "list"))

((call
  function: (identifier) @_maker
  arguments: (arguments
    .
    (argument
      value: (string
        (string_content) @name)))) @definition.class
  (#eq? @_maker "setClass"))

((call
  function: (identifier) @_maker
  arguments: (arguments
    .
    (argument
      value: (string
        (string_content) @name)))) @definition.function
  (#eq? @_maker "setGeneric"))

((call
  function: (identifier) @_maker
  arguments: (arguments
    .
    (argument
      value: (string
        (string_content) @name))
    .
    (comma)
    .
    (argument
      value: (string
        (string_content) @receiver)))) @definition.function
  (#eq? @_maker "setMethod"))

(program
  (binary_operator
    lhs: (identifier) @name
    operator: ["<-" "="]
    rhs: [(float) (integer) (string) (true) (false)]) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_.]*$"))
