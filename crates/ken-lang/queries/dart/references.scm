; Dart raw references: `import 'uri'` (`as x` names it) and `export 'uri'`
; import a file; calls (`f()`, `obj.m()`, `this.m()`, `Box.make()`), with a
; class called as a function (`Circle(1)`) or built with `new` an
; instantiation once resolved; `extends`, `with` and `implements` are
; inheritance; `obj.field` and `this.field` outside a call are field uses.

(import_specification
  uri: (configurable_uri) @path
  alias: (identifier)? @alias) @reference.import

(library_export
  uri: (configurable_uri) @path) @reference.import

(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (member_expression
    object: (_) @receiver
    property: (identifier) @name) @callee) @reference.call

(call_expression
  function: (member_expression
    "this" @receiver
    property: (identifier) @name) @callee) @reference.call

(call_expression
  function: (member_expression
    "super" @receiver
    property: (identifier) @name) @callee) @reference.call

(new_expression
  type: (type
    .
    (type_identifier) @name
    .)) @reference.instantiate

(new_expression
  type: (type
    .
    (type_identifier) @receiver
    .
    (type_identifier) @name)) @reference.call

(superclass
  type: (type
    (type_identifier) @name)) @reference.inherit

(mixins
  (type
    (type_identifier) @name) @reference.inherit)

(interfaces
  (type
    (type_identifier) @name) @reference.inherit)

(mixin_declaration
  (type
    (type_identifier) @name) @reference.inherit)

(member_expression
  object: (_) @receiver
  property: (identifier) @name) @reference.field_use

(member_expression
  "this" @receiver
  property: (identifier) @name) @reference.field_use

(assignable_expression
  object: (_) @receiver
  property: (identifier) @name) @reference.field_use
