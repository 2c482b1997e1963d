mod common;

use common::{render_chunks, render_references, render_symbols};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

const SOURCES: &str = r#"
//- infra/variables.tf
# The region to deploy to.
variable "region" {
  type    = string
  default = "eu-west-1"
}

variable "instance_type" {
  default = "t3.micro"
}
//- infra/main.tf
terraform {
  required_version = ">= 1.0"
}

provider "aws" {
  region = var.region
}

locals {
  name = "web-${var.region}"
  tags = { Name = local.name }
}

data "aws_ami" "ubuntu" {
  most_recent = true
}

# The web server.
resource "aws_instance" "web" {
  ami           = data.aws_ami.ubuntu.id
  instance_type = var.instance_type
  tags          = local.tags
  subnet_id     = module.vpc.subnet_ids[0]
  user_data     = "${path.module}/init.sh"

  lifecycle {
    create_before_destroy = true
  }
}

module "vpc" {
  source = "./modules/vpc"
  cidr   = cidrsubnet("10.0.0.0/8", 8, 1)
}

output "ip" {
  value      = aws_instance.web.public_ip
  depends_on = [aws_instance.web]
}
//- infra/prod.tfvars
region = "us-east-1"
//- infra/modules/vpc/main.hcl
variable "cidr" {}

resource "aws_subnet" "main" {
  cidr_block = var.cidr
  count      = length(var.cidr)
  tags       = { Index = count.index }
}

output "subnet_ids" {
  value = aws_subnet.main[*].id
}
"#;

fn check(render: fn(&str) -> String, expect: Expect) {
    expect.assert_eq(&render(SOURCES));
}

#[test]
fn blocks_named_as_references_spell_them() {
    check(
        render_symbols,
        expect![[r#"
        infra/variables.tf (module infra/variables, 0 parse errors)
          field var.region [2-5] `variable "region"`
          field var.instance_type [7-9] `variable "instance_type"`
        infra/main.tf (module infra/main, 0 parse errors)
          constant local.name [10-10] `name = "web-${var.region}"`
          constant local.tags [11-11] `tags = { Name = local.name }`
          struct data.aws_ami.ubuntu [14-16] `data "aws_ami" "ubuntu"`
          struct aws_instance.web [19-29] `resource "aws_instance" "web"` doc: The web server.
          module module.vpc [31-34] `module "vpc"`
          constant output.ip [36-39] `output "ip"`
        infra/prod.tfvars (module infra/prod, 0 parse errors)
        infra/modules/vpc/main.hcl (module infra/modules/vpc/main, 0 parse errors)
          field var.cidr [1-1] `variable "cidr" {}`
          struct aws_subnet.main [3-7] `resource "aws_subnet" "main"`
          constant output.subnet_ids [9-11] `output "subnet_ids"`
    "#]],
    );
}

#[test]
fn traversals_are_references() {
    check(
        render_references,
        expect![[r#"
        infra/variables.tf
        infra/main.tf
          6:16 field_use var :: region in <module>
          10:21 field_use var :: region in local.name
          11:25 field_use local :: name in local.tags
          20:32 field_use data.aws_ami :: ubuntu in aws_instance.web
          21:23 field_use var :: instance_type in aws_instance.web
          22:25 field_use local :: tags in aws_instance.web
          23:26 field_use module :: vpc in aws_instance.web
          37:29 field_use aws_instance :: web in output.ip
          38:30 field_use aws_instance :: web in output.ip
        infra/prod.tfvars
        infra/modules/vpc/main.hcl
          4:20 field_use var :: cidr in aws_subnet.main
          5:27 field_use var :: cidr in aws_subnet.main
          10:22 field_use aws_subnet :: main in output.subnet_ids
    "#]],
    );
}

#[test]
fn chunks_follow_blocks() {
    check(
        |f| render_chunks(f, ChunkBudget::default()),
        expect![[r#"
        infra/variables.tf
          1-10 var.region | class - | fn -
        infra/main.tf
          1-40 local.name | class - | fn -
        infra/prod.tfvars
          1-2 infra/prod | class - | fn -
        infra/modules/vpc/main.hcl
          1-12 var.cidr | class - | fn -
    "#]],
    );
}
