; HCL (Terraform) raw references: a traversal names what it reads by its
; first two steps (`var.region`, `local.tags`, `module.vpc` of
; `module.vpc.subnet_ids`, `aws_instance.web` of `aws_instance.web.id`),
; and a data source by three (`data.aws_ami.ubuntu`). Each is a field use
; whose receiver is the steps before the name; the resolver looks the whole
; path up as a qualified name. Built-in functions (`cidrsubnet`) are left
; out: nothing in a repository defines them.

((expression
  . (variable_expr (identifier) @receiver)
  . (get_attr (identifier) @name)) @reference.field_use
  (#not-any-of? @receiver "data" "each" "count" "path" "self" "terraform"))

((expression
  . (variable_expr (identifier) @_root) @path
  . (get_attr) @path
  . (get_attr (identifier) @name)) @reference.field_use
  (#eq? @_root "data"))
