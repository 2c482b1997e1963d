; R type facts: a name bound to `Class$new(...)` is an instance of Class.

((binary_operator
  lhs: (identifier) @name
  operator: ["<-" "=" "<<-"]
  rhs: (call
    function: (extract_operator
      lhs: (identifier) @value
      rhs: (identifier) @_new))) @binding
  (#eq? @_new "new"))
