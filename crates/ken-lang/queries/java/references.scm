; Java raw references.

(method_invocation
  !object
  name: (identifier) @name) @reference.call

(method_invocation
  object: (_) @receiver
  name: (identifier) @name) @reference.call

(object_creation_expression
  type: [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ]) @reference.instantiate

; import a.b.C; / import a.b.*; / import static a.b.C.m;
(import_declaration
  (scoped_identifier
    scope: (_) @path
    name: (identifier) @name)
  .) @reference.import

(import_declaration
  [(identifier) (scoped_identifier)] @path
  (asterisk) @name) @reference.import

; Superclass, implemented interfaces, extended interfaces.
(superclass
  [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ]) @reference.inherit

(super_interfaces
  (type_list
    [
      (type_identifier) @name
      (scoped_type_identifier) @name
      (generic_type [(type_identifier) (scoped_type_identifier)] @name)
    ])) @reference.inherit

(extends_interfaces
  (type_list
    [
      (type_identifier) @name
      (scoped_type_identifier) @name
      (generic_type [(type_identifier) (scoped_type_identifier)] @name)
    ])) @reference.inherit

; Field reads and writes: this.x, obj.field.
(field_access
  object: (_) @receiver
  field: (identifier) @name) @reference.field_use
