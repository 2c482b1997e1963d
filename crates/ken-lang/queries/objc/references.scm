; Objective-C raw references: `#import` and `#include` name a file; a
; message (`[obj area]`, `[self area]`, `[super init]`, `[out
; appendFormat:...]`) calls its selector's first part on the receiver;
; `[C alloc]` and `[C new]` instantiate C; C function calls are calls; a
; superclass and the protocols a class or protocol adopts are inheritance;
; `obj.prop` and `obj->ivar` are field uses.

(preproc_include
  path: (_) @path) @reference.import

((message_expression
  receiver: (_) @receiver
  method: (identifier) @name) @reference.call
  (#not-any-of? @name "alloc" "new"))

((message_expression
  receiver: (identifier) @name
  method: (identifier) @_make) @reference.instantiate
  (#any-of? @_make "alloc" "new"))

(call_expression
  function: (identifier) @name) @reference.call

(class_interface
  superclass: (identifier) @name @reference.inherit)

(class_interface
  (parameterized_arguments
    (type_name
      (type_identifier) @name) @reference.inherit))

(protocol_declaration
  (protocol_reference_list
    (identifier) @name @reference.inherit))

(field_expression
  argument: (_) @receiver
  field: (field_identifier) @name) @reference.field_use
