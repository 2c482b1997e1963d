mod common;

use common::{render_chunks, render_references, render_symbols};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

const PROJECT: &str = r#"
//- lib/shop/cart.ex
defmodule Shop.Cart do
  @moduledoc "A shopping cart."
  alias Shop.{Item, Pricing}
  alias Shop.Inventory.Stock, as: Stock
  import Enum, only: [map: 2]
  use GenServer
  require Logger

  @behaviour Shop.Checkout
  @max_items 50

  defstruct items: [], owner: nil

  @doc "Adds an item."
  @spec add(t(), Item.t()) :: t()
  def add(%__MODULE__{} = cart, item) do
    Logger.info("adding #{item.name}")
    %{cart | items: [item | cart.items]}
  end

  def total(cart), do: Pricing.sum(cart.items)

  def size(cart) when is_list(cart.items), do: count(cart.items)

  defp count([]), do: 0
  defp count([_ | rest]), do: 1 + count(rest)

  def names(cart), do: map(cart.items, &Item.label/1) |> Enum.sort()

  defmacro debug(expr) do
    quote do: IO.inspect(unquote(expr))
  end

  @impl true
  def handle_call(:total, _from, cart) do
    {:reply, total(cart), cart}
  end

  def checkout(cart) do
    :telemetry.execute([:shop, :checkout], %{count: size(cart)})
    Stock.reserve(cart.items)
  end

  defmodule Line do
    def new(item), do: %Item{name: item}
  end
end

defprotocol Shop.Priced do
  @doc "The price of a thing."
  def price(thing)
end

defimpl Shop.Priced, for: Shop.Item do
  def price(item), do: item.price
end
//- lib/shop/checkout.ex
defmodule Shop.Checkout do
  @moduledoc "What a checkout does."
  @callback checkout(cart :: term) :: :ok | {:error, term}
end
//- lib/shop/pricing.ex
defmodule Shop.Pricing do
  def sum(items) when is_list(items) do
    Enum.reduce(items, 0, fn item, acc -> acc + Shop.Priced.price(item) end)
  end

  defdelegate round(amount), to: Float
end
//- test/shop/cart_test.exs
defmodule Shop.CartTest do
  use ExUnit.Case, async: true

  test "totals the cart" do
    assert Shop.Cart.total(%Shop.Cart{items: []}) == 0
  end
end
"#;

fn check(render: fn(&str) -> String, expect: Expect) {
    expect.assert_eq(&render(PROJECT));
}

