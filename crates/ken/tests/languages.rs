//! Every language end to end, through the CLI: one repository holds a small
//! library and a caller in each language; for each, `ken symbols` finds the
//! library function by name, `ken outline` shows its file, and `ken graph
//! callers` finds the caller in the other file. A new language is one fixture
//! and one row of `CASES`.

mod support;

use expect_test::expect;
use support::{Repo, stdout};

const FIXTURE: &str = r#"
//- python/billing.py
class Invoice:
    def total(self):
        return sum(self.lines)


def invoice_total(invoice):
    return invoice.total()
//- python/app.py
from billing import invoice_total


def main(invoice):
    return invoice_total(invoice)
//- rust/src/lib.rs
pub mod parse;

pub fn run(text: &str) -> usize {
    parse::parse_header(text).len()
}
//- rust/src/parse.rs
pub struct Header {
    pub name: String,
}

impl Header {
    pub fn len(&self) -> usize {
        self.name.len()
    }
}

pub fn parse_header(text: &str) -> Header {
    Header { name: text.to_string() }
}
//- javascript/cart.js
export class Cart {
  constructor() { this.items = []; }
  add(item) { this.items.push(item); }
}

export function cartSize(cart) {
  return cart.items.length;
}
//- javascript/main.js
import { Cart, cartSize } from './cart.js';

export function checkout() {
  const cart = new Cart();
  return cartSize(cart);
}
//- typescript/queue.ts
export interface Job { id: string }

export class JobQueue {
  private jobs: Job[] = [];
  push(job: Job): void { this.jobs.push(job); }
}

export function drainQueue(queue: JobQueue): number {
  return 0;
}
//- typescript/worker.ts
import { JobQueue, drainQueue } from './queue';

export function work(): number {
  return drainQueue(new JobQueue());
}
//- tsx/Badge.tsx
export function badgeLabel(count: number): string {
  return count > 99 ? "99+" : String(count);
}

export function Badge(props: { count: number }) {
  return <span>{badgeLabel(props.count)}</span>;
}
//- tsx/Inbox.tsx
import { badgeLabel } from './Badge';

export function inboxTitle(unread: number): string {
  return "Inbox " + badgeLabel(unread);
}
//- go/go.mod
module example.com/app

go 1.22
//- go/geo/geo.go
package geo

type Point struct{ X, Y float64 }

func Distance(a, b Point) float64 {
	return a.X - b.X
}
//- go/cmd/main.go
package main

import "example.com/app/geo"

func main() {
	geo.Distance(geo.Point{}, geo.Point{})
}
//- java/src/com/acme/Ledger.java
package com.acme;

public class Ledger {
    public static long balanceOf(String account) {
        return 0L;
    }
}
//- java/src/com/acme/Report.java
package com.acme;

public class Report {
    public long render() {
        return Ledger.balanceOf("main");
    }
}
//- csharp/Mailer.cs
namespace Acme.Mail
{
    public class Mailer
    {
        public static bool SendWelcome(string to) { return true; }
    }
}
//- csharp/Signup.cs
namespace Acme.Mail
{
    public class Signup
    {
        public bool Register(string to) { return Mailer.SendWelcome(to); }
    }
}
//- c/ring.c
struct ring { int head; };

int ring_push(struct ring *r, int v) {
    r->head = v;
    return 0;
}
//- c/main.c
struct ring;
int ring_push(struct ring *r, int v);

int main(void) {
    return ring_push(0, 1);
}
//- cpp/matrix.cpp
namespace linalg {
class Matrix {
public:
    int rows() const { return 0; }
};

int trace_of(const Matrix &m) { return m.rows(); }
}
//- cpp/solver.cpp
#include "matrix.hpp"

namespace linalg {
int solve(const Matrix &m) { return trace_of(m); }
}
//- ruby/lib/tax.rb
module Tax
  def self.vat_for(amount)
    amount * 0.2
  end
end
//- ruby/lib/order.rb
require_relative "tax"

class Order
  def vat
    Tax.vat_for(100)
  end
end
//- php/src/Slug.php
<?php
namespace App\Text;

function make_slug(string $title): string {
    return strtolower($title);
}
//- php/src/Post.php
<?php
namespace App\Text;

class Post {
    public function slug(): string { return make_slug("Hello"); }
}
//- bash/lib/log.sh
log_line() {
  printf '%s\n' "$1"
}
//- bash/run.sh
#!/usr/bin/env bash
source lib/log.sh

deploy() {
  log_line "deploying"
}
//- swift/Sources/Geo/Temperature.swift
struct Temperature {
    let celsius: Double

