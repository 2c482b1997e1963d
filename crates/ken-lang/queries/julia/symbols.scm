; Julia symbols. `module M ... end` is a module; `struct` and `mutable
; struct` are structs (parametric ones by their bare name) with their
; fields; `abstract type` is an interface. `function f(...)`, the short
; form `f(x) = ...` and `macro m(...)` are functions; a method added to
; another module's function (`function Base.show(...)`) is that module's
; (`Base.show`). `const X = ...` is a constant. Methods of one function
; (multiple dispatch) are separate symbols of the same name.

(module_definition
  name: (identifier) @name) @definition.module

(struct_definition
  (type_head
    [(identifier) @name
     (parametrized_type_expression
       .
       (identifier) @name)
     (binary_expression
       .
       [(identifier) @name
        (parametrized_type_expression
          .
          (identifier) @name)])])) @definition.struct

(abstract_definition
  (type_head
    [(identifier) @name
     (parametrized_type_expression
       .
       (identifier) @name)
     (binary_expression
       .
       [(identifier) @name
        (parametrized_type_expression
          .
          (identifier) @name)])])) @definition.interface

(struct_definition
  (typed_expression
    .
    (identifier) @name) @definition.field)

(struct_definition
  (identifier) @name @definition.field)

; function f(x) / function f(x)::T / function f(x) where T
(function_definition
  (signature
    [(call_expression
       .
       (identifier) @name)
     (typed_expression
       .
       (call_expression
         .
         (identifier) @name))
     (where_expression
       .
       [(call_expression
          .
          (identifier) @name)
        (typed_expression
          .
          (call_expression
            .
            (identifier) @name))])])) @definition.function

; function Base.show(io::IO, x)
(function_definition
  (signature
    [(call_expression
       .
       (field_expression
         value: (_) @receiver
         (identifier) @name .))
     (where_expression
       .
       (call_expression
         .
         (field_expression
           value: (_) @receiver
           (identifier) @name .)))])) @definition.function

; f(x) = ... / f(x)::T = ... / f(x) where T = ...
(assignment
  .
  [(call_expression
     .
     (identifier) @name)
   (typed_expression
     .
     (call_expression
       .
       (identifier) @name))
   (where_expression
     .
     (call_expression
       .
       (identifier) @name))]
  .
  (operator) @_eq
  (#eq? @_eq "=")) @definition.function

(macro_definition
  (signature
    (call_expression
      .
      (identifier) @name))) @definition.function

(const_statement
  (assignment
    .
    (identifier) @name)) @definition.constant
