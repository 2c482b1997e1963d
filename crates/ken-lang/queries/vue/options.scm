
; Vue's Options API: `export default { methods: { f() {} } }` (or
; `defineComponent({ ... })`): the component's methods, computed
; properties and watchers are its functions.
(export_statement
  value: [
    (object
      (pair
        key: (property_identifier) @_section
        value: (object
          (method_definition
            name: (property_identifier) @name) @definition.function)))
    (call_expression
      arguments: (arguments
        (object
          (pair
            key: (property_identifier) @_section
            value: (object
              (method_definition
                name: (property_identifier) @name) @definition.function)))))
  ]
  (#any-of? @_section "methods" "computed" "watch"))
