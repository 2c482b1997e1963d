; OCaml symbols (implementations and `.mli` signatures alike). A file is a
; module; `module M = struct ... end` (functors too) and `module M : sig
; ... end` are modules, `module type S = sig ... end` an interface. A `let`
; with parameters or bound to `function`/`fun` is a function (each `and`
; binding too), a module-level `let` bound to a literal a constant; `val`
; and `external` with a function type are functions. A record type is a
; struct with its fields, a variant type an enum with its constructors as
; constants, any other type a struct; an exception is a class. Classes are
; classes, with their methods and instance variables.

; --- Values -------------------------------------------------------------

; A single binding spans its `let`; of several (`let rec f ... and g
; ...`), each is its own.
(value_definition
  .
  (let_binding
    pattern: (value_name) @name
    [(parameter) (function_expression) (fun_expression)])
  .) @definition.function

(value_definition
  (let_binding
    pattern: (value_name) @name
    [(parameter) (function_expression) (fun_expression)]) @definition.function
  .
  (let_binding))

(value_definition
  (let_binding)
  .
  (let_binding
    pattern: (value_name) @name
    [(parameter) (function_expression) (fun_expression)]) @definition.function)

([(compilation_unit) (structure)]
  (value_definition
    .
    (let_binding
      pattern: (value_name) @name
      .
      body: [(number) (string) (list_expression) (array_expression) (record_expression)])) @definition.constant)

(value_specification
  (value_name) @name
  type: (function_type)) @definition.function

(value_specification
  (value_name) @name
  type: [(type_constructor_path) (constructed_type) (tuple_type)]) @definition.constant

(external
  (value_name) @name) @definition.function

; --- Types --------------------------------------------------------------

(type_definition
  .
  (type_binding
    name: (type_constructor) @name
    body: (variant_declaration))) @definition.enum

(type_definition
  .
  (type_binding
    name: (type_constructor) @name
    body: (record_declaration))) @definition.struct

(type_definition
  .
  (type_binding
    name: (type_constructor) @name
    !body)) @definition.struct

(type_definition
  .
  (type_binding
    name: (type_constructor) @name
    body: [(type_constructor_path) (constructed_type) (tuple_type) (function_type) (polymorphic_variant_type) (object_type)])) @definition.struct

(type_definition
  (type_binding)
  .
  (type_binding
    name: (type_constructor) @name) @definition.struct)

(record_declaration
  (field_declaration
    (field_name) @name) @definition.field)

(variant_declaration
  (constructor_declaration
    (constructor_name) @name) @definition.constant)

(exception_definition
  (constructor_declaration
    (constructor_name) @name)) @definition.class

; --- Modules and classes --------------------------------------------------

(module_definition
  (module_binding
    (module_name) @name
    [(structure) (signature) (functor)])) @definition.module

(module_definition
  (module_binding
    (module_name) @name
    body: (module_application))) @definition.module

(module_type_definition
  (module_type_name) @name) @definition.interface

(class_definition
  (class_binding
    (class_name) @name)) @definition.class

(method_definition
  (method_name) @name) @definition.method

(instance_variable_definition
  (instance_variable_name) @name) @definition.field
