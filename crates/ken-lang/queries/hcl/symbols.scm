; HCL (Terraform) symbols, named as expressions refer to them: `resource
; "aws_instance" "web"` is the struct `aws_instance.web`, `data "aws_ami"
; "ubuntu"` the struct `data.aws_ami.ubuntu`, `module "vpc"` the module
; `module.vpc`, `variable "region"` the field `var.region`, each attribute
; of a `locals` block the constant `local.<name>` and `output "ip"` the
; constant `output.ip`. The part before the last name is the receiver: a
; label of the block, or a word set with `#set! receiver`. `terraform` and
; `provider` blocks name nothing one refers to.

(block
  . (identifier) @_kind
  . (string_lit (template_literal) @receiver)
  . (string_lit (template_literal) @name)
  . (block_start)
  (#eq? @_kind "resource")) @definition.struct

((block
  . (identifier) @_kind
  . (string_lit (template_literal) @receiver)
  . (string_lit (template_literal) @name)
  . (block_start)) @definition.struct
  (#eq? @_kind "data")
  (#set! receiver "data"))

((block
  . (identifier) @_kind
  . (string_lit (template_literal) @name)
  . (block_start)) @definition.module
  (#eq? @_kind "module")
  (#set! receiver "module"))

((block
  . (identifier) @_kind
  . (string_lit (template_literal) @name)
  . (block_start)) @definition.field
  (#eq? @_kind "variable")
  (#set! receiver "var"))

((block
  . (identifier) @_kind
  . (string_lit (template_literal) @name)
  . (block_start)) @definition.constant
  (#eq? @_kind "output")
  (#set! receiver "output"))

((block
  . (identifier) @_kind
  . (block_start)
  (body
    (attribute
      . (identifier) @name) @definition.constant))
  (#eq? @_kind "locals")
  (#set! receiver "local"))
