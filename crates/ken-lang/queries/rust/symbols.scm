; Rust symbols. Methods live in `impl` blocks, which are scopes named after
; their self type; attributes before an item join its span.

(struct_item
  name: (type_identifier) @name) @definition.struct

(union_item
  name: (type_identifier) @name) @definition.struct

(enum_item
  name: (type_identifier) @name) @definition.enum

(trait_item
  name: (type_identifier) @name) @definition.trait

(function_item
  name: (identifier) @name) @definition.function

(function_signature_item
  name: (identifier) @name) @definition.function

; `macro_rules! select { … }`: called as `select!(…)`, like a function.
(macro_definition
  name: (identifier) @name) @definition.function

(mod_item
  name: (identifier) @name
  body: (declaration_list)) @definition.module

(const_item
  name: (identifier) @name) @definition.constant

; A type alias of a module (`pub type Result<T> = …`) names a type as a
; struct does; an impl's or a trait's associated `type Item` is plumbing.
(source_file
  (type_item name: (type_identifier) @name) @definition.struct)
(mod_item
  body: (declaration_list
    (type_item name: (type_identifier) @name) @definition.struct))

(static_item
  name: (identifier) @name) @definition.constant

(field_declaration
  name: (field_identifier) @name) @definition.field

(enum_variant
  name: (identifier) @name) @definition.constant

(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
  ]) @scope
