; Dart symbols. Classes, mixins and extensions are classes; enums are
; enums with their values as constants. Methods (getters and setters too)
; and abstract method declarations inside a type are methods; top-level
; functions are functions. A constructor is named after its class (`Box`),
; a named one after its own name (`Box.empty` is `empty`, factories too).
; Instance and static fields are fields; top-level `const` and `final`
; variables are constants.

(class_declaration
  name: (identifier) @name) @definition.class

(mixin_declaration
  name: (identifier) @name) @definition.class

(extension_declaration
  name: (identifier) @name) @definition.class

(enum_declaration
  name: (identifier) @name) @definition.enum

(enum_entry
  name: (identifier) @name) @definition.constant

(function_declaration
  signature: (function_signature
    name: (identifier) @name)) @definition.function

(method_declaration
  signature: (method_signature
    [(function_signature
      name: (identifier) @name)
     (getter_signature
      name: (identifier) @name)
     (setter_signature
      name: (identifier) @name)])) @definition.function

; `void printMe();` in an abstract class.
(class_body
  (member_declaration
    (declaration
      (function_signature
        name: (identifier) @name)) @definition.function))

; Constructors: `Box(...)`, `Box.named(...)`, `const Box.empty()`,
; `factory Box.make(...)`.
(declaration
  [(constructor_signature
    name: (identifier) @name
    .
    parameters: (formal_parameter_list))
   (constant_constructor_signature
    name: (identifier) @name
    .
    parameters: (formal_parameter_list))]) @definition.constructor

(method_declaration
  signature: (method_signature
    [(factory_constructor_signature
      name: (identifier) @name
      .
      parameters: (formal_parameter_list))
     (constructor_signature
      name: (identifier) @name
      .
      parameters: (formal_parameter_list))])) @definition.constructor

(declaration
  (factory_constructor_signature
    name: (identifier) @name
    .
    parameters: (formal_parameter_list))) @definition.constructor

; Fields.
(class_body
  (member_declaration
    (declaration
      (initialized_identifier_list
        (initialized_identifier
          name: (identifier) @name) @definition.field))))

(class_body
  (member_declaration
    (declaration
      (static_final_declaration_list
        (static_final_declaration
          name: (identifier) @name) @definition.field))))

; Top-level `const` and `final` variables.
(top_level_variable_declaration
  (static_final_declaration_list
    (static_final_declaration
      name: (identifier) @name) @definition.constant))
