//! `ken impact` end to end: a git repository is indexed, edited, and the
//! change's atomic labels and impacted blocks are read from the CLI (the
//! working tree, the staged files, named files against the index), then
//! from HTTP and MCP with both versions in the request.

mod support;

use expect_test::{Expect, expect};
use serde_json::{Value, json};
use std::process::Command;
use support::{McpSession, Repo, Server, json as parse_json};

const SHOP: &str = r#"
//- shop/cart.py
from shop.prices import price_of


class Cart:
    def __init__(self):
        self.items = []

    def total(self, tax):
        return sum(price_of(i) for i in self.items) * (1 + tax)

    def add(self, item):
        self.items.append(item)


class GiftCart(Cart):
    def total(self, tax):
        return 0
//- shop/prices.py
def price_of(item):
    return item.price


def legacy_price(item):
    return item.cost
//- shop/checkout.py
from shop.cart import Cart
from shop.prices import legacy_price


def checkout(items):
    cart = Cart()
    if not items:
        return cart.total(0)
    for i in items:
        cart.add(i)
    return cart.total(0.2)


def receipt(items):
    return f"total: {checkout(items)}"


def refund(item):
    return -legacy_price(item)
"#;

fn git(repo: &Repo, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.email=ken@example.com", "-c", "user.name=ken", "-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(repo.path())
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// The fixture as a committed, indexed repository.
fn committed(fixture: &str) -> Repo {
    let repo = Repo::new(fixture);
    repo.write(".gitignore", ".kenning/\ntarget/\n");
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "fixture"]);
    assert!(repo.ken(&["index", "-q"]).status.success());
    repo
}

fn shop() -> Repo {
    committed(SHOP)
}

fn edit(repo: &Repo, path: &str, from: &str, to: &str) {
    let text = std::fs::read_to_string(repo.path().join(path)).unwrap();
    assert!(text.contains(from), "{path} lacks {from:?}");
    repo.write(path, text.replace(from, to));
}

/// One line per change, then one per impacted block with its rules.
fn render(response: &Value) -> String {
    let mut lines = Vec::new();
    for c in response["changes"].as_array().unwrap() {
        lines.push(format!("{} {} {}", c["path"].as_str().unwrap(), c["label"].as_str().unwrap(), c["symbol"].as_str().unwrap()));
    }
    for b in response["impacted"].as_array().unwrap() {
        let reasons: Vec<String> = b["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                // A call's site spans its arguments: `line-end`.
                let lines: Vec<String> = r["sites"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| {
                        if s["end_line"] == s["start_line"] {
                            s["line"].to_string()
                        } else {
                            format!("{}-{}", s["start_line"], s["end_line"])
                        }
                    })
                    .collect();
                format!("{} of {}@{}", r["rule"].as_str().unwrap(), r["label"].as_str().unwrap(), lines.join(","))
            })
            .collect();
        lines.push(format!("  -> {} [{}]", b["symbol"]["qualified_name"].as_str().unwrap(), reasons.join("; ")));
    }
    lines.join("\n") + "\n"
}

fn check(repo: &Repo, args: &[&str], expect: Expect) {
    let mut full = vec!["impact", "--json"];
    full.extend_from_slice(args);
    let out = repo.ken(&full);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    expect.assert_eq(&render(&parse_json(&out)));
}

