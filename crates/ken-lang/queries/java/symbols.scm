; Java symbols. Annotations are part of a declaration's `modifiers`, so they
; are in its span and signature already. The `package` names the file's
; symbols.

(package_declaration
  [(identifier) (scoped_identifier)] @package)

(class_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

(annotation_type_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(enum_constant
  name: (identifier) @name) @definition.constant

(method_declaration
  name: (identifier) @name) @definition.method

(annotation_type_element_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.constructor

(compact_constructor_declaration
  name: (identifier) @name) @definition.constructor

; Fields: `static final` ones are constants, as are interface fields. Only
; the first of several declarators (`int a, b;`) names the symbol.

((field_declaration
  (modifiers) @_mods
  declarator: (variable_declarator
    name: (identifier) @name)) @definition.constant
  (#match? @_mods "(?s)\\bstatic\\b.*\\bfinal\\b|\\bfinal\\b.*\\bstatic\\b"))

((field_declaration
  (modifiers)? @_mods
  declarator: (variable_declarator
    name: (identifier) @name)) @definition.field
  (#not-match? @_mods "(?s)\\bstatic\\b.*\\bfinal\\b|\\bfinal\\b.*\\bstatic\\b"))

(constant_declaration
  declarator: (variable_declarator
    name: (identifier) @name)) @definition.constant
