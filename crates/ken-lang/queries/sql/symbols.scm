; SQL symbols. Tables, views and materialized views are structs holding
; their columns as fields; functions are functions; a named index is a
; constant; `CREATE TYPE ... AS ENUM` an enum and any other type a struct.
; A schema (`app.users`) qualifies the name: the symbol is `users`, its
; qualified name `app.users`. (tree-sitter-sequel 0.3 parses no
; `CREATE PROCEDURE`: such a statement stays text.)

(create_table
  (object_reference
    schema: (identifier)? @receiver
    name: (identifier) @name)) @definition.struct

(create_view
  (object_reference
    schema: (identifier)? @receiver
    name: (identifier) @name)) @definition.struct

(create_materialized_view
  (object_reference
    schema: (identifier)? @receiver
    name: (identifier) @name)) @definition.struct

(column_definition
  name: (identifier) @name) @definition.field

(create_function
  (object_reference
    schema: (identifier)? @receiver
    name: (identifier) @name)) @definition.function

(create_index
  column: (identifier) @name) @definition.constant

(create_type
  (object_reference
    schema: (identifier)? @receiver
    name: (identifier) @name)
  (enum_elements)) @definition.enum

(create_type
  (object_reference
    schema: (identifier)? @receiver
    name: (identifier) @name)
  (column_definitions)) @definition.struct
