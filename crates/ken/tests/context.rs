//! `ken context` end to end: a task in, the pack out. Each case is one line:
//! the task and the budget, and the pieces expected (path:lines, what they
//! are, which symbols), in reading order. Every pack stays within its
//! budget, counted by the named tokenizer; HTTP and MCP give the same pack.

mod support;

use expect_test::{Expect, expect};
use serde_json::{Value, json};
use support::{McpSession, Repo, Server, json as parse_json};

const SHOP: &str = r#"
//- shop/cart.py
from shop.prices import price_of, Currency


class Cart:
    """Items a customer is buying."""

    def __init__(self):
        self.items = []

    def total(self, tax):
        """The price of every item, taxed."""
        return sum(price_of(i) for i in self.items) * (1 + tax)

    def add(self, item):
        self.items.append(item)


class GiftCart(Cart):
    def total(self, tax):
        return 0
//- shop/prices.py
import decimal


class Currency:
    code = "EUR"


def price_of(item):
    """The price of one item, in its currency."""
    return decimal.Decimal(item.price)


def legacy_price(item):
    return item.cost
//- shop/checkout.py
from shop.cart import Cart


def checkout(items):
    """Builds a cart from the items and returns what the customer pays."""
    cart = Cart()
    for i in items:
        cart.add(i)
    return cart.total(0.2)


def receipt(items):
    return f"total: {checkout(items)}"
"#;

fn shop() -> Repo {
    let repo = Repo::new(SHOP);
    assert!(repo.ken(&["index", "-q"]).status.success());
    repo
}

/// One line per piece: where, what, which symbols, then the total.
fn render(pack: &Value) -> String {
    let mut out = String::new();
    for p in pack["pieces"].as_array().unwrap() {
        let kinds: Vec<&str> = p["kinds"].as_array().unwrap().iter().map(|k| k.as_str().unwrap()).collect();
        let labels: Vec<&str> = p["labels"].as_array().unwrap().iter().map(|k| k.as_str().unwrap()).collect();
        out.push_str(&format!(
            "{}:{}-{} [{}] {}\n",
            p["path"].as_str().unwrap(),
            p["start_line"],
            p["end_line"],
            kinds.join(","),
            labels.join("; ")
        ));
    }
    out
}

fn check(repo: &Repo, task: &str, budget: usize, expect: Expect) {
    let out = repo.ken(&["context", task, "--budget", &budget.to_string(), "--format", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let pack = parse_json(&out);
    let tokens = pack["tokens"].as_u64().unwrap() as usize;
    let sum: u64 = pack["pieces"].as_array().unwrap().iter().map(|p| p["tokens"].as_u64().unwrap()).sum();
    assert!(tokens <= budget && sum as usize == tokens, "{tokens} tokens for a budget of {budget}: {pack:#}");
    expect.assert_eq(&render(&pack));
}

#[test]
fn packs_hold_definitions_their_neighbours_and_imports() {
    let repo = shop();
    check(
        &repo,
        "the cart total and its tax",
        8192,
        expect![[r#"
            shop/cart.py:1-21 [definition,imports,signatures] class shop.cart.Cart; method shop.cart.Cart.total; class shop.cart.GiftCart; method shop.cart.GiftCart.total
            shop/prices.py:8-10 [definition,signatures] function shop.prices.price_of (called by total)
            shop/checkout.py:1-14 [definition,signatures] function shop.checkout.checkout; function shop.checkout.receipt (caller of checkout)
        "#]],
    );
    check(
        &repo,
        "the cart total and its tax",
        256,
        expect![[r#"
            shop/cart.py:10-14 [definition,signatures] method shop.cart.Cart.total; method shop.cart.Cart.add (called by checkout)
            shop/checkout.py:1-4 [imports,signatures] function shop.checkout.checkout (caller of total)
            shop/cart.py:1-4 [imports,signatures] class shop.cart.Cart (base of GiftCart)
            shop/checkout.py:12-12 [signatures] function shop.checkout.receipt (caller of checkout)
            shop/prices.py:8-8 [signatures] function shop.prices.price_of (called by total)
            shop/cart.py:18-20 [definition] class shop.cart.GiftCart; method shop.cart.GiftCart.total
        "#]],
    );
    check(
        &repo,
        "price of one item in its currency",
        8192,
        expect![[r#"
        shop/prices.py:1-15 [definition,imports] class shop.prices.Currency; function shop.prices.price_of
        shop/checkout.py:1-14 [definition,signatures] function shop.checkout.checkout; function shop.checkout.receipt
        shop/cart.py:1-21 [definition,signatures] class shop.cart.Cart; method shop.cart.Cart.total (caller of price_of)
    "#]],
    );
}

#[test]
fn markdown_and_xml_label_every_piece() {
    let repo = shop();
    let out = repo.ken(&["context", "checkout builds a cart", "--budget", "1024"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let markdown = String::from_utf8(out.stdout).unwrap();
    assert!(markdown.starts_with("# Context: checkout builds a cart\n"), "{markdown}");
    assert!(markdown.contains("## shop/checkout.py:"), "{markdown}");
    assert!(markdown.contains("```python\n"), "{markdown}");
    let out = repo.ken(&["context", "checkout builds a cart", "--budget", "1024", "--format", "xml", "--tokenizer", "cl100k"]);
    let xml = String::from_utf8(out.stdout).unwrap();
    assert!(xml.starts_with("<context task=\"checkout builds a cart\""), "{xml}");
    assert!(xml.contains("tokenizer=\"cl100k\""), "{xml}");
    assert!(xml.contains("<file path=\"shop/checkout.py\" lines=\""), "{xml}");
    assert!(xml.trim_end().ends_with("</context>"), "{xml}");
}

#[test]
fn agents_get_the_same_pack_over_http_and_mcp() {
    let repo = shop();
    let out = repo.ken(&["context", "how is the cart total taxed", "--budget", "2048", "--format", "json"]);
    let cli = parse_json(&out);
    let server = Server::start(&repo, &[]);
    let request = json!({"task": "how is the cart total taxed", "budget": 2048});
    let (status, over_http) = server.post("/api/v1/context", &request.to_string());
    assert_eq!(status, 200, "{over_http}");
    assert_eq!(render(&over_http), render(&cli));
    let (status, bad) = server.post("/api/v1/context", &json!({"task": "x", "budget": 10}).to_string());
    assert_eq!((status, bad["error"]["field"].as_str()), (400, Some("budget")), "{bad}");
    let (status, bad) = server.post("/api/v1/context", &json!({"task": "x", "tokenizer": "gpt2"}).to_string());
    assert_eq!(status, 400, "{bad}");
    drop(server);

    let mut mcp = McpSession::start(repo.path(), false);
    let over_mcp = mcp.answer("context", request);
    assert_eq!(render(&over_mcp), render(&cli));
}
