; Bash raw references: every command is a call by name (a function of the
; repository, or a program); `source FILE` and `. FILE` import a file.

(command
  name: (command_name
    (word) @name)) @reference.call

(command
  name: (command_name
    (word) @_source)
  argument: (_) @name
  (#any-of? @_source "source" ".")) @reference.import