#[test]
fn changes_in_the_working_tree_reach_callers_overrides_and_importers() {
    let repo = shop();
    // A signature: callers, and the override below it.
    edit(&repo, "shop/cart.py", "def total(self, tax):\n        return sum", "def total(self, tax, discount=0):\n        return sum");
    // A body that changes a field: callers of add.
    edit(&repo, "shop/cart.py", "self.items.append(item)", "self.items.append(item)\n        self.count = len(self.items)");
    // A deleted function: its callers and its import.
    edit(&repo, "shop/prices.py", "\n\ndef legacy_price(item):\n    return item.cost\n", "\n");
    check(
        &repo,
        &[],
        expect![[r#"
            shop/cart.py MMS shop.cart.Cart.total
            shop/cart.py MMB shop.cart.Cart.add
            shop/prices.py DM shop.prices.legacy_price
              -> shop.cart.GiftCart.total [Rel(D, M, OverriddenBy) of MMS@16]
              -> shop.checkout [Rel(D, M, ImportedBy) of DM@2]
              -> shop.checkout.checkout [Rel(D, M, CalledBy) of MMS@8,11; Rel(D, M, CalledBy) of MMB@10]
              -> shop.checkout.refund [Rel(D, M, CalledBy) of DM@19]
        "#]],
    );
    // Two steps: the callers' callers too.
    check(
        &repo,
        &["--depth", "2", "shop/cart.py"],
        expect![[r#"
            shop/cart.py MMS shop.cart.Cart.total
            shop/cart.py MMB shop.cart.Cart.add
              -> shop.cart.GiftCart.total [Rel(D, M, OverriddenBy) of MMS@16]
              -> shop.checkout.checkout [Rel(D, M, CalledBy) of MMS@8,11; Rel(D, M, CalledBy) of MMB@10]
              -> shop.checkout.receipt [Rel(D, M, CalledBy) of MMS@15; Rel(D, M, CalledBy) of MMB@15]
        "#]],
    );
}

#[test]
fn staged_files_and_files_against_the_index() {
    let repo = shop();
    edit(&repo, "shop/checkout.py", "from shop.prices import legacy_price", "from shop.legacy import legacy_price");
    git(&repo, &["add", "shop/checkout.py"]);
    edit(&repo, "shop/prices.py", "return item.price", "return item.price * 2");
    check(
        &repo,
        &["--staged"],
        expect![[r#"
            shop/checkout.py MI legacy_price
              -> shop.checkout.refund [Rel(D, I, ImportedBy) of MI@19]
        "#]],
    );
    // Outside git, named files are compared with their indexed version.
    std::fs::remove_dir_all(repo.path().join(".git")).unwrap();
    check(
        &repo,
        &["shop/prices.py"],
        expect![[r#"
            shop/prices.py MMB shop.prices.price_of
              -> shop.cart.Cart.total [Rel(D, M, CalledBy) of MMB@9]
        "#]],
    );
    let no_git = repo.ken(&["impact"]);
    assert!(!no_git.status.success());
    assert!(String::from_utf8_lossy(&no_git.stderr).contains("not in a git work tree"), "{no_git:?}");
}

#[test]
fn agents_send_both_versions_over_http_and_mcp() {
    let repo = shop();
    let before = std::fs::read_to_string(repo.path().join("shop/prices.py")).unwrap();
    let after = before.replace("def price_of(item):", "def price_of(item, currency):");
    let request = json!({"files": [{"path": "shop/prices.py", "before": before, "after": after}]});

    let server = Server::start(&repo, &[]);
    let (status, over_http) = server.post("/api/v1/impact", &request.to_string());
    assert_eq!(status, 200, "{over_http}");
    expect![[r#"
        shop/prices.py MMS shop.prices.price_of
          -> shop.cart.Cart.total [Rel(D, M, CalledBy) of MMS@9]
    "#]]
    .assert_eq(&render(&over_http));

    let mut mcp = McpSession::start(repo.path(), false);
    let over_mcp = mcp.answer("impact", request);
    assert_eq!(render(&over_mcp), render(&over_http));
    let bad = mcp.call("impact", json!({"rev": "--output=/tmp/x"}));
    assert_eq!(bad["error"]["data"]["field"], "rev", "{bad}");
}

/// `ken plan`: seeds named with the kind of change they will get, or the
/// edits already made, and the obligations derived from them; a two-step
/// obligation hangs from the block it was reached through.
#[test]
fn the_plan_graph_from_seeds_and_from_edits() {
    let repo = shop();
    let plan = |args: &[&str]| {
        let out = repo.ken(args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    expect![[r#"
        n1  [pending] (seed)  shop/cart.py:8-9  method shop.cart.Cart.total
               add a discount to the total
        n2  [pending]  shop/cart.py:16-17  method shop.cart.GiftCart.total
               Update for the change to shop.cart.Cart.total (signature of method modified, MMS): this block is its override
        n3  [pending]  shop/checkout.py:5-11  function shop.checkout.checkout
               Update for the change to shop.cart.Cart.total (signature of method modified, MMS): this block is its caller
          n1 -> n2  MMS Rel(D, M, OverriddenBy)
          n1 -> n3  MMS Rel(D, M, CalledBy)
    "#]]
    .assert_eq(&plan(&["plan", "add a discount to the total", "--seed", "Cart.total", "--assume", "MMS"]));
    expect![[r#"
        digraph plan {
          rankdir=LR;
          node [shape=box, fontname="monospace"];
          n1 [label="shop.prices.price_of\nshop/prices.py:1\nadd a discount", style=bold];
          n2 [label="shop.cart.Cart.total\nshop/cart.py:8\nUpdate for the change to shop.prices.price_of (signature of method modified, MMS): this block is its caller", style=bold];
          n1 -> n2 [label="MMS Rel(D, M, CalledBy)"];
        }
    "#]]
    .assert_eq(&plan(&["plan", "add a discount", "--seed", "shop/prices.py:1", "--assume", "MMS", "--format", "dot"]));

    edit(&repo, "shop/cart.py", "def total(self, tax):\n        return sum", "def total(self, tax, discount=0):\n        return sum");
    let graph: Value = serde_json::from_str(&plan(&["plan", "add a discount", "--seed-diff", "--depth", "2", "--format", "json"])).unwrap();
    let lines: Vec<String> = graph["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            format!("{} {} {}", n["id"].as_str().unwrap(), n["status"].as_str().unwrap(), n["block"]["qualified_name"].as_str().unwrap())
        })
        .chain(
            graph["edges"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| format!("{} -> {} {}", e["from"].as_str().unwrap(), e["to"].as_str().unwrap(), e["rule"].as_str().unwrap())),
        )
        .collect();
    expect![[r#"
        n1 completed shop.cart.Cart.total
        n2 pending shop.cart.GiftCart.total
        n3 pending shop.checkout.checkout
        n4 pending shop.checkout.receipt
        n1 -> n2 Rel(D, M, OverriddenBy)
        n1 -> n3 Rel(D, M, CalledBy)
        n3 -> n4 Rel(D, M, CalledBy)
    "#]]
    .assert_eq(&(lines.join("\n") + "\n"));

    let bad = repo.ken(&["plan", "x", "--seed", "Cart.total", "--assume", "XYZ"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("must be a change label"), "{bad:?}");
}

/// A field added to a Rust struct reaches the places that write the struct
/// out (it has no constructor to reach), and a changed signature its callers
/// in other modules.
/// Beyond Table 1, as the type checkers see it: a deleted function breaks
/// its imports, a deleted method its reads as a value (`[self.stop]`),
/// and a constructor's change reaches `super().__init__(…)`, the calls of a
/// field that holds its class (`self.base_class(…)`) and the instantiations
/// of a subclass that inherits it (`Leaf("leaf")`), not the subclasses
/// themselves.
#[test]
fn deletions_reach_imports_and_constructors_reach_held_classes() {
    let repo = committed(
        r#"//- app/hooks.py
def on_start(app):
    return app


class Base:
    def __init__(self, name):
        self.name = name


class Child(Base):
    def __init__(self):
        super().__init__("child")


class Leaf(Base):
    pass


def make_leaf():
    return Leaf("leaf")

//- app/app.py
from .hooks import Base, on_start


class App:
    base_class = Base

    def __init__(self):
        self.callbacks = [self.stop]
        on_start(self)
        self.base = self.base_class("app")

    def stop(self):
        return None
"#,
    );
    edit(&repo, "app/hooks.py", "def on_start(app):\n    return app\n", "");
    edit(&repo, "app/app.py", "\n    def stop(self):\n        return None\n", "");
    edit(&repo, "app/hooks.py", "def __init__(self, name):", "def __init__(self, name, size):");
    check(
        &repo,
        &[],
        expect![[r#"
            app/app.py DM app.app.App.stop
            app/hooks.py DM app.hooks.on_start
            app/hooks.py MCC app.hooks.Base.__init__
              -> app.app [Rel(D, M, ImportedBy) of DM@1]
              -> app.app.App.__init__ [Rel(D, M, UsedBy) of DM@8; Rel(D, M, CalledBy) of DM@9; Rel(D, C, InstantiatedBy) of MCC@10; Rel(D, M, CalledBy) of MCC@10]
              -> app.hooks.Child.__init__ [Rel(D, M, CalledBy) of MCC@12]
              -> app.hooks.make_leaf [Rel(D, C, InstantiatedBy) of MCC@20]
        "#]],
    );
}

/// A method added to a class reaches the class's family only where a
/// member of its name meets it: an override of the base's, not a helper
/// (or a rename's new name) that nothing else refers to.
#[test]
fn added_methods_reach_the_class_family_where_names_meet() {
    let repo = committed(
        r#"//- app/shapes.py
class Shape:
    def area(self):
        return 0

    def label(self):
        return "shape"


class Square(Shape):
    def area(self):
        return 4
"#,
    );
    edit(
        &repo,
        "app/shapes.py",
        "        return 0
",
        "        return 0

    def perimeter(self):
        return 0
",
    );
    edit(
        &repo,
        "app/shapes.py",
        "        return 4
",
        "        return 4

    def label(self):
        return \"square\"
",
    );
    check(
        &repo,
        &[],
        expect![[r#"
            app/shapes.py AM app.shapes.Shape.perimeter
            app/shapes.py AM app.shapes.Square.label
              -> app.shapes.Shape [Rel(D, C, DerivedClassOf) of AM@9]
        "#]],
    );
}

/// A TypeScript function's implementation deleted: its overload
/// signatures are left without one (`tsc` flags each), beside its callers.
#[test]
fn deleted_implementations_reach_their_overloads() {
    let repo = committed(
        "//- src/from.ts\nexport function from(input: string): number;\nexport function from(input: number, scale: number): number;\n\
         export function from(input: any, scale?: number): number {\n  return 1;\n}\n\
         //- src/use.ts\nimport { from } from './from';\nexport function useIt() {\n  return from('x');\n}\n",
    );
    edit(&repo, "src/from.ts", "export function from(input: any, scale?: number): number {\n  return 1;\n}\n", "");
    check(
        &repo,
        &[],
        expect![[r#"
            src/from.ts DM src/from.from
              -> src/from.from [Rel(D, M, Overloads) of DM@1]
              -> src/from.from [Rel(D, M, Overloads) of DM@2]
              -> src/use [Rel(D, M, ImportedBy) of DM@1]
              -> src/use.useIt [Rel(D, M, CalledBy) of DM@3]
        "#]],
    );
}

/// A property's accessor given a parameter breaks the property itself
/// (pyright and tsc flag its `@property` or `get` line), and a getter's
/// setter is no overload of it.
#[test]
fn signature_changes_reach_property_accessors_themselves() {
    let repo = committed(
        "//- shop/box.py\nclass Box:\n    @property\n    def size(self) -> int:\n        return 1\n\n    @size.setter\n    def size(self, value):\n        pass\n\n    @staticmethod\n    def empty():\n        return Box()\n\
         //- src/box.ts\nexport class Box {\n  private v = 1;\n  get size(): number {\n    return this.v;\n  }\n  set size(v: number) {\n    this.v = v;\n  }\n}\n",
    );
    edit(&repo, "shop/box.py", "def size(self) -> int:", "def size(self, unit) -> int:");
    edit(&repo, "shop/box.py", "def empty():", "def empty(unit):");
    edit(&repo, "src/box.ts", "get size(): number", "get size(unit: string): number");
    check(
        &repo,
        &[],
        expect![[r#"
            shop/box.py MMS shop.box.Box.size
            shop/box.py MMS shop.box.Box.empty
            src/box.ts MMS src/box.Box.size
              -> shop.box.Box.size [Rel(D, M, Accessor) of MMS@2]
              -> src/box.Box.size [Rel(D, M, Accessor) of MMS@3]
        "#]],
    );
}

/// A definition read by its bare name, not called, is used there: a
/// rename or deletion reaches a default value, an object literal's value,
/// a class body's alias and its `del`.
#[test]
fn deletions_reach_definitions_used_as_values() {
    let repo = committed(
        "//- src/errors.ts\nexport function defaultHandler(err: any): void {\n  throw err;\n}\n\
         export const OBSERVER = { next: () => {}, error: defaultHandler };\n\
         export function onError(handler: (e: any) => void = defaultHandler) {\n  return handler;\n}\n\
         //- shop/session.py\nclass NullSession:\n    def _fail(self, *args):\n        raise RuntimeError()\n\n    clear = pop = _fail\n    del _fail\n",
    );
    edit(&repo, "src/errors.ts", "export function defaultHandler(err: any): void {\n  throw err;\n}\n", "");
    edit(&repo, "shop/session.py", "    def _fail(self, *args):\n        raise RuntimeError()\n", "");
    check(
        &repo,
        &[],
        expect![[r#"
            shop/session.py DM shop.session.NullSession._fail
            src/errors.ts DM src/errors.defaultHandler
              -> shop.session.NullSession [Rel(D, M, UsedBy) of DM@5,6]
              -> src/errors [Rel(D, M, UsedBy) of DM@4]
              -> src/errors.onError [Rel(D, M, UsedBy) of DM@5]
        "#]],
    );
}

/// A TypeScript constructor's new parameter reaches the subclasses'
/// `super(…)` calls, and `new` of a subclass that inherits it.
#[test]
fn constructor_changes_reach_super_calls() {
    let repo = committed(
        "//- src/subject.ts\nexport class Subject {\n  constructor(public size: number) {}\n}\n\
         export class Behavior extends Subject {\n  constructor(private first: string) {\n    super(1);\n  }\n}\n\
         export class Plain extends Subject {}\nexport const plain = new Plain(2);\n",
    );
    edit(&repo, "src/subject.ts", "constructor(public size: number)", "constructor(public size: number, scale: number)");
    check(
        &repo,
        &[],
        expect![[r#"
            src/subject.ts MCC src/subject.Subject.constructor
              -> src/subject.Behavior.constructor [Rel(D, M, CalledBy) of MCC@6]
              -> src/subject [Rel(D, C, InstantiatedBy) of MCC@10]
        "#]],
    );
}

/// Rust: a trait item deleted leaves its `impl Trait for Type` short; a
/// recursive function's call of itself changes with its signature; and a
/// struct literal calls no `new`, so `new`'s new parameter reaches its
/// calls only.
#[test]
fn rust_trait_items_recursion_and_constructors() {
    let repo = committed(
        "//- src/lib.rs\npub struct Id {\n    n: u32,\n}\n\nimpl Id {\n    pub fn new(n: u32) -> Self {\n        Id { n }\n    }\n}\n\n\
         impl Clone for Id {\n    fn clone(&self) -> Self {\n        Id::new(self.n)\n    }\n}\n\n\
         pub fn depth(n: u32) -> u32 {\n    if n == 0 { 0 } else { depth(n - 1) + 1 }\n}\n\npub fn zero() -> Id {\n    Id { n: 0 }\n}\n",
    );
    edit(&repo, "src/lib.rs", "    fn clone(&self) -> Self {\n        Id::new(self.n)\n    }\n", "");
    edit(&repo, "src/lib.rs", "pub fn new(n: u32)", "pub fn new(n: u32, m: u32)");
    edit(&repo, "src/lib.rs", "pub fn depth(n: u32)", "pub fn depth(n: u32, k: u32)");
    check(
        &repo,
        &[],
        expect![[r#"
            src/lib.rs MCC crate::Id::new
            src/lib.rs DM crate::Id::clone
            src/lib.rs MMS crate::depth
              -> crate::Id [Rel(D, M, Implements) of DM@11]
              -> crate::depth [Rel(D, M, CalledBy) of MMS@18]
        "#]],
    );
}

/// A Python instance attribute (the `self.x = …` of `__init__`) renamed
/// is a deleted field and an added one: its reads reach as `UsedBy`, by
/// name, but not the constructor that was edited, nor callers of it.
#[test]
fn renamed_instance_attributes_reach_their_reads() {
    let repo = committed(
        "//- shop/response.py\nclass Response:\n    def __init__(self):\n        self.status_code = None\n        self.reason = ''\n\n    def ok(self):\n        return self.status_code == 200\n\n\
         def make():\n    return Response()\n\
         //- shop/client.py\nfrom shop.response import Response\n\n\ndef check(r: Response):\n    return r.status_code, r.reason\n",
    );
    edit(&repo, "shop/response.py", "self.status_code = None", "self.status = None");
    check(
        &repo,
        &[],
        expect![[r#"
            shop/response.py MMB shop.response.Response.__init__
            shop/response.py AF shop.response.Response.status
            shop/response.py DF shop.response.Response.status_code
              -> shop.client.check [Rel(D, F, UsedBy) of DF@5]
              -> shop.response.Response.ok [Rel(D, F, UsedBy) of DF@7]
        "#]],
    );
}

/// A class that loses its base class: what it and its subclasses used of
/// the base's members must change (`Rel(D, C, Inherits)`), beside Table 1's
/// class family; what the class defines itself is no loss.
#[test]
fn a_lost_base_class_reaches_the_inherited_uses() {
    let repo = committed(
        "//- net/adapters.py\nclass Base:\n    def send(self, x):\n        return x\n\n    def close(self):\n        pass\n\n\n\
         class Adapter(Base):\n    def close(self):\n        return self.send(1)\n\n\n\
         class Retry(Adapter):\n    def again(self):\n        self.close()\n        return self.send(2)\n",
    );
    edit(&repo, "net/adapters.py", "class Adapter(Base):", "class Adapter:");
    check(
        &repo,
        &[],
        expect![[r#"
            net/adapters.py MC net.adapters.Adapter
              -> net.adapters.Adapter.close [Rel(D, C, Inherits) of MC@11]
              -> net.adapters.Retry [Rel(D, C, BaseClassOf) of MC@14]
              -> net.adapters.Retry.again [Rel(D, C, Inherits) of MC@17]
        "#]],
    );
}

/// TypeScript: a lost base reaches the class's `super(…)` and `super.m()`
/// (even where the class has an `m`), and the inherited members read
/// through receivers declared as the class elsewhere: a parameter, a
/// parameter property (`this.scheduler`). A receiver declared as the base
/// is no loss.
#[test]
fn a_lost_base_class_reaches_super_and_typed_receivers() {
    let repo = committed(
        "//- src/base.ts\nexport class Scheduler {\n  actions: number[] = [];\n  constructor(public now: () => number) {}\n  flush(): void {}\n}\n\
         //- src/async.ts\nimport { Scheduler } from './base';\nexport class AsyncScheduler extends Scheduler {\n  constructor() {\n    super(() => 0);\n  }\n  flush(): void {\n    super.flush();\n  }\n}\n\
         //- src/action.ts\nimport { AsyncScheduler } from './async';\nimport { Scheduler } from './base';\n\
         export class Action {\n  constructor(protected scheduler: AsyncScheduler) {}\n  run(s: AsyncScheduler, b: Scheduler) {\n    s.actions.push(1);\n    b.actions.push(2);\n    return this.scheduler.actions;\n  }\n}\n",
    );
    edit(&repo, "src/async.ts", "export class AsyncScheduler extends Scheduler {", "export class AsyncScheduler {");
    check(
        &repo,
        &[],
        expect![[r#"
        src/async.ts MC src/async.AsyncScheduler
          -> src/action.Action.run [Rel(D, C, Inherits) of MC@6,8]
          -> src/async.AsyncScheduler.constructor [Rel(D, C, Inherits) of MC@4]
          -> src/async.AsyncScheduler.flush [Rel(D, C, Inherits) of MC@7]
    "#]],
    );
}

/// Python: a lost base's instance attributes (`self.config` of its
/// `__init__`) reach their reads through `self` and through a parameter
/// declared as the class; a base outside the repository (`click.Group`)
/// reaches what the class reads through `self` and defines nowhere, and its
/// `super()` calls (`super().__init__()` without arguments still works on
/// `object`); the class passed as a value, caught or raised is read as the
/// base (a value passed to a call on several lines reaches from the call);
/// and a call spans its arguments, where a checker flags the one that no
/// longer fits.
#[test]
fn a_lost_base_class_reaches_attributes_values_and_outside_members() {
    let repo = committed(
        "//- app/base.py\nclass Base:\n    def __init__(self, name):\n        self.config = {}\n        self.name = name\n\n\nclass Failure(Exception):\n    pass\n\n\n\
         class Timeout(Failure):\n    pass\n\
         //- app/main.py\nimport warnings\n\nimport click\n\nfrom app.base import Base, Timeout\n\n\n\
         class App(Base):\n    def __init__(self):\n        super().__init__(\n            \"app\",\n        )\n        self.name = \"app\"\n\n    def setting(self):\n        return self.config[\"X\"], self.name\n\n\n\
         class Group(click.Group):\n    def __init__(self, **extra):\n        super().__init__(**extra)\n        self.add_command(None)\n        self.setup()\n\n    def setup(self):\n        pass\n\n\n\
         class Plain:\n    def __init__(self):\n        super().__init__()\n\n\n\
         def configured(app: App):\n    warnings.warn(\"slow\", Timeout)\n    return app.config\n\n\n\
         def guarded():\n    try:\n        pass\n    except (Timeout, OSError):\n        raise Timeout\n\n\n\
         def noisy():\n    warnings.warn(\n        \"slow\",\n        Timeout,\n    )\n",
    );
    edit(&repo, "app/main.py", "class App(Base):", "class App:");
    edit(&repo, "app/main.py", "class Group(click.Group):", "class Group:");
    edit(&repo, "app/base.py", "class Timeout(Failure):", "class Timeout:");
    check(
        &repo,
        &[],
        expect![[r#"
            app/base.py MC app.base.Timeout
            app/main.py MC app.main.App
            app/main.py MC app.main.Group
              -> app.main.App.__init__ [Rel(D, C, Inherits) of MC@10-12]
              -> app.main.App.setting [Rel(D, C, Inherits) of MC@16]
              -> app.main.Group.__init__ [Rel(D, C, Inherits) of MC@21,22]
              -> app.main.configured [Rel(D, C, Inherits) of MC@35; Rel(D, C, Inherits) of MC@36]
              -> app.main.guarded [Rel(D, C, Inherits) of MC@42,43]
              -> app.main.noisy [Rel(D, C, Inherits) of MC@47-49]
        "#]],
    );
}

/// An object of a class that lost its base no longer fits where the base
/// was expected, and the checker flags where it lands: a parameter's
/// default (`= asyncScheduler`), an argument whose parameter is declared as
/// another type (`new Cold(s)`), a value returned as another type, a
/// destructured inherited member. Its instantiations with arguments lost
/// the inherited constructor (`Failure("bad", 1)` once it is no `Exception`).
/// A slot declared as the class itself takes it still (`keep(s)`), and so
/// does an attribute declared with no type (`self.raw`).
#[test]
fn a_lost_base_class_reaches_objects_landing_where_the_base_was_expected() {
    let repo = committed(
        "//- src/base.ts\nexport interface SchedulerLike {\n  now(): number;\n}\nexport class Scheduler implements SchedulerLike {\n  actions: number[] = [];\n  constructor(public clock: () => number) {}\n  now(): number {\n    return this.clock();\n  }\n}\n\
         //- src/async.ts\nimport { Scheduler } from './base';\nexport class AsyncScheduler extends Scheduler {\n  flush(): void {\n    const { actions } = this;\n    actions.pop();\n  }\n}\nexport const asyncScheduler = new AsyncScheduler(() => 0);\n\
         //- src/use.ts\nimport { SchedulerLike } from './base';\nimport { AsyncScheduler, asyncScheduler } from './async';\n\
         export function interval(period: number, scheduler: SchedulerLike = asyncScheduler): number {\n  return period;\n}\n\
         export class Cold {\n  constructor(public scheduler: SchedulerLike) {}\n}\n\
         export function build(s: AsyncScheduler): Cold {\n  keep(s);\n  return new Cold(s);\n}\n\
         function keep(s: AsyncScheduler): AsyncScheduler {\n  return s;\n}\n\
         //- app/decoders.py\nclass ContentDecoder:\n    def decode(self, data: bytes) -> bytes:\n        return data\n\n\n\
         class MultiDecoder(ContentDecoder):\n    def __init__(self, children):\n        self.children = children\n\n\n\
         class Failure(Exception):\n    pass\n\n\n\
         def make_decoder() -> MultiDecoder:\n    return MultiDecoder([])\n\
         //- app/models.py\nfrom app.decoders import ContentDecoder, MultiDecoder, Failure, make_decoder\n\n\n\
         class Holder:\n    def __init__(self):\n        self.decoder: ContentDecoder | None = None\n        self.raw = None\n\n    \
         def load(self):\n        self.decoder = make_decoder()\n        self.raw = make_decoder()\n\n\n\
         class Response:\n    def __init__(self, decoder: ContentDecoder | None = None):\n        self.decoder = decoder\n\n    \
         def get_decoder(self) -> ContentDecoder:\n        decoder = MultiDecoder(children=[])\n        self.use(decoder)\n        return decoder\n\n    \
         def use(self, decoder: MultiDecoder) -> None:\n        Response(decoder=decoder)\n        raise Failure(\"bad\", 1)\n",
    );
    edit(&repo, "src/async.ts", "export class AsyncScheduler extends Scheduler {", "export class AsyncScheduler {");
    edit(&repo, "app/decoders.py", "class MultiDecoder(ContentDecoder):", "class MultiDecoder:");
    edit(&repo, "app/decoders.py", "class Failure(Exception):", "class Failure:");
    check(
        &repo,
        &[],
        expect![[r#"
            app/decoders.py MC app.decoders.MultiDecoder
            app/decoders.py MC app.decoders.Failure
            src/async.ts MC src/async.AsyncScheduler
              -> app.decoders.make_decoder [Rel(D, C, InstantiatedBy) of MC@16]
              -> app.models.Holder.load [Rel(D, C, Inherits) of MC@10]
              -> app.models.Response.get_decoder [Rel(D, C, InstantiatedBy) of MC@19; Rel(D, C, Inherits) of MC@21]
              -> app.models.Response.use [Rel(D, C, Inherits) of MC@24; Rel(D, C, InstantiatedBy) of MC@25; Rel(D, C, Inherits) of MC@25]
              -> src/async [Rel(D, C, InstantiatedBy) of MC@8; Rel(D, C, Inherits) of MC@8]
              -> src/async.AsyncScheduler.flush [Rel(D, C, Inherits) of MC@4]
              -> src/use.interval [Rel(D, C, Inherits) of MC@3]
              -> src/use.build [Rel(D, C, Inherits) of MC@11]
        "#]],
    );
}

/// A lambda's parameter written without a type is typed by the callee's
/// declaration of that slot (`operate((source, subscriber) => …)`): reads
/// of the lost base's members through it are impacted, its own are not.
#[test]
fn a_lost_base_class_reaches_lambda_parameters_typed_by_their_call() {
    let repo = committed(
        "//- src/base.ts\nexport class Subscription {\n  closed = false;\n}\n\
         //- src/subscriber.ts\nimport { Subscription } from './base';\nexport class Subscriber<T> extends Subscription {\n  next(v: T): void {}\n}\n\
         //- src/lift.ts\nimport { Subscriber } from './subscriber';\nexport function operate<T>(init: (source: T[], subscriber: Subscriber<T>) => void): void {}\n\
         //- src/map.ts\nimport { operate } from './lift';\nexport function map() {\n  operate((source, subscriber) => {\n    if (!subscriber.closed) {\n      subscriber.next(1);\n    }\n  });\n}\n",
    );
    edit(&repo, "src/subscriber.ts", "export class Subscriber<T> extends Subscription {", "export class Subscriber<T> {");
    check(
        &repo,
        &[],
        expect![[r#"
        src/subscriber.ts MC src/subscriber.Subscriber
          -> src/map.map [Rel(D, C, Inherits) of MC@4]
    "#]],
    );
}

/// A field that holds a class is called (`app.ctx_class()`): its calls
/// through `self` and through a receiver declared as the class or a
/// subclass are uses too. So are the reads of a lost outside base's
/// members through the class itself (`EnvironBuilder.from_environ(…)`).
#[test]
fn a_field_is_called_and_a_class_reads_its_base_by_name() {
    let repo = committed(
        "//- app/app.py\nimport werkzeug.test\n\n\nclass App:\n    ctx_class = dict\n\n    def make(self):\n        return self.ctx_class()\n\n\n\
         class Flask(App):\n    pass\n\n\n\
         class EnvironBuilder(werkzeug.test.EnvironBuilder):\n    pass\n\n\n\
         def build(environ):\n    return EnvironBuilder.from_environ(environ)\n\
         //- app/ctx.py\nfrom app.app import Flask\n\n\nclass Context:\n    def __init__(self, app: Flask):\n        self.g = app.ctx_class()\n",
    );
    edit(&repo, "app/app.py", "    ctx_class = dict", "    context_class = dict");
    edit(&repo, "app/app.py", "class EnvironBuilder(werkzeug.test.EnvironBuilder):", "class EnvironBuilder:");
    check(
        &repo,
        &[],
        expect![[r#"
        app/app.py AF app.app.App.context_class
        app/app.py DF app.app.App.ctx_class
        app/app.py MC app.app.EnvironBuilder
          -> app.app.App.make [Rel(D, F, UsedBy) of DF@8]
          -> app.app.build [Rel(D, C, Inherits) of MC@20]
          -> app.ctx.Context.__init__ [Rel(D, F, UsedBy) of DF@6]
    "#]],
    );
}

/// A Rust field renamed: its reads, inside a macro's arguments too, and the
/// struct literals that build the type (in `new` as anywhere), at the line
/// that names the old field; a literal that does not (`..*v`) owes nothing.
#[test]
fn rust_field_renames_reach_macros_and_literals() {
    let repo = committed(
        "//- src/lib.rs\nuse std::fmt;\n\npub struct Version {\n    pub major: u64,\n}\n\nimpl Version {\n    pub fn new(major: u64) -> Self {\n        Version { major }\n    }\n}\n\n\
         impl fmt::Display for Version {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n        write!(f, \"{}\", self.major)\n    }\n}\n\n\
         pub fn zero() -> Version {\n    Version {\n        major: 0,\n    }\n}\n\npub fn copy(v: &Version) -> Version {\n    Version { ..*v }\n}\n",
    );
    edit(&repo, "src/lib.rs", "    pub major: u64,", "    pub first: u64,");
    check(
        &repo,
        &[],
        expect![[r#"
            src/lib.rs AF crate::Version::first
            src/lib.rs DF crate::Version::major
              -> crate::Version::new [Rel(D, C, InstantiatedBy) of DF@9]
              -> crate::Version::fmt [Rel(D, F, UsedBy) of DF@15]
              -> crate::zero [Rel(D, C, InstantiatedBy) of DF@21]
        "#]],
    );
}

#[test]
fn rust_struct_fields_and_signatures() {
    let repo = committed(
        "//- src/pool.rs\npub struct Pool {\n    pub size: usize,\n}\n\npub fn grow(pool: &mut Pool, by: usize) {\n    pool.size += by;\n}\n\
         //- src/main.rs\nmod pool;\nuse pool::{grow, Pool};\n\nfn main() {\n    let mut p = Pool { size: 1 };\n    grow(&mut p, 2);\n}\n",
    );
    edit(&repo, "src/pool.rs", "    pub size: usize,\n", "    pub size: usize,\n    pub idle: usize,\n");
    edit(&repo, "src/pool.rs", "by: usize)", "by: usize, limit: usize)");
    check(
        &repo,
        &[],
        expect![[r#"
            src/pool.rs AF crate::pool::Pool::idle
            src/pool.rs MMS crate::pool::grow
              -> crate::main [Rel(D, C, InstantiatedBy) of AF@5; Rel(D, M, CalledBy) of MMS@6]
        "#]],
    );
}

/// A method whose name no other indexed symbol has still does not own every
/// call of that name: `Vec::with_capacity` is another type's, so `buffer`
/// is not impacted; `Pool::` and `<Pool>::` calls are.
#[test]
fn a_call_through_another_type_is_not_a_use() {
    let repo = committed(
        "//- src/pool.rs\npub struct Pool {\n    pub size: usize,\n}\n\nimpl Pool {\n    pub fn with_capacity(size: usize) -> Pool {\n        Pool { size }\n    }\n}\n\
         //- src/main.rs\nmod pool;\nuse pool::Pool;\n\nfn buffer() -> Vec<u8> {\n    Vec::with_capacity(4)\n}\n\nfn main() {\n    let p = Pool::with_capacity(1);\n    let q = <Pool>::with_capacity(2);\n    let _ = (p, q, buffer());\n}\n",
    );
    edit(&repo, "src/pool.rs", "with_capacity(size: usize)", "with_capacity(size: usize, idle: usize)");
    check(
        &repo,
        &[],
        expect![[r#"
            src/pool.rs MMS crate::pool::Pool::with_capacity
              -> crate::main [Rel(D, M, CalledBy) of MMS@9,10]
        "#]],
    );
}

fn run_ok(repo: &Repo, args: &[&str]) -> String {
    let out = repo.ken(args);
    assert!(out.status.success(), "ken {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Text without trailing blanks (a diff's empty context line is one space,
/// which a snapshot cannot hold).
fn trim_lines(text: &str) -> String {
    text.lines().map(str::trim_end).collect::<Vec<_>>().join("\n") + "\n"
}

fn changed_files(repo: &Repo) -> String {
    let out = Command::new("git").args(["diff", "--name-only"]).current_dir(repo.path()).output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// `ken plan --execute`: CodePlan's loop carries a new parameter from the
/// edited function to its caller, which takes it on and passes it along to
/// its own callers and its override, until pyright finds nothing new. The
/// baselines fail where the plan passes; nothing is written before
/// `--apply`; a second run over the applied change has nothing left to do.
#[test]
fn executing_the_plan_carries_a_new_parameter_until_the_type_checker_passes() {
    let repo = shop();
    edit(&repo, "shop/prices.py", "def price_of(item):", "def price_of(item, currency):");
    expect![[r#"
        n1  [done] (seed)  shop/prices.py:1-2  function shop.prices.price_of
               add a currency
        n2  [done]  shop/cart.py:8-9  method shop.cart.Cart.total
               Update for the change to shop.prices.price_of (signature of method modified, MMS): this block is its caller
        n3  [done]  shop/cart.py:16-17  method shop.cart.GiftCart.total
               Update for the change to shop.cart.Cart.total (signature of method modified, MMS): this block is its override
        n4  [done]  shop/checkout.py:5-11  function shop.checkout.checkout
               Update for the change to shop.cart.Cart.total (body of method modified, MMB): this block is its caller
        n5  [done]  shop/checkout.py:14-15  function shop.checkout.receipt
               Update for the change to shop.checkout.checkout (body of method modified, MMB): this block is its caller
          n1 -> n2  MMS Rel(D, M, CalledBy)
          n2 -> n3  MMS Rel(D, M, OverriddenBy)
          n2 -> n4  MMB Rel(D, M, CalledBy)
          n3 -> n2  MMS Rel(D, M, Overrides)
          n4 -> n5  MMB Rel(D, M, CalledBy)
        oracle round 0: 0 new error(s) from `pyright --outputjson`
        4 edit(s) in 2 file(s), the oracle passes; patch not applied (--apply writes it)

        --- a/shop/cart.py
        +++ b/shop/cart.py
        @@ -5,13 +5,13 @@
             def __init__(self):
                 self.items = []
 
        -    def total(self, tax):
        -        return sum(price_of(i) for i in self.items) * (1 + tax)
        +    def total(self, tax, currency):
        +        return sum(price_of(i, currency) for i in self.items) * (1 + tax)
 
             def add(self, item):
                 self.items.append(item)
 
 
         class GiftCart(Cart):
        -    def total(self, tax):
        +    def total(self, tax, currency):
                 return 0
        --- a/shop/checkout.py
        +++ b/shop/checkout.py
        @@ -2,17 +2,17 @@
         from shop.prices import legacy_price
 
 
        -def checkout(items):
        +def checkout(items, currency):
             cart = Cart()
             if not items:
        -        return cart.total(0)
        +        return cart.total(0, currency)
             for i in items:
                 cart.add(i)
        -    return cart.total(0.2)
        +    return cart.total(0.2, currency)
 
 
        -def receipt(items):
        -    return f"total: {checkout(items)}"
        +def receipt(items, currency):
        +    return f"total: {checkout(items, currency)}"
 
 
         def refund(item):
    "#]]
    .assert_eq(&trim_lines(&run_ok(&repo, &["plan", "add a currency", "--seed-diff", "--execute", "--oracle", "pyright"])));
    assert_eq!(changed_files(&repo), "shop/prices.py\n", "the repository is untouched");

    let outcome = |args: &[&str]| {
        let mut full = vec!["plan", "add a currency", "--seed-diff", "--execute", "--oracle", "pyright", "--format", "json"];
        full.extend_from_slice(args);
        let r: Value = serde_json::from_str(&run_ok(&repo, &full)).unwrap();
        let errors: Vec<String> = r["rounds"].as_array().unwrap().iter().map(|r| r["errors"].to_string()).collect();
        format!("passed={} edits={} errors by round={}", r["passed"], r["edits"].as_array().unwrap().len(), errors.join(","))
    };
    expect!["passed=false edits=0 errors by round=1"].assert_eq(&outcome(&["--strategy", "repair", "--rounds", "0"]));
    expect!["passed=false edits=3 errors by round=1,3,2,1"].assert_eq(&outcome(&["--strategy", "repair"]));

    run_ok(&repo, &["plan", "add a currency", "--seed-diff", "--execute", "--oracle", "pyright", "--apply"]);
    expect![[r#"
        shop/cart.py
        shop/checkout.py
        shop/prices.py
    "#]]
    .assert_eq(&changed_files(&repo));
    expect!["passed=true edits=0 errors by round=0"].assert_eq(&outcome(&[]));
}

/// A Rust rename carried by the plan alone, checked by `cargo check`: the
/// call in an `impl`'s constant (a use the graph gives to the type, whose
/// span does not hold it) is renamed, `Vec::with_capacity` is not (another
/// type's method with the same name), and the oracle passes at once.
#[test]
fn a_rust_rename_reaches_impl_constants_and_spares_other_types() {
    let repo = committed(
        "//- Cargo.toml\n[package]\nname = \"tags\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\
         //- src/lib.rs\npub struct Tag(pub u8);\n\nimpl Tag {\n    pub const fn with_capacity() -> Tag {\n        Tag(0)\n    }\n}\n\n\
         pub struct Label {\n    pub tag: Tag,\n}\n\nimpl Label {\n    pub const EMPTY: Label = Label { tag: Tag::with_capacity() };\n}\n\n\
         pub fn fresh() -> Vec<Tag> {\n    let mut tags = Vec::with_capacity(1);\n    tags.push(Tag::with_capacity());\n    tags\n}\n",
    );
    edit(&repo, "src/lib.rs", "pub const fn with_capacity()", "pub const fn sized()");
    expect![[r#"
        n1  [done] (seed)  src/lib.rs:4-6  method crate::Tag::with_capacity
               rename with_capacity to sized
        n2  [done]  src/lib.rs:9-11  struct crate::Label
               Update for the change to crate::Tag::with_capacity (method deleted, DM): this block is its caller
        n3  [done]  src/lib.rs:17-21  function crate::fresh
               Update for the change to crate::Tag::with_capacity (method deleted, DM): this block is its caller
          n1 -> n2  DM Rel(D, M, CalledBy)
          n1 -> n3  DM Rel(D, M, CalledBy)
        oracle round 0: 0 new error(s) from `cargo check --message-format=json --all-targets --keep-going --quiet`
        2 edit(s) in 1 file(s), the oracle passes; patch not applied (--apply writes it)

        --- a/src/lib.rs
        +++ b/src/lib.rs
        @@ -11,11 +11,11 @@
         }

         impl Label {
        -    pub const EMPTY: Label = Label { tag: Tag::with_capacity() };
        +    pub const EMPTY: Label = Label { tag: Tag::sized() };
         }

         pub fn fresh() -> Vec<Tag> {
             let mut tags = Vec::with_capacity(1);
        -    tags.push(Tag::with_capacity());
        +    tags.push(Tag::sized());
             tags
         }
    "#]]
    .assert_eq(&trim_lines(&run_ok(&repo, &["plan", "rename with_capacity to sized", "--seed-diff", "--execute", "--oracle", "cargo"])));
}

/// Over HTTP and MCP the change comes whole in the request; the answer is
/// the same patch, and only named oracles are accepted.
#[test]
fn agents_execute_a_plan_over_http_and_mcp() {
    let repo = shop();
    let before = std::fs::read_to_string(repo.path().join("shop/prices.py")).unwrap();
    let after = before.replace("def legacy_price(item):", "def old_price(item):");
    let request = json!({"plan": {"instruction": "rename legacy_price", "seed_diff": {"files": [{"path": "shop/prices.py", "before": before, "after": after}]}}});
    let server = Server::start(&repo, &[]);
    let (status, over_http) = server.post("/api/v1/execute", &request.to_string());
    assert_eq!(status, 200, "{over_http}");
    expect![[r#"
        --- a/shop/checkout.py
        +++ b/shop/checkout.py
        @@ -1,5 +1,5 @@
         from shop.cart import Cart
        -from shop.prices import legacy_price
        +from shop.prices import old_price
 
 
         def checkout(items):
        @@ -16,4 +16,4 @@
 
 
         def refund(item):
        -    return -legacy_price(item)
        +    return -old_price(item)
        --- a/shop/prices.py
        +++ b/shop/prices.py
        @@ -2,5 +2,5 @@
             return item.price
 
 
        -def legacy_price(item):
        +def old_price(item):
             return item.cost
    "#]]
    .assert_eq(&trim_lines(over_http["patch"].as_str().unwrap()));
    assert_eq!(over_http["passed"], Value::Null, "no oracle, unchecked");
    let (status, bad) =
        server.post("/api/v1/execute", &json!({"plan": {"instruction": "x", "seeds": ["Cart"]}, "oracle": "rm -rf /"}).to_string());
    assert_eq!((status, bad["error"]["field"].as_str()), (400, Some("oracle")), "{bad}");

    let mut mcp = McpSession::start(repo.path(), false);
    let over_mcp = mcp.answer("execute", request);
    assert_eq!(over_mcp["patch"], over_http["patch"]);
    assert_eq!(std::fs::read_to_string(repo.path().join("shop/prices.py")).unwrap(), before, "nothing applied");
}

/// `--editor llm`: the local model (SmolLM2 from PyPI) rewrites each
/// obligation's block. What a 135M model writes is not judged; the loop is:
/// every node is visited, every merged edit parses, and the log keeps the
/// prompts (the block, its class sketched, the edit that led to it).
#[test]
fn the_language_model_edits_the_blocks_of_a_plan() {
    let repo = shop();
    edit(&repo, "shop/cart.py", "def total(self, tax):\n        return sum", "def total(self, tax, discount):\n        return sum");
    let out = support::ken_env(
        repo.path(),
        &[("KEN_NO_EMBED", "1")],
        &["plan", "add a discount", "--seed-diff", "--execute", "--editor", "llm", "--format", "json"],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r = parse_json(&out);
    for node in r["plan"]["nodes"].as_array().unwrap() {
        assert_ne!(node["status"], "pending", "{node}");
    }
    let log: Value = serde_json::from_str(&std::fs::read_to_string(r["log"].as_str().unwrap()).unwrap()).unwrap();
    let prompts: Vec<&str> = log["events"].as_array().unwrap().iter().filter_map(|e| e["prompt"].as_str()).collect();
    assert!(!prompts.is_empty(), "{log:#}");
    let override_prompt = prompts.iter().find(|p| p.contains("class GiftCart(Cart):")).expect("the override's class is sketched");
    assert!(override_prompt.contains("+    def total(self, tax, discount):"), "the seed edit is shown: {override_prompt}");
    for e in r["edits"].as_array().unwrap() {
        let path = e["path"].as_str().unwrap();
        assert!(e["diff"].as_str().unwrap().starts_with(&format!("--- a/{path}")), "{e}");
    }
}
