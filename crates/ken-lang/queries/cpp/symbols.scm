; C++ symbols. Namespaces name what they hold but are not symbols, and a
; function in one is still a function. A function inside a class is a method (a constructor when it is
; named after the class); an out-of-line definition `void Shape::area()`
; names its class through `@receiver`. Declarations without a body (methods
; declared in a class, prototypes in a header) are symbols too: a header's
; API is its declarations. Only declarations at file, namespace or class
; level count, since `Foo x(a, b);` in a function body parses the same way.

(namespace_definition
  name: (_) @name) @namespace

; Types with a body; a forward declaration (`class Foo;`) is not a definition.
; A specialisation `struct Box<int>` is named `Box`.
(class_specifier
  name: [(type_identifier) (template_type)] @name
  body: (_)) @definition.class

(struct_specifier
  name: [(type_identifier) (template_type)] @name
  body: (_)) @definition.struct

(union_specifier
  name: [(type_identifier) (template_type)] @name
  body: (_)) @definition.struct

(enum_specifier
  name: (type_identifier) @name
  body: (_)) @definition.enum

; `typedef struct { ... } point_t;`: an anonymous type named by its typedef.
(type_definition
  type: (struct_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (enum_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.enum

(enumerator
  name: (identifier) @name) @definition.constant

; Function definitions, in and out of classes.
(function_definition
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)))
  ]) @definition.function

; Out-of-line definitions: `Shape::area`, `geo::Shape::area` (the innermost
; scope is the receiver), `Box<T>::set`.
(function_definition
  declarator: [
    (function_declarator declarator: (qualified_identifier scope: (_) @receiver name: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @receiver name: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @receiver name: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)))
  ]) @definition.function

(function_definition
  declarator: [
    (function_declarator declarator: (qualified_identifier name: (qualified_identifier scope: (_) @receiver name: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier name: (qualified_identifier scope: (_) @receiver name: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))))
    (reference_declarator (function_declarator declarator: (qualified_identifier name: (qualified_identifier scope: (_) @receiver name: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))))
  ]) @definition.function

; Declarations of functions and methods.
(translation_unit
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
      (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
    ]) @definition.function)

(declaration_list
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
      (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
    ]) @definition.function)

(field_declaration_list
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
      (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
    ]) @definition.function)

(template_declaration
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
      (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
    ]) @definition.function)

(preproc_ifdef
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
      (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
    ]) @definition.function)

(preproc_if
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
      (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
    ]) @definition.function)

; Methods declared in a class body (`virtual double area() const = 0;`).
(field_declaration
  declarator: [
    (function_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))
    (reference_declarator (function_declarator declarator: (field_identifier) @name))
  ]) @definition.function

; Fields. A declaration of one field is the field; in `int x, *y;` each
; declarator is a field of its own.
(field_declaration
  type: (_) .
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (reference_declarator (field_identifier) @name)
    (array_declarator declarator: (field_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator
      (pointer_declarator declarator: (field_identifier) @name)))
  ] .) @definition.field

(field_declaration
  type: (_) .
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (reference_declarator (field_identifier) @name)
    (array_declarator declarator: (field_identifier) @name)
  ] .
  default_value: (_) .) @definition.field

(field_declaration
  type: (_) .
  declarator: (field_identifier) @name .
  (bitfield_clause) .) @definition.field

(field_declaration
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
  ] @definition.field .
  declarator: (_))

(field_declaration
  declarator: (_)
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
  ] @definition.field)

; Object-like macros with a value are constants (include guards have none);
; function-like macros are called like functions.
(preproc_def
  name: (identifier) @name
  value: (_)) @definition.constant

(preproc_function_def
  name: (identifier) @name) @definition.function

; `const` and `constexpr` objects, and lambdas bound to a name, at file or
; namespace level.
(translation_unit
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (pointer_declarator declarator: (identifier) @name)
      ])) @definition.constant
  (#match? @_const "^(const|constexpr)$"))

(declaration_list
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (pointer_declarator declarator: (identifier) @name)
      ])) @definition.constant
  (#match? @_const "^(const|constexpr)$"))

(preproc_ifdef
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (pointer_declarator declarator: (identifier) @name)
      ])) @definition.constant
  (#match? @_const "^(const|constexpr)$"))

(preproc_if
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (pointer_declarator declarator: (identifier) @name)
      ])) @definition.constant
  (#match? @_const "^(const|constexpr)$"))

(translation_unit
  (declaration
    declarator: (init_declarator
      declarator: (identifier) @name
      value: (lambda_expression))) @definition.function)

(declaration_list
  (declaration
    declarator: (init_declarator
      declarator: (identifier) @name
      value: (lambda_expression))) @definition.function)
