; Bash symbols: functions (`f() { … }` and `function f { … }`), and
; exported or top-level variables set with `export`/`readonly`/`declare`.

(function_definition
  name: (word) @name) @definition.function

(program
  (declaration_command
    (variable_assignment
      name: (variable_name) @name)) @definition.constant)