    func fahrenheit() -> Double {
        return celsius * 9 / 5 + 32
    }
}

func toFahrenheit(_ celsius: Double) -> Double {
    return Temperature(celsius: celsius).fahrenheit()
}
//- swift/Sources/Geo/Forecast.swift
func forecastHigh() -> Double {
    return toFahrenheit(21.5)
}
//- elixir/lib/inventory.ex
defmodule Shop.Inventory do
  def restock(item, count) when count > 0 do
    {item, count}
  end
end
//- elixir/lib/orders.ex
defmodule Shop.Orders do
  alias Shop.Inventory

  def fulfil(item), do: Inventory.restock(item, 1)
end
//- haskell/src/Text/Slug.hs
module Text.Slug (slugify) where

import Data.Char (toLower)

-- | A URL-safe slug.
slugify :: String -> String
slugify = map toLower
//- haskell/src/Blog.hs
module Blog where

import Text.Slug (slugify)

postUrl :: String -> String
postUrl title = "/posts/" ++ slugify title
//- zig/src/crc.zig
pub fn checksum(bytes: []const u8) u32 {
    var sum: u32 = 0;
    for (bytes) |b| sum +%= b;
    return sum;
}
//- zig/src/main.zig
const crc = @import("crc.zig");

pub fn main() void {
    _ = crc.checksum("hello");
}
//- lua/app/units.lua
local M = {}

function M.to_metres(feet)
  return feet * 0.3048
end

return M
//- lua/app/main.lua
local units = require("app.units")

local function report()
  return units.to_metres(10)
end
//- kotlin/src/com/acme/pay/Fees.kt
package com.acme.pay

fun cardFee(amount: Long): Long = amount / 50
//- kotlin/src/com/acme/pay/Checkout.kt
package com.acme.pay

class Checkout {
    fun total(amount: Long): Long = amount + cardFee(amount)
}
//- scala/src/com/acme/stats/Mean.scala
package com.acme.stats

object Mean {
  def meanOf(xs: Seq[Double]): Double = xs.sum / xs.size
}
//- scala/src/com/acme/stats/Report.scala
package com.acme.stats

object Report {
  def summary(xs: Seq[Double]): String = Mean.meanOf(xs).toString
}
//- sql/billing.sql
CREATE TABLE invoices (
    id SERIAL PRIMARY KEY,
    amount NUMERIC(10, 2) NOT NULL
);

CREATE FUNCTION unpaid_total() RETURNS NUMERIC AS $$
    SELECT sum(amount) FROM invoices;
$$ LANGUAGE sql;
//- sql/report.sql
SELECT unpaid_total();
//- dart/lib/src/money.dart
int toCents(double amount) => (amount * 100).round();
//- dart/bin/pay.dart
import 'package:money/src/money.dart';

int charge(double amount) => toCents(amount) + 30;
//- r/R/stats.R
trimmed_mean <- function(x) {
  mean(x, trim = 0.1)
}
//- r/analysis.R
summarise <- function(xs) trimmed_mean(xs)
//- julia/src/Stats.jl
module Stats

export zscore

zscore(x, m, s) = (x - m) / s

end
//- julia/src/Report.jl
module Report

using ..Stats

summary(x) = zscore(x, 0.0, 1.0)

end
//- ocaml/lib/temp.ml
let to_kelvin c = c +. 273.15
//- ocaml/bin/main.ml
let () = print_float (Temp.to_kelvin 20.)
//- objc/Geo/Point.h
#import <Foundation/Foundation.h>

@interface Point2 : NSObject
- (double)distanceTo:(Point2 *)other;
@end
//- objc/Geo/Point.m
#import "Point.h"

@implementation Point2
- (double)distanceTo:(Point2 *)other {
    return 0;
}
@end
//- objc/App/measure.m
#import "Point.h"

double measure(Point2 *a, Point2 *b) {
    return [a distanceTo:b];
}
//- vue/src/components/Cart.vue
<template>
  <p>{{ total }}</p>
</template>

<script lang="ts">
export function cartTotal(prices: number[]): number {
  return prices.reduce((a, b) => a + b, 0)
}
</script>
//- vue/src/components/Checkout.vue
<script setup lang="ts">
import { cartTotal } from './Cart.vue'

function pay(prices: number[]): number {
  return cartTotal(prices)
}
</script>
//- svelte/src/Badge.svelte
<script context="module">
  export function badgeText(count) {
    return count > 9 ? '9+' : String(count)
  }
</script>

