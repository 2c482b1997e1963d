; OCaml raw references: `open M` and `include M` bring every name of M,
; `module U = Util` names Util as U; applications call their function
; (`f x`, `M.f x`, `M.N.f x` with the module path as receiver); `obj#m`
; calls a method; `r.field` is a field use.

(open_module
  module: (module_path) @path @glob) @reference.import

(include_module
  module: (module_path) @path @glob) @reference.import

(module_definition
  (module_binding
    (module_name) @alias
    body: (module_path) @path)) @reference.import

(application_expression
  function: (value_path
    .
    (value_name) @name .)) @reference.call

(application_expression
  function: (value_path
    (module_path) @receiver
    (value_name) @name) @callee) @reference.call

(method_invocation
  object: (_) @receiver
  method: (method_name) @name) @reference.call

(field_get_expression
  record: (_) @receiver
  field: (field_path
    (field_name) @name)) @reference.field_use
