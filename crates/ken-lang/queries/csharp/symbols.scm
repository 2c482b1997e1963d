; C# symbols. Attributes are part of a declaration's node, so they are in its
; span and signature already. A file-scoped `namespace A.B;` names the file's
; symbols; a block-scoped `namespace A.B { }` is a scope of the names inside.

(file_scoped_namespace_declaration
  name: (_) @package)

(namespace_declaration
  name: (_) @name) @namespace

(class_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

(struct_declaration
  name: (identifier) @name) @definition.struct

(interface_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(enum_member_declaration
  name: (identifier) @name) @definition.constant

(method_declaration
  name: (identifier) @name) @definition.method

(local_function_statement
  name: (identifier) @name) @definition.function

(constructor_declaration
  name: (identifier) @name) @definition.constructor

; Properties are fields.
(property_declaration
  name: (identifier) @name) @definition.field

; Fields: `const` ones are constants. Only the first of several declarators
; (`int a, b;`) names the symbol.

(field_declaration
  (modifier "const")
  (variable_declaration
    (variable_declarator
      name: (identifier) @name))) @definition.constant

((field_declaration
  (modifier)* @_mods
  (variable_declaration
    (variable_declarator
      name: (identifier) @name))) @definition.field
  (#not-any-of? @_mods "const"))

; So are events.
(event_field_declaration
  (variable_declaration
    (variable_declarator
      name: (identifier) @name))) @definition.field

(event_declaration
  name: (identifier) @name) @definition.field
