; Python raw references.

(call
  function: (identifier) @name) @reference.call

(call
  function: (attribute
    object: (_) @receiver
    attribute: (identifier) @name) @callee) @reference.call

; import a.b / import a.b as c
(import_statement
  name: (dotted_name) @name) @reference.import

(import_statement
  name: (aliased_import
    name: (dotted_name) @name
    alias: (identifier) @alias)) @reference.import

; from m import x / from m import x as y / from m import *
(import_from_statement
  module_name: (_) @path
  name: (dotted_name) @name) @reference.import

(import_from_statement
  module_name: (_) @path
  name: (aliased_import
    name: (dotted_name) @name
    alias: (identifier) @alias)) @reference.import

(import_from_statement
  module_name: (_) @path
  (wildcard_import) @name) @reference.import

; Base classes, skipping `metaclass=` and other keywords.
(class_definition
  superclasses: (argument_list
    [(identifier) (attribute)] @name)) @reference.inherit

(class_definition
  superclasses: (argument_list
    (subscript
      value: [(identifier) (attribute)] @name))) @reference.inherit

; Attribute reads and writes: self.x, obj.field.
(attribute
  object: (_) @receiver
  attribute: (identifier) @name) @reference.field_use

; A definition passed or stored by its bare name: f(callback), key=handler,
; [on_start], x = handler. Kept only where the name is one of the file's
; definitions or imports (references.rs): most bare names are locals.
(argument_list
  (identifier) @name @reference.field_use)

(keyword_argument
  value: (identifier) @name @reference.field_use)

(list
  (identifier) @name @reference.field_use)

(assignment
  right: (identifier) @name @reference.field_use)

; `del handler` unbinds a definition: a use of it. So is a default value
; (`def f(key=default_key)`) and a dictionary's value (`{"get": handler}`).
(delete_statement
  (identifier) @name @reference.field_use)

(delete_statement
  (expression_list
    (identifier) @name @reference.field_use))

(default_parameter
  value: (identifier) @name @reference.field_use)

(typed_default_parameter
  value: (identifier) @name @reference.field_use)

(pair
  value: (identifier) @name @reference.field_use)

; An exception class caught or raised by its bare name: `except HTTPError:`,
; `except (A, B) as e:`, `raise Timeout`. (`m.Error` is an attribute read.)
(except_clause
  value: (identifier) @name @reference.field_use)

(except_clause
  value: (tuple
    (identifier) @name @reference.field_use))

(except_clause
  value: (as_pattern
    (identifier) @name @reference.field_use))

(except_clause
  value: (as_pattern
    (tuple
      (identifier) @name @reference.field_use)))

(raise_statement
  (identifier) @name @reference.field_use)
