; Haskell symbols. `module A.B where` names the file's symbols. Data types
; and newtypes are classes with their constructors (GADT ones too) and
; record fields; type synonyms and families are classes; a type class is an
; interface with its method signatures; an instance is a scope named after
; its type, so its equations are that type's methods. A function written as
; several equations is one symbol (the registry's `clauses`), its type
; signature included in its span. Top-level binds are constants when their
; value is data, functions otherwise; functions of `where` and `let`
; blocks are functions inside theirs.

(header
  module: (module) @package)

(data_type
  name: (name) @name) @definition.class

(newtype
  name: (name) @name) @definition.class

(type_synonym
  name: (name) @name) @definition.class

(type_family
  name: (name) @name) @definition.class

(data_family
  name: (name) @name) @definition.class

(data_constructor
  constructor: [
    (prefix name: (constructor) @name)
    (record name: (constructor) @name)
    (infix operator: (constructor_operator) @name)
  ]) @definition.constructor

(gadt_constructor
  name: (constructor) @name) @definition.constructor

(newtype_constructor
  name: (constructor) @name) @definition.constructor

(field
  name: (field_name (variable) @name)) @definition.field

(class
  name: (name) @name) @definition.interface

(class_declarations
  (signature
    name: (variable) @name) @definition.method)

(instance
  patterns: (type_patterns . [
    (name) @name
    (qualified id: (name) @name)
    (apply . (name) @name)
    (parens (apply . (name) @name))
  ])) @scope

(instance_declarations
  (function
    name: (variable) @name) @definition.method)

(instance_declarations
  (bind
    name: (variable) @name) @definition.method)

(declarations
  (function
    name: (variable) @name) @definition.function)

(declarations
  (bind
    name: (variable) @name
    match: (match
      expression: [(literal) (string) (list) (record) (constructor) (tuple) (unit) (negation) (arithmetic_sequence)])) @definition.constant)

(declarations
  (bind
    name: (variable) @name
    match: (match
      expression: [
        (apply) (case) (conditional) (do) (infix) (lambda) (lambda_case) (left_section) (right_section)
        (let_in) (multi_way_if) (parens) (qualified) (variable) (projection) (list_comprehension)
      ])) @definition.function)

(local_binds
  (function
    name: (variable) @name) @definition.function)
