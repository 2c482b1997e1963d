; Rust raw references.

(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (field_expression
    value: (_) @receiver
    field: (field_identifier) @name) @callee) @reference.call

(call_expression
  function: (scoped_identifier
    path: (_) @receiver
    name: (identifier) @name) @callee) @reference.call

(call_expression
  function: (generic_function
    function: [
      (identifier) @name
      (scoped_identifier path: (_) @receiver name: (identifier) @name)
      (field_expression value: (_) @receiver field: (field_identifier) @name) @callee
    ]) @callee) @reference.call

(macro_invocation
  macro: (identifier) @name) @reference.call

; `use` trees are expanded by the miner into one import per leaf.
(use_declaration
  argument: (_) @path) @reference.import

; `mod foo;` pulls in another file.
(mod_item
  name: (identifier) @name
  !body) @reference.import

(struct_expression
  name: [
    (type_identifier) @name
    (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
    (generic_type_with_turbofish type: (type_identifier) @name)
  ]) @reference.instantiate

(impl_item
  trait: [
    (type_identifier) @name
    (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
  ]) @reference.inherit

(trait_item
  bounds: (trait_bounds
    [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
    ])) @reference.inherit

(field_expression
  value: (_) @receiver
  field: (field_identifier) @name) @reference.field_use

; Inside a macro's arguments (`write!(f, "{}", self.major)`, `assert_eq!`)
; tree-sitter sees tokens, not expressions: `self.major` is `self` `.` `major`.
(token_tree
  [(self) (identifier)] @receiver
  .
  "."
  .
  (identifier) @name) @reference.field_use
