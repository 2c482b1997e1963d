; SQL raw references. A statement naming a table or view (`FROM`, `JOIN`,
; `INSERT INTO`, `UPDATE`, `DELETE FROM`, a foreign key's `REFERENCES`, an
; index's or a trigger's `ON`) instantiates it, so the queries that read or
; write a table are its callers; a function call (`count(*)`,
; `order_count(id)`, a trigger's `EXECUTE FUNCTION f()`) is a call. A schema
; is the receiver: `app.users` is `users` qualified by `app`.

(relation
  (object_reference
    schema: (identifier)? @receiver
    name: (identifier) @name)) @reference.instantiate

; `DELETE FROM t` and `INSERT INTO t` name the table directly.
(from
  (object_reference
    schema: (identifier)? @receiver
    name: (identifier) @name) @reference.instantiate)

(insert
  (object_reference
    schema: (identifier)? @receiver
    name: (identifier) @name) @reference.instantiate)

(_
  (keyword_references)
  .
  (object_reference
    schema: (identifier)? @receiver
    name: (identifier) @name) @reference.instantiate)

(create_index
  (keyword_on)
  .
  (object_reference
    schema: (identifier)? @receiver
    name: (identifier) @name) @reference.instantiate)

(create_trigger
  (keyword_on)
  .
  (object_reference
    schema: (identifier)? @receiver
    name: (identifier) @name) @reference.instantiate)

(create_trigger
  [(keyword_function) (keyword_procedure)]
  .
  (object_reference
    schema: (identifier)? @receiver
    name: (identifier) @name) @reference.call)

(invocation
  (object_reference
    schema: (identifier)? @receiver
    name: (identifier) @name)) @reference.call
