; Objective-C symbols. `@interface C : Base` is a class holding its
; properties as fields (its method declarations are the implementation's
; to name); `@implementation C` is a scope whose methods (`-` and `+`)
; belong to C, in this file or, through the resolver, in its header's
; `@interface`; a category (`@interface C (Extra)`, `@implementation C
; (Extra)`) adds to C the same way. `@protocol P` is an interface with its
; method declarations. A method is named by its selector's first part
; (`describeTo:times:` is `describeTo`). C functions and file-level
; constants are as in C.

(class_interface
  .
  (identifier) @name
  !category) @definition.class

(class_implementation
  .
  (identifier) @name) @scope

(class_interface
  .
  (identifier) @name
  category: (identifier)) @scope

(protocol_declaration
  .
  (identifier) @name) @definition.interface

(property_declaration
  (struct_declaration
    (struct_declarator
      [(identifier) @name
       (pointer_declarator
         declarator: (identifier) @name)]))) @definition.field

(method_definition
  (identifier) @name) @definition.function

(protocol_declaration
  (method_declaration
    (identifier) @name) @definition.function)

(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
  ]) @definition.function

(translation_unit
  (declaration
    declarator: (init_declarator
      declarator: [(identifier) @name
                   (pointer_declarator
                     declarator: (identifier) @name)])) @definition.constant)