#[test]
fn modules_functions_protocols_and_attributes() {
    check(
        render_symbols,
        expect![[r#"
        lib/shop/cart.ex (module lib/shop/cart, 0 parse errors)
          module Shop.Cart [1-47] `defmodule Shop.Cart do`
            constant Shop.Cart.max_items [10-10] `@max_items 50`
            function Shop.Cart.add [15-19] `@spec add(t(), Item.t()) :: t()`
            function Shop.Cart.total [21-21] `def total(cart), do: Pricing.sum(cart.items)`
            function Shop.Cart.size [23-23] `def size(cart) when is_list(cart.items), do: count(cart.items)`
            function Shop.Cart.count [25-26] `defp count([]), do: 0`
            function Shop.Cart.names [28-28] `def names(cart), do: map(cart.items, &Item.label/1) |> Enum.sort()`
            function Shop.Cart.debug [30-32] `defmacro debug(expr) do`
            function Shop.Cart.handle_call [35-37] `def handle_call(:total, _from, cart) do`
            function Shop.Cart.checkout [39-42] `def checkout(cart) do`
            module Shop.Cart.Line [44-46] `defmodule Line do`
              function Shop.Cart.Line.new [45-45] `def new(item), do: %Item`
          interface Shop.Priced [49-52] `defprotocol Shop.Priced do`
            method Shop.Priced.price [51-51] `def price(thing)`
          method Shop.Item.price [55-55] `def price(item), do: item.price`
        lib/shop/checkout.ex (module lib/shop/checkout, 0 parse errors)
          module Shop.Checkout [1-4] `defmodule Shop.Checkout do`
            function Shop.Checkout.checkout [3-3] `@callback checkout(cart :: term) :: :ok |`
        lib/shop/pricing.ex (module lib/shop/pricing, 0 parse errors)
          module Shop.Pricing [1-7] `defmodule Shop.Pricing do`
            function Shop.Pricing.sum [2-4] `def sum(items) when is_list(items) do`
            function Shop.Pricing.round [6-6] `defdelegate round(amount), to: Float`
        test/shop/cart_test.exs (module test/shop/cart_test, 0 parse errors)
          module Shop.CartTest [1-7] `defmodule Shop.CartTest do`
    "#]],
    );
}

#[test]
fn calls_structs_aliases_and_implementations() {
    check(
        render_references,
        expect![[r#"
        lib/shop/cart.ex
          3:15 import Shop :: Item in Shop.Cart
          3:21 import Shop :: Pricing in Shop.Cart
          4:9 import Shop.Inventory.Stock as Stock in Shop.Cart
          5:10 import Enum :: * in Shop.Cart
          6:7 import GenServer :: * in Shop.Cart
          7:11 import Logger in Shop.Cart
          9:14 inherit Shop :: Checkout in Shop.Cart
          15:23 call Item :: t in Shop.Cart.add
          17:12 call Logger :: info in Shop.Cart.add
          17:32 field_use item :: name in Shop.Cart.add
          18:34 field_use cart :: items in Shop.Cart.add
          21:32 call Pricing :: sum in Shop.Cart.total
          21:41 field_use cart :: items in Shop.Cart.total
          23:36 field_use cart :: items in Shop.Cart.size
          23:48 call count in Shop.Cart.size
          23:59 field_use cart :: items in Shop.Cart.size
          26:35 call count in Shop.Cart.count
          28:24 call map in Shop.Cart.names
          28:33 field_use cart :: items in Shop.Cart.names
          28:46 call Item :: label in Shop.Cart.names
          28:63 call Enum :: sort in Shop.Cart.names
          31:18 call IO :: inspect in Shop.Cart.debug
          36:14 call total in Shop.Cart.handle_call
          40:16 call :telemetry :: execute in Shop.Cart.checkout
          40:53 call size in Shop.Cart.checkout
          41:11 call Stock :: reserve in Shop.Cart.checkout
          41:24 field_use cart :: items in Shop.Cart.checkout
          45:25 instantiate Item in Shop.Cart.Line.new
          55:29 field_use item :: price in Shop.Item.price
        lib/shop/checkout.ex
        lib/shop/pricing.ex
          3:10 call Enum :: reduce in Shop.Pricing.sum
          3:61 call Shop.Priced :: price in Shop.Pricing.sum
        test/shop/cart_test.exs
          2:7 import ExUnit.Case :: * in Shop.CartTest
          5:22 call Shop.Cart :: total in Shop.CartTest
          5:29 instantiate Shop :: Cart in Shop.CartTest
    "#]],
    );
}

#[test]
fn chunks_follow_modules_and_functions() {
    check(
        |f| render_chunks(f, ChunkBudget::default()),
        expect![[r#"
        lib/shop/cart.ex
          1-1 Shop.Cart | class - | fn -
          1-14 Shop.Cart | class - | fn -
          15-19 Shop.Cart.add | class - | fn in add[15-19]
          21-21 Shop.Cart.total | class - | fn in total[21-21]
          23-23 Shop.Cart.size | class - | fn in size[23-23]
          25-26 Shop.Cart.count | class - | fn in count[25-26]
          28-28 Shop.Cart.names | class - | fn in names[28-28]
          30-34 Shop.Cart | class - | fn in debug[30-32]
          35-37 Shop.Cart.handle_call | class - | fn in handle_call[35-37]
          39-42 Shop.Cart.checkout | class - | fn in checkout[39-42]
          44-47 Shop.Cart | class - | fn after checkout[39-42]
          49-56 Shop.Priced | class in Priced[49-52] | fn after new[45-45]
        lib/shop/checkout.ex
          1-5 Shop.Checkout | class - | fn -
        lib/shop/pricing.ex
          1-8 Shop.Pricing | class - | fn -
        test/shop/cart_test.exs
          1-8 Shop.CartTest | class - | fn -
    "#]],
    );
}
