; PHP symbols. The file's `namespace` is its package; declarations with
; several elements (`const A = 1, B = 2;`, `public $a, $b;`) define each
; element on its own, spanning only the element.

(namespace_definition
  name: (namespace_name) @package)

(class_declaration
  name: (name) @name) @definition.class

(interface_declaration
  name: (name) @name) @definition.interface

(trait_declaration
  name: (name) @name) @definition.trait

(enum_declaration
  name: (name) @name) @definition.enum

(enum_case
  name: (name) @name) @definition.constant

(function_definition
  name: (name) @name) @definition.function

(method_declaration
  name: (name) @name) @definition.method

; Constants, top-level and in classes.
(const_declaration
  "const" .
  (const_element (name) @name) .) @definition.constant

(const_declaration
  (const_element (name) @name) @definition.constant
  (const_element))

(const_declaration
  (const_element)
  (const_element (name) @name) @definition.constant)

; Properties.
(property_declaration
  type: (_) .
  (property_element
    name: (variable_name (name) @name)) .) @definition.field

(property_declaration
  [
    (visibility_modifier) (static_modifier) (readonly_modifier)
    (var_modifier) (final_modifier) (abstract_modifier)
  ] .
  (property_element
    name: (variable_name (name) @name)) .) @definition.field

(property_declaration
  (property_element
    name: (variable_name (name) @name)) @definition.field
  (property_element))

(property_declaration
  (property_element)
  (property_element
    name: (variable_name (name) @name)) @definition.field)

; A closure or arrow function bound to a variable at the top level is a
; function.
(program
  (expression_statement
    (assignment_expression
      left: (variable_name (name) @name)
      right: [(anonymous_function) (arrow_function)])) @definition.function)

(namespace_definition
  body: (compound_statement
    (expression_statement
      (assignment_expression
        left: (variable_name (name) @name)
        right: [(anonymous_function) (arrow_function)])) @definition.function))
