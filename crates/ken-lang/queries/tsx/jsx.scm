; JSX references, added to the TypeScript ones for TSX (the TypeScript grammar has no JSX nodes).

; JSX components (capitalised, unlike HTML elements) are called.
((jsx_opening_element
  name: (identifier) @name) @reference.call
  (#match? @name "^[A-Z]"))

((jsx_self_closing_element
  name: (identifier) @name) @reference.call
  (#match? @name "^[A-Z]"))

(jsx_opening_element
  name: (member_expression) @name) @reference.call

(jsx_self_closing_element
  name: (member_expression) @name) @reference.call

(jsx_closing_element
  name: (member_expression) @callee)