<span>{badgeText(3)}</span>
//- svelte/src/Inbox.svelte
<script>
  import { badgeText } from './Badge.svelte'

  function title(unread) {
    return 'Inbox ' + badgeText(unread)
  }
</script>
//- hcl/variables.tf
variable "bucket_name" {
  default = "logs"
}
//- hcl/main.tf
resource "aws_s3_bucket" "logs" {
  bucket = var.bucket_name
}
"#;

/// (language, a name to look up, the file to outline, the graph query): the
/// symbol found is the one whose callers (or, for what is read rather than
/// called, references) are asked for.
const CASES: &[(&str, &str, &str, &str)] = &[
    ("python", "invoice_total", "python/billing.py", "callers"),
    ("rust", "parse_header", "rust/src/parse.rs", "callers"),
    ("javascript", "cartSize", "javascript/cart.js", "callers"),
    ("typescript", "drainQueue", "typescript/queue.ts", "callers"),
    ("tsx", "badgeLabel", "tsx/Badge.tsx", "callers"),
    ("go", "Distance", "go/geo/geo.go", "callers"),
    ("java", "balanceOf", "java/src/com/acme/Ledger.java", "callers"),
    ("csharp", "SendWelcome", "csharp/Mailer.cs", "callers"),
    ("c", "ring_push", "c/ring.c", "callers"),
    ("cpp", "trace_of", "cpp/matrix.cpp", "callers"),
    ("ruby", "vat_for", "ruby/lib/tax.rb", "callers"),
    ("php", "make_slug", "php/src/Slug.php", "callers"),
    ("bash", "log_line", "bash/lib/log.sh", "callers"),
    ("swift", "toFahrenheit", "swift/Sources/Geo/Temperature.swift", "callers"),
    ("elixir", "restock", "elixir/lib/inventory.ex", "callers"),
    ("haskell", "slugify", "haskell/src/Text/Slug.hs", "callers"),
    ("zig", "checksum", "zig/src/crc.zig", "callers"),
    ("lua", "to_metres", "lua/app/units.lua", "callers"),
    ("kotlin", "cardFee", "kotlin/src/com/acme/pay/Fees.kt", "callers"),
    ("scala", "meanOf", "scala/src/com/acme/stats/Mean.scala", "callers"),
    ("sql", "unpaid_total", "sql/billing.sql", "callers"),
    ("hcl", "bucket_name", "hcl/variables.tf", "refs"),
    ("dart", "toCents", "dart/lib/src/money.dart", "callers"),
    ("r", "trimmed_mean", "r/R/stats.R", "callers"),
    ("julia", "zscore", "julia/src/Stats.jl", "callers"),
    ("ocaml", "to_kelvin", "ocaml/lib/temp.ml", "callers"),
    ("objc", "distanceTo", "objc/Geo/Point.m", "callers"),
    ("vue", "cartTotal", "vue/src/components/Cart.vue", "callers"),
    ("svelte", "badgeText", "svelte/src/Badge.svelte", "callers"),
];

/// What a command printed, or why it failed: one language's gap must not
/// hide the others'.
fn answer(repo: &Repo, args: &[&str]) -> String {
    let out = repo.ken(args);
    if out.status.success() {
        String::from_utf8_lossy(&out.stdout).into_owned()
    } else {
        format!("\nfailed: {}", String::from_utf8_lossy(&out.stderr).trim())
    }
}

