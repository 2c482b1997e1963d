; Symbol patterns JavaScript and TypeScript share, appended to each
; language's own symbols.scm (the two grammars name these nodes alike).

; A component, hook or handler made by a call on an inline function and
; bound to a top-level const is named after it: React's
; `const Button = forwardRef((props, ref) => ...)`, `memo(function Row() {})`,
; zustand's `export const useStore = create((set) => ...)`.

[
  (program
    (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        value: (call_expression arguments: (arguments [(arrow_function) (function_expression)])))) @definition.function)
  (export_statement
    declaration: (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        value: (call_expression arguments: (arguments [(arrow_function) (function_expression)]))))) @definition.function
]
