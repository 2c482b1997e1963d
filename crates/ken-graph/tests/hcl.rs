//! HCL (Terraform) end to end: `var.x`, `local.x`, `module.m`, `data.T.N`
//! and `T.N` resolve to the block that defines them in the same directory
//! (a Terraform module spans its directory's files), not to a namesake in
//! another module's directory.

mod common;

use common::{check_edges, check_queries};
use expect_test::expect;

const INFRA: &str = r#"
//- infra/variables.tf
variable "region" {
  default = "eu-west-1"
}

variable "cidr" {}
//- infra/main.tf
locals {
  name = "web-${var.region}"
  tags = { Name = local.name }
}

data "aws_ami" "ubuntu" {
  most_recent = true
}

resource "aws_instance" "web" {
  ami       = data.aws_ami.ubuntu.id
  tags      = local.tags
  subnet_id = module.vpc.subnet_ids[0]
  count     = length(var.cidr)
}

module "vpc" {
  source = "./modules/vpc"
  cidr   = var.cidr
}

output "ip" {
  value = aws_instance.web[0].public_ip
}
//- infra/modules/vpc/main.tf
variable "cidr" {}

resource "aws_subnet" "main" {
  cidr_block = var.cidr
}

output "subnet_ids" {
  value = [aws_subnet.main.id]
}
"#;

#[test]
fn references_resolve_within_the_module_directory() {
    check_edges(
        INFRA,
        expect![[r#"
        aws_instance.web -uses-> data.aws_ami.ubuntu
        aws_instance.web -uses-> local.tags
        aws_instance.web -uses-> module.vpc
        aws_instance.web -uses-> var.cidr
        aws_subnet.main -uses-> var.cidr
        infra/main -uses-> aws_instance.web
        infra/main -uses-> local.name
        infra/main -uses-> var.region
        infra/modules/vpc/main -uses-> aws_subnet.main
        module.vpc -uses-> var.cidr
    "#]],
    );
}

#[test]
fn what_reads_a_variable() {
    check_queries(
        INFRA,
        "refs infra/variables.tf:5\nrefs infra/modules/vpc/main.tf:1\nrefs aws_instance.web",
        expect![[r#"
        > refs infra/variables.tf:5
          Uses aws_instance.web (infra/main.tf:14)
          Uses module.vpc (infra/main.tf:19)
        > refs infra/modules/vpc/main.tf:1
          Uses aws_subnet.main (infra/modules/vpc/main.tf:4)
        > refs aws_instance.web
          Uses infra/main (infra/main.tf:23)
    "#]],
    );
}
