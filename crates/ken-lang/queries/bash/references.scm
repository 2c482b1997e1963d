; Bash raw references: every command is a call by name (a function of the
; repository, or a program); `source FILE` and `. FILE` import a file.

(command
  name: (command_name
    (word) @name)
  (#not-any-of? @name
    "source" "." "return" "exit" "echo" "printf" "local" "export" "readonly" "declare" "shift" "set" "unset"
    "cd" "read" "eval" "exec" "test" "[" "true" "false" ":" "trap" "wait" "command" "builtin" "type" "let")) @reference.call

(command
  name: (command_name
    (word) @_source)
  argument: (_) @name
  (#any-of? @_source "source" ".")) @reference.import
