//! `ken map` end to end: the repository's most important signatures within
//! a token budget, optionally centred on paths or symbols. Each case is one
//! line: the focus and the budget, and the map expected. Every map stays
//! within its budget; HTTP and MCP give the same map.

mod support;

use expect_test::{Expect, expect};
use serde_json::{Value, json};
use support::{McpSession, Repo, Server, json as parse_json};

const SHOP: &str = r#"
//- shop/cart.py
from shop.prices import price_of


class Cart:
    """Items a customer is buying."""

    def __init__(self):
        self.items = []

    def total(self, tax):
        return sum(price_of(i) for i in self.items) * (1 + tax)

    def add(self, item):
        self.items.append(item)
//- shop/prices.py
import decimal

VAT = 0.2


class Currency:
    code = "EUR"


def price_of(item):
    """The price of one item, in its currency."""
    return decimal.Decimal(item.price)


def legacy_price(item):
    return item.cost
//- shop/checkout.py
from shop.cart import Cart
from shop.prices import VAT


def checkout(items):
    cart = Cart()
    for i in items:
        cart.add(i)
    return cart.total(VAT)


def receipt(items):
    return f"total: {checkout(items)}"
//- shop/shipping/rates.py
def rate(weight):
    return weight * 2


def express_rate(weight):
    return rate(weight) + 10
//- tests/test_cart.py
from shop.cart import Cart


def test_total():
    cart = Cart()
    cart.add(1)
    assert cart.total(0) == 1
"#;

fn shop() -> Repo {
    let repo = Repo::new(SHOP);
    assert!(repo.ken(&["index", "-q"]).status.success());
    repo
}

/// The map's text, checked against its JSON: tokens within the budget.
fn check(repo: &Repo, focus: &[&str], budget: usize, expect: Expect) {
    let budget_arg = budget.to_string();
    let mut args = vec!["map", "--budget", &budget_arg];
    args.extend_from_slice(focus);
    let out = repo.ken(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    args.push("--json");
    let map = parse_json(&repo.ken(&args));
    let tokens = map["tokens"].as_u64().unwrap() as usize;
    assert!(tokens <= budget, "{tokens} tokens for a budget of {budget}: {map:#}");
    assert_eq!(render(&map), text);
    expect.assert_eq(&text);
}

/// The text form, rebuilt from the JSON.
fn render(map: &Value) -> String {
    let mut out = String::new();
    for f in map["files"].as_array().unwrap() {
        out.push_str(&format!("{}:\n", f["path"].as_str().unwrap()));
        for s in f["symbols"].as_array().unwrap() {
            let indent = "    ".repeat(s["depth"].as_u64().unwrap() as usize);
            out.push_str(&format!("{:>6}│ {indent}{}\n", s["line"].as_u64().unwrap(), s["signature"].as_str().unwrap()));
        }
    }
    out
}

#[test]
fn the_map_ranks_definitions_and_fits_the_budget() {
    let repo = shop();
    check(
        &repo,
        &[],
        2048,
        expect![[r#"
            shop/cart.py:
                 4│ class Cart
                 7│     def __init__(self)
                10│     def total(self, tax)
                13│     def add(self, item)
            shop/prices.py:
                 3│ VAT = 0.2
                 6│ class Currency
                10│ def price_of(item)
                15│ def legacy_price(item)
            shop/checkout.py:
                 5│ def checkout(items)
                12│ def receipt(items)
            shop/shipping/rates.py:
                 1│ def rate(weight)
                 5│ def express_rate(weight)
        "#]],
    );
    // A small budget keeps the strongest; a method brings its class.
    check(
        &repo,
        &[],
        64,
        expect![[r#"
            shop/cart.py:
                 4│ class Cart
                10│     def total(self, tax)
                13│     def add(self, item)
            shop/prices.py:
                10│ def price_of(item)
            shop/checkout.py:
                 5│ def checkout(items)
        "#]],
    );
}

#[test]
fn a_focus_centres_the_map_on_paths_and_symbols() {
    let repo = shop();
    // A file: its definitions, then what they use and what uses them.
    check(
        &repo,
        &["shop/checkout.py"],
        64,
        expect![[r#"
            shop/checkout.py:
                 5│ def checkout(items)
                12│ def receipt(items)
            shop/cart.py:
                 4│ class Cart
                10│     def total(self, tax)
                13│     def add(self, item)
        "#]],
    );
    // A directory, and a symbol by its qualified tail.
    check(
        &repo,
        &["shop/shipping"],
        64,
        expect![[r#"
            shop/shipping/rates.py:
                 1│ def rate(weight)
                 5│ def express_rate(weight)
            shop/cart.py:
                 4│ class Cart
                10│     def total(self, tax)
            shop/prices.py:
                10│ def price_of(item)
        "#]],
    );
    check(
        &repo,
        &["prices.price_of"],
        64,
        expect![[r#"
            shop/prices.py:
                10│ def price_of(item)
            shop/cart.py:
                 4│ class Cart
                10│     def total(self, tax)
                13│     def add(self, item)
            shop/checkout.py:
                 5│ def checkout(items)
        "#]],
    );
}

#[test]
fn tests_are_left_out_unless_asked_for() {
    let repo = shop();
    let text = |args: &[&str]| String::from_utf8(repo.ken(args).stdout).unwrap();
    assert!(!text(&["map"]).contains("test_total"));
    assert!(text(&["map", "--tests"]).contains("     4│ def test_total()"));
}

#[test]
fn a_focus_that_names_nothing_is_a_note_or_an_error() {
    let repo = shop();
    let out = repo.ken(&["map", "no_such_thing"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("names no indexed path with definitions and no symbol: `no_such_thing`"), "{stderr}");
    // Beside an item that names something, it is left out with a note.
    let out = repo.ken(&["map", "no_such_thing", "rate", "--budget", "64"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("shop/shipping/rates.py:\n"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("note: focus `no_such_thing` is neither an indexed path nor a symbol's name"), "{stderr}");
}

#[test]
fn agents_get_the_same_map_over_http_and_mcp() {
    let repo = shop();
    let cli = parse_json(&repo.ken(&["map", "--budget", "512", "--json", "shop/cart.py"]));
    let server = Server::start(&repo, &[]);
    let request = json!({"focus": ["shop/cart.py"], "budget": 512});
    let (status, over_http) = server.post("/api/v1/map", &request.to_string());
    assert_eq!(status, 200, "{over_http}");
    assert_eq!(render(&over_http), render(&cli));
    for (bad, field) in [(json!({"budget": 10}), "budget"), (json!({"focus": ["nowhere/"]}), "focus"), (json!({"focus": [" "]}), "focus")] {
        let (status, answer) = server.post("/api/v1/map", &bad.to_string());
        assert_eq!((status, answer["error"]["field"].as_str()), (400, Some(field)), "{bad}: {answer}");
    }
    let (status, answer) = server.post("/api/v1/map", &json!({"depth": 2}).to_string());
    assert_eq!(status, 400, "{answer}");
    drop(server);

    let mut mcp = McpSession::start(repo.path(), false);
    let over_mcp = mcp.answer("map", request);
    assert_eq!(render(&over_mcp), render(&cli));
}