#[test]
fn every_language_finds_outlines_and_links() {
    let repo = Repo::new(FIXTURE);
    stdout(&repo.ken(&["index", "-q"]));
    let mut out = String::new();
    for (language, name, file, query) in CASES {
        let found = support::json(&repo.ken(&["symbols", name, "--lang", language, "-k", "1", "--json"]));
        let symbol = &found[0];
        let qualified = symbol["qualified_name"].as_str().unwrap_or("(not found)");
        out += &format!("{language}: {} {qualified}\n", symbol["kind"].as_str().unwrap_or("-"));
        for line in answer(&repo, &["outline", file]).lines().skip(1) {
            out += &format!("  {line}\n");
        }
        // By place: a C prototype and its definition share a name.
        let place = format!("{}:{}", symbol["path"].as_str().unwrap_or("-"), symbol["start_line"]);
        for line in answer(&repo, &["graph", query, &place]).lines().skip(1) {
            out += &format!("  {}\n", line.trim());
        }
    }
    expect![[r#"
        python: function python.billing.invoice_total
            class       class Invoice  [1-3]
              method      def total(self)  [2-3]
            function    def invoice_total(invoice)  [6-7]
          CalledBy        python.app.main  python/app.py:5:12  [unique_name]
        rust: function rust::parse::parse_header
            struct      pub struct Header  [1-3]
              field       pub name: String  [2-2]
              method      pub fn len(&self) -> usize  [6-8]
            function    pub fn parse_header(text: &str) -> Header  [11-13]
          CalledBy        rust::run  rust/src/lib.rs:4:12
        javascript: function javascript/cart.cartSize
            class       export class Cart  [1-4]
              constructor constructor()  [2-2]
              method      add(item)  [3-3]
            function    export function cartSize(cart)  [6-8]
          CalledBy        javascript/main.checkout  javascript/main.js:5:10
        typescript: function typescript/queue.drainQueue
            interface   export interface Job  [1-1]
              field       id: string  [1-1]
            class       export class JobQueue  [3-6]
              field       private jobs: Job[] = []  [4-4]
              method      push(job: Job): void  [5-5]
            function    export function drainQueue(queue: JobQueue): number  [8-10]
          CalledBy        typescript/worker.work  typescript/worker.ts:4:10
        tsx: function tsx/Badge.badgeLabel
            function    export function badgeLabel(count: number): string  [1-3]
            function    export function Badge(props  [5-7]
          CalledBy        tsx/Badge.Badge  tsx/Badge.tsx:6:17
          CalledBy        tsx/Inbox.inboxTitle  tsx/Inbox.tsx:4:21
        go: function go/geo.Distance
            struct      type Point struct  [3-3]
              field       X  [3-3]
              field       Y  [3-3]
            function    func Distance(a, b Point) float64  [5-7]
          CalledBy        go/cmd.main  go/cmd/main.go:6:6
        java: method com.acme.Ledger.balanceOf
            class       public class Ledger  [3-7]
              method      public static long balanceOf(String account)  [4-6]
          CalledBy        com.acme.Report.render  java/src/com/acme/Report.java:5:23
        csharp: method Acme.Mail.Mailer.SendWelcome
            class       public class Mailer  [3-6]
              method      public static bool SendWelcome(string to)  [5-5]
          CalledBy        Acme.Mail.Signup.Register  csharp/Signup.cs:5:57  [unique_name]
        c: function ring_push
            struct      struct ring  [1-1]
              field       int head  [1-1]
            function    int ring_push(struct ring *r, int v)  [3-6]
          CalledBy        main  c/main.c:5:12
        cpp: function linalg::trace_of
            class       class Matrix  [2-5]
              method      int rows() const  [4-4]
            function    int trace_of(const Matrix &m)  [7-7]
          CalledBy        linalg::solve  cpp/solver.cpp:4:37  [unique_name]
        ruby: method Tax.vat_for
            module      module Tax  [1-5]
              method      def self.vat_for(amount)  [2-4]
          CalledBy        Order.vat  ruby/lib/order.rb:5:9  [unique_name]
        php: function App\Text\make_slug
            function    function make_slug(string $title): string  [4-6]
          CalledBy        App\Text\Post\slug  php/src/Post.php:5:45
        bash: function log_line
            function    log_line()  [1-3]
          CalledBy        deploy  bash/run.sh:5:3  [unique_name]
        swift: function toFahrenheit
            struct      struct Temperature  [1-7]
              field       let celsius: Double  [2-2]
              method      func fahrenheit() -> Double  [4-6]
            function    func toFahrenheit(_ celsius: Double) -> Double  [9-11]
          CalledBy        forecastHigh  swift/Sources/Geo/Forecast.swift:2:12  [unique_name]
        elixir: function Shop.Inventory.restock
            module      defmodule Shop.Inventory do  [1-5]
              function    def restock(item, count) when count > 0 do  [2-4]
          CalledBy        Shop.Orders.fulfil  elixir/lib/orders.ex:4:35
        haskell: function Text.Slug.slugify
            function    slugify = map toLower  [6-7]
          CalledBy        Blog.postUrl  haskell/src/Blog.hs:6:30
        zig: function checksum
            function    pub fn checksum(bytes: []const u8) u32  [1-5]
          CalledBy        main  zig/src/main.zig:4:13
        lua: function M.to_metres
            module      local M = {}  [1-1]
            function    function M.to_metres(feet)  [3-5]
          CalledBy        report  lua/app/main.lua:4:16
        kotlin: function com.acme.pay.cardFee
            function    fun cardFee(amount: Long): Long = amount / 50  [3-3]
          CalledBy        com.acme.pay.Checkout.total  kotlin/src/com/acme/pay/Checkout.kt:4:46
        scala: method com.acme.stats.Mean.meanOf
            class       object Mean  [3-5]
              method      def meanOf(xs: Seq[Double]): Double  [4-4]
          CalledBy        com.acme.stats.Report.summary  scala/src/com/acme/stats/Report.scala:4:47
        sql: function unpaid_total
            struct      CREATE TABLE invoices (  [1-4]
              field       id SERIAL PRIMARY KEY  [2-2]
              field       amount NUMERIC(10, 2) NOT NULL  [3-3]
            function    CREATE FUNCTION unpaid_total() RETURNS NUMERIC AS $$  [6-8]
          CalledBy        sql/report  sql/report.sql:1:8  [unique_name]
        hcl: field var.bucket_name
            field       variable "bucket_name"  [1-3]
          Uses            aws_s3_bucket.logs  hcl/main.tf:2:16
        dart: function toCents
            function    int toCents(double amount)  [1-1]
          CalledBy        charge  dart/bin/pay.dart:3:30
        r: function trimmed_mean
            function    trimmed_mean <- function(x)  [1-3]
          CalledBy        summarise  r/analysis.R:1:27  [unique_name]
        julia: function Stats.zscore
            module      module Stats  [1-7]
              function    zscore(x, m, s) = (x - m) / s  [5-5]
          CalledBy        Report.summary  julia/src/Report.jl:5:14
        ocaml: function Temp.to_kelvin
            function    let to_kelvin c = c +. 273.15  [1-1]
          CalledBy        Main  ocaml/bin/main.ml:1:28
        objc: method Point2.distanceTo
            method      - (double)distanceTo:(Point2 *)other  [4-6]
          CalledBy        measure  objc/App/measure.m:4:15  [type_inferred]
        vue: function vue/src/components/Cart.cartTotal
            function    export function cartTotal(prices: number[]): number  [6-8]
          CalledBy        vue/src/components/Checkout.pay  vue/src/components/Checkout.vue:5:10
        svelte: function svelte/src/Badge.badgeText
            function    export function badgeText(count)  [2-4]
          CalledBy        svelte/src/Inbox.title  svelte/src/Inbox.svelte:5:23
    "#]]
    .assert_eq(&out);
}

/// Kotlin and Swift as a registry ships them: expo-modules-core from npm
/// carries its Android (Kotlin) and iOS (Swift) sources.
#[test]
fn kotlin_and_swift_from_npm() {
    let corpus = support::npm_corpus("expo-modules-core", "1.12.26");
    let index_dir = tempfile::tempdir().unwrap();
    let idx = index_dir.path().to_str().unwrap();
    let run = |args: &[&str]| -> String {
        let mut all = vec!["--index-dir", idx];
        all.extend_from_slice(args);
        let out = support::ken_in(&corpus, &all);
        assert!(out.status.success(), "ken {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let summary: serde_json::Value = serde_json::from_str(&run(&["index", ".", "--no-embed", "--json"])).unwrap();
    let by_language = &summary["files_by_language"];
    let mut out = format!("kotlin files {}, swift files {}\n", by_language["kotlin"], by_language["swift"]);
    let head = |text: String, n: usize| text.lines().take(n).map(|l| format!("  {l}\n")).collect::<String>();
    out += &head(run(&["symbols", "Module", "--lang", "kotlin", "--kind", "class", "-k", "1"]), 2);
    out += &head(run(&["graph", "subclasses", "expo.modules.kotlin.modules.Module"]), 3);
    out += &head(run(&["symbols", "ExpoAppDelegateSubscriberProtocol", "--lang", "swift", "-k", "1"]), 2);
    expect![[r#"
        kotlin files 170, swift files 144
          android/src/main/java/expo/modules/kotlin/modules/Module.kt:13:1  class       expo.modules.kotlin.modules.Module
              abstract class Module : AppContextProvider
          expo.modules.kotlin.modules.Module (class, android/src/main/java/expo/modules/kotlin/modules/Module.kt:13)
            BaseClassOf     expo.modules.kotlin.defaultmodules.CoreModule  android/src/main/java/expo/modules/kotlin/defaultmodules/CoreModule.kt:14:20
            BaseClassOf     expo.modules.kotlin.defaultmodules.ErrorManagerModule  android/src/main/java/expo/modules/kotlin/defaultmodules/ErrorManagerModule.kt:11:28
          ios/AppDelegates/ExpoAppDelegateSubscriber.swift:25:1  interface   ExpoAppDelegateSubscriberProtocol
              @objc(EXAppDelegateSubscriberProtocol) public protocol ExpoAppDelegateSubscriberProtocol: UIApplicationDelegate
    "#]].assert_eq(&out);
}
