; JavaScript type facts, for receiver type inference. Without annotations,
; only construction, call results and aliases say what a name holds.

; const x = new Session() / const x = new net.Session()
(variable_declarator
  name: (identifier) @name
  value: (new_expression
    constructor: [(identifier) (member_expression)] @type)) @binding

; const x = makeSession() / const conn = this.pool.connect()
; (not `const fs = require("fs")`)
((variable_declarator
  name: (identifier) @name
  value: (call_expression
    function: [(identifier) (member_expression)] @value)) @binding
  (#not-eq? @value "require"))

; Class fields: `registry = new Registry()`, `pool = makePool()`.
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: (new_expression
    constructor: [(identifier) (member_expression)] @type)) @binding

(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: (call_expression
    function: [(identifier) (member_expression)] @value)) @binding

; this.session = new Session() / s = new Session()
(assignment_expression
  left: [
    (identifier)
    (member_expression object: (this))
  ] @name
  right: (new_expression
    constructor: [(identifier) (member_expression)] @type)) @binding

; this.pool = makePool() / s = makeSession()
(assignment_expression
  left: [
    (identifier)
    (member_expression object: (this))
  ] @name
  right: (call_expression
    function: [(identifier) (member_expression)] @value)) @binding

; this.session = session
(assignment_expression
  left: (member_expression object: (this)) @name
  right: (identifier) @alias) @binding
