; C# raw references.

(invocation_expression
  function: [
    (identifier) @name
    (generic_name (identifier) @name)
  ]) @reference.call

(invocation_expression
  function: (member_access_expression
    expression: _ @receiver
    name: [
      (identifier) @name
      (generic_name (identifier) @name)
    ]) @callee) @reference.call

; obj?.Method()
(invocation_expression
  function: (conditional_access_expression
    condition: (_) @receiver
    (member_binding_expression
      name: [
        (identifier) @name
        (generic_name (identifier) @name)
      ])) @callee) @reference.call

(object_creation_expression
  type: [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name
      qualifier: (_) @receiver
      name: [
        (identifier) @name
        (generic_name (identifier) @name)
      ])
  ]) @reference.instantiate

; using A.B; / using static A.B; / using X = A.B;
(using_directive
  !name
  [(identifier) (qualified_name)] @name) @reference.import

(using_directive
  name: (identifier) @alias
  [(identifier) (qualified_name) (generic_name)] @name) @reference.import

; Base classes and implemented interfaces.
(base_list
  [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name
      qualifier: (_) @receiver
      name: [
        (identifier) @name
        (generic_name (identifier) @name)
      ])
  ]) @reference.inherit

; Field and property reads and writes: this.x, obj.Prop.
(member_access_expression
  expression: _ @receiver
  name: (identifier) @name) @reference.field_use
