; C++ raw references.

(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (template_function
    name: (identifier) @name)) @reference.call

; Member calls: `s->area()`, `obj.get<int>()`.
(call_expression
  function: (field_expression
    argument: (_) @receiver
    field: [
      (field_identifier) @name
      (template_method name: (field_identifier) @name)
    ]) @callee) @reference.call

; Qualified calls: `Shape::make()`, `std::sort(...)`, `a::b::c()` (the
; miner splits the qualifier off), `std::make_unique<T>()`.
(call_expression
  function: (qualified_identifier
    name: (identifier)) @name) @reference.call

(call_expression
  function: (qualified_identifier
    name: (qualified_identifier
      name: (identifier))) @name) @reference.call

(call_expression
  function: (qualified_identifier
    name: (qualified_identifier
      name: (qualified_identifier
        name: (identifier)))) @name) @reference.call

(call_expression
  function: (qualified_identifier
    scope: (_) @receiver
    name: (template_function
      name: (identifier) @name))) @reference.call

(call_expression
  function: (qualified_identifier
    name: (qualified_identifier
      scope: (_) @receiver
      name: (template_function
        name: (identifier) @name)))) @reference.call

; #include <vector> / #include "shapes/base.hpp" (system headers keep their <>).
(preproc_include
  path: (_) @path) @reference.import

; using std::string; / using namespace std;
(using_declaration
  (qualified_identifier
    scope: (_) @path
    name: (identifier) @name)) @reference.import

(using_declaration
  "namespace"
  [(identifier) (qualified_identifier)] @path) @reference.import

; new Shape(1) / new geo::Box<int>()
(new_expression
  type: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier
      scope: (_) @receiver
      name: [
        (type_identifier) @name
        (template_type name: (type_identifier) @name)
      ])
  ]) @reference.instantiate

; class Shape : public Base, private ns::Mixin<int>
(base_class_clause
  [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier
      scope: (_) @receiver
      name: [
        (type_identifier) @name
        (template_type name: (type_identifier) @name)
      ])
  ]) @reference.inherit

(field_expression
  argument: (_) @receiver
  field: [
    (field_identifier) @name
    (template_method name: (field_identifier) @name)
  ]) @reference.field_use
