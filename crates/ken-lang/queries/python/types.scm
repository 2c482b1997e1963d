; Python type facts, for receiver type inference.

; def f(x: Session) / def f(x: Session = None)
(typed_parameter
  (identifier) @name
  type: (type) @type) @binding

(typed_default_parameter
  name: (identifier) @name
  type: (type) @type) @binding

; x: Session = ... / self.x: Session = ...
(assignment
  left: [(identifier) (attribute)] @name
  type: (type) @type) @binding

; x = Session(...) / self.x = make_session()
(assignment
  left: [(identifier) (attribute)] @name
  right: (call
    function: [(identifier) (attribute)] @value)) @binding

; with Session() as s:
(with_item
  value: (as_pattern
    (call
      function: [(identifier) (attribute)] @value)
    alias: (as_pattern_target
      (identifier) @name))) @binding

; def f(...) -> Session:
(function_definition
  return_type: (type) @type) @returns

; self.session = session
(assignment
  left: (attribute) @name
  right: (identifier) @alias) @binding

; class App: session_class = SecureCookieSession (a field that holds a class:
; calling it makes one)
(class_definition
  body: (block
    (expression_statement
      (assignment
        left: (identifier) @name
        right: [(identifier) (attribute)] @alias) @binding)))
