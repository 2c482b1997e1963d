//! Elixir end to end: nested and dotted module names, aliased and fully
//! qualified module calls, local calls, imports, function captures,
//! behaviours and protocol implementations across files.

mod common;

use common::check_edges;
use expect_test::expect;

#[test]
fn modules_aliases_imports_and_protocols() {
    check_edges(
        r#"
//- lib/shop/item.ex
defmodule Shop.Item do
  defstruct name: nil, price: 0

  def label(%__MODULE__{name: name}), do: name

  defimpl Shop.Priced do
    def price(item), do: item.price
  end
end
//- lib/shop/priced.ex
defprotocol Shop.Priced do
  def price(thing)
end
//- lib/shop/pricing.ex
defmodule Shop.Pricing do
  def sum(items), do: Enum.reduce(items, 0, &add/2)

  defp add(item, acc), do: acc + Shop.Priced.price(item)

  defmodule Format do
    def money(amount), do: "$#{amount}"
  end
end
//- lib/shop/checkout.ex
defmodule Shop.Checkout do
  @callback checkout(term) :: :ok
end
//- lib/shop/cart.ex
defmodule Shop.Cart do
  @behaviour Shop.Checkout
  alias Shop.{Item, Pricing}
  import Shop.Pricing.Format

  def total(items), do: Pricing.sum(items)

  def labels(items), do: Enum.map(items, &Item.label/1)

  def sample, do: total([%Item{name: "pen", price: 2}])

  @impl true
  def checkout(items) do
    IO.puts(money(total(items)))
    Shop.Pricing.Format.money(0)
  end
end
"#,
        expect![[r#"
            Shop.Cart -imports-> Shop.Item
            Shop.Cart -imports-> Shop.Pricing
            Shop.Cart -imports-> Shop.Pricing.Format
            Shop.Cart.checkout -calls-> Shop.Cart.total
            Shop.Cart.checkout -calls-> Shop.Pricing.Format.money
            Shop.Cart.labels -calls-> Shop.Item.label
            Shop.Cart.sample -calls-> Shop.Cart.total
            Shop.Cart.total -calls-> Shop.Pricing.sum
            Shop.Pricing.add -calls-> Shop.Priced.price [unique_name]
            Shop.Pricing.sum -calls-> Shop.Pricing.add
            unresolved:
            Shop.Cart -derived_class_of-> ?Checkout
            Shop.Cart.checkout -calls-> ?money
            Shop.Cart.checkout -calls-> ?puts
            Shop.Cart.labels -calls-> ?map
            Shop.Cart.sample -instantiates-> ?Item
            Shop.Item -derived_class_of-> ?Priced
            Shop.Pricing.sum -calls-> ?reduce
        "#]],
    );
}
