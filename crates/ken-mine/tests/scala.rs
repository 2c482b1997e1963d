mod common;

use common::{render_chunks, render_references, render_symbols, render_types};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

const SOURCES: &str = r#"
//- src/main/scala/com/acme/shop/model/Item.scala
package com.acme.shop.model

import java.time.Instant

/** Something with a price, in cents. */
sealed trait Priced {
  def price: Long
  def discounted(percent: Int): Long = price * (100 - percent) / 100
}

/** An item. */
final case class Item(sku: String, price: Long) extends Priced {
  val addedAt: Instant = Instant.now()
  override def toString: String = s"$sku at ${price / 100}"
}

object Item {
  val Free: Item = Item("free", 0L)
  def parse(line: String): Option[Item] = line.split(',') match {
    case Array(sku, price) => Some(Item(sku, price.toLong))
    case _                 => None
  }
}

enum Category(val label: String):
  case Food extends Category("food")
  case Tools extends Category("tools")
//- src/main/scala/com/acme/shop/package.scala
package com.acme

package object shop {
  type Cents = Long
  def format(cents: Cents): String = f"${cents / 100}.${cents % 100}%02d"
}
//- src/main/scala/com/acme/shop/Cart.scala
package com.acme.shop

import scala.collection.mutable
import com.acme.shop.model.{Item, Priced => P}
import com.acme.log._

// A cart.
class Cart(val owner: String, capacity: Int) extends AutoCloseable with Iterable[Item] {
  private val items = mutable.ArrayBuffer.empty[Item]
  var discount: Int = 0

  def this(owner: String) = this(owner, Cart.MaxItems)

  def add(item: Item): Boolean =
    if (items.size >= capacity) false
    else {
      items += item
      Logger.info(s"added ${item.sku}")
      true
    }

  def total: Cents = items.map(_.discounted(discount)).sum

  def iterator: Iterator[Item] = items.iterator

  override def close(): Unit = items.clear()
}

object Cart {
  final val MaxItems = 50
  def guest(): Cart = new Cart("guest")
}
//- src/main/scala/com/acme/shop/Main.scala
package com.acme.shop

import com.acme.shop.model.Item

extension (cart: Cart)
  def isEmpty: Boolean = cart.total == 0

@main def run(): Unit =
  val cart = Cart.guest()
  cart.add(Item("apple", 120))
  println(format(cart.total))
"#;

fn check(render: fn(&str) -> String, expect: Expect) {
    expect.assert_eq(&render(SOURCES));
}

