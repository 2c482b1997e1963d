; Objective-C type facts: typed method and function parameters (`(Circle
; *)c`, `Circle *c`), typed locals (`Circle *c = ...`), declared method
; return types.

(method_parameter
  (method_type
    (type_name
      (type_identifier) @type))
  (identifier) @name) @binding

(declaration
  type: (type_identifier) @type
  declarator: (init_declarator
    declarator: (pointer_declarator
      declarator: (identifier) @name))) @binding

(method_definition
  .
  (method_type
    (type_name
      (type_identifier) @type))) @returns

; C parameters: `double measure(Point2 *a)`.
(parameter_declaration
  type: (type_identifier) @type
  declarator: (pointer_declarator
    declarator: (identifier) @name)) @binding