#[test]
fn classes_objects_traits_and_members() {
    check(
        render_symbols,
        expect![[r#"
            src/main/scala/com/acme/shop/model/Item.scala (module com.acme.shop.model, 0 parse errors)
              trait com.acme.shop.model.Priced [6-9] `sealed trait Priced` doc: Something with a price, in cents.
                method com.acme.shop.model.Priced.price [7-7] `def price: Long`
                method com.acme.shop.model.Priced.discounted [8-8] `def discounted(percent: Int): Long`
              class com.acme.shop.model.Item [12-15] `final case class Item(sku: String, price: Long) extends Priced` doc: An item.
                field com.acme.shop.model.Item.sku [12-12] `sku: String`
                field com.acme.shop.model.Item.price [12-12] `price: Long`
                field com.acme.shop.model.Item.addedAt [13-13] `val addedAt: Instant = Instant.now()`
                method com.acme.shop.model.Item.toString [14-14] `override def toString: String`
                field com.acme.shop.model.Item.Free [18-18] `val Free: Item = Item("free", 0L)`
                method com.acme.shop.model.Item.parse [19-22] `def parse(line: String): Option[Item]`
              enum com.acme.shop.model.Category [25-28] `enum Category(val label: String)`
                field com.acme.shop.model.Category.label [25-25] `val label: String`
                constant com.acme.shop.model.Category.Food [26-26] `Food extends Category("food")`
                constant com.acme.shop.model.Category.Tools [27-27] `Tools extends Category("tools")`
            src/main/scala/com/acme/shop/package.scala (module com.acme, 0 parse errors)
              module com.acme.shop [3-6] `package object shop`
                class com.acme.shop.Cents [4-4] `type Cents = Long`
                function com.acme.shop.format [5-5] `def format(cents: Cents): String`
            src/main/scala/com/acme/shop/Cart.scala (module com.acme.shop, 0 parse errors)
              class com.acme.shop.Cart [8-27] `class Cart(val owner: String, capacity: Int) extends AutoCloseable wit…` doc: A cart.
                field com.acme.shop.Cart.owner [8-8] `val owner: String`
                field com.acme.shop.Cart.items [9-9] `private val items = mutable.ArrayBuffer.empty[Item]`
                field com.acme.shop.Cart.discount [10-10] `var discount: Int = 0`
                constructor com.acme.shop.Cart.this [12-12] `def this(owner: String)`
                method com.acme.shop.Cart.add [14-22] `def add(item: Item): Boolean`
                method com.acme.shop.Cart.total [22-22] `def total: Cents`
                method com.acme.shop.Cart.iterator [24-24] `def iterator: Iterator[Item]`
                method com.acme.shop.Cart.close [26-26] `override def close(): Unit`
                field com.acme.shop.Cart.MaxItems [30-30] `final val MaxItems = 50`
                method com.acme.shop.Cart.guest [31-31] `def guest(): Cart`
            src/main/scala/com/acme/shop/Main.scala (module com.acme.shop, 0 parse errors)
              function com.acme.shop.isEmpty [6-6] `def isEmpty: Boolean`
              function com.acme.shop.run [8-12] `@main def run(): Unit`
        "#]],
    );
}

#[test]
fn calls_constructions_imports_and_supertypes() {
    check(
        render_references,
        expect![[r#"
            src/main/scala/com/acme/shop/model/Item.scala
              3:8 import java.time :: Instant in <module>
              12:57 inherit Priced in Item
              13:34 call Instant :: now in Item.addedAt
              18:20 instantiate Item in Item.Free
              19:48 call line :: split in Item.parse
              20:31 instantiate Some in Item.parse
              20:36 instantiate Item in Item.parse
              20:52 field_use price :: toLong in Item.parse
              26:21 inherit Category in Category.Food
              27:22 inherit Category in Category.Tools
            src/main/scala/com/acme/shop/package.scala
            src/main/scala/com/acme/shop/Cart.scala
              3:8 import scala.collection :: mutable in <module>
              4:29 import com.acme.shop.model :: Item in <module>
              4:35 import com.acme.shop.model :: Priced as P in <module>
              5:8 import com.acme.log :: * in <module>
              8:54 inherit AutoCloseable in Cart
              8:73 inherit Iterable in Cart
              9:31 field_use mutable :: ArrayBuffer in Cart.items
              9:43 field_use mutable.ArrayBuffer :: empty in Cart.items
              12:46 field_use Cart :: MaxItems in Cart.this
              15:15 field_use items :: size in Cart.add
              18:14 call Logger :: info in Cart.add
              18:34 field_use item :: sku in Cart.add
              22:28 call items :: map in Cart.total
              22:34 call _ :: discounted in Cart.total
              22:56 field_use items.map() :: sum in Cart.total
              24:40 field_use items :: iterator in Cart.iterator
              26:38 call items :: clear in Cart.close
              31:27 instantiate Cart in Cart.guest
            src/main/scala/com/acme/shop/Main.scala
              3:8 import com.acme.shop.model :: Item in <module>
              6:31 field_use cart :: total in isEmpty
              9:19 call Cart :: guest in run
              10:8 call cart :: add in run
              10:12 instantiate Item in run
              11:3 call println in run
              11:11 call format in run
              11:23 field_use cart :: total in run
        "#]],
    );
}

#[test]
fn type_facts_for_receiver_inference() {
    check(
        render_types,
        expect![[r#"
            src/main/scala/com/acme/shop/model/Item.scala
              Priced.price -> Long
              Priced.discounted -> Long
              Item.toString -> String
              Item.parse -> Option[Item]
              8: percent : Int (in Priced.discounted)
              12: sku : String (in Item)
              12: price : Long (in Item)
              13: addedAt : Instant (in Item)
              18: Free : Item (in Item)
              19: line : String (in Item.parse)
              25: label : String (in Category)
            src/main/scala/com/acme/shop/package.scala
              shop.format -> String
              5: cents : Cents (in shop.format)
            src/main/scala/com/acme/shop/Cart.scala
              Cart.add -> Boolean
              Cart.total -> Cents
              Cart.iterator -> Iterator[Item]
              Cart.close -> Unit
              Cart.guest -> Cart
              8: owner : String (in Cart)
              8: capacity : Int (in Cart)
              10: discount : Int (in Cart)
              12: owner : String (in Cart.this)
              14: item : Item (in Cart.add)
            src/main/scala/com/acme/shop/Main.scala
              isEmpty -> Boolean
              run -> Unit
              5: cart : Cart (in )
              9: cart = call Cart.guest (in run)
        "#]],
    );
}

#[test]
fn chunks_follow_definitions() {
    check(
        |f| render_chunks(f, ChunkBudget::default()),
        expect![[r#"
            src/main/scala/com/acme/shop/model/Item.scala
              1-28 com.acme.shop.model.Priced | class - | fn -
            src/main/scala/com/acme/shop/package.scala
              1-7 com.acme.shop | class - | fn -
            src/main/scala/com/acme/shop/Cart.scala
              1-33 com.acme.shop.Cart | class - | fn -
            src/main/scala/com/acme/shop/Main.scala
              1-12 com.acme.shop.isEmpty | class - | fn -
        "#]],
    );
}
