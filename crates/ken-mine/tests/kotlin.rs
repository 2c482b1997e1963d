mod common;

use common::{render_chunks, render_references, render_symbols, render_types};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

const SOURCES: &str = r#"
//- src/main/kotlin/com/acme/shop/model/Item.kt
package com.acme.shop.model

import java.math.BigDecimal

/** Prices are kept in cents. */
typealias Cents = Long

/** Where an item sits in the catalogue. */
enum class Category(val label: String) {
    FOOD("Food"),
    TOOLS("Tools");

    fun isEdible() = this == FOOD
}

/** Something that can be put in a cart. */
interface Priced {
    val price: Cents
    fun discounted(percent: Int): Cents = price * (100 - percent) / 100
}

fun interface PriceRule {
    fun apply(item: Item): Cents
}

/**
 * An item.
 */
data class Item(val sku: String, override val price: Cents) : Priced {
    var category: Category = Category.FOOD

    fun toDecimal(): BigDecimal = BigDecimal.valueOf(price, 2)
}

sealed class Outcome {
    data class Added(val item: Item) : Outcome()
    object Rejected : Outcome()
}
//- src/main/kotlin/com/acme/shop/Cart.kt
package com.acme.shop

import com.acme.shop.model.Item
import com.acme.shop.model.Outcome
import com.acme.shop.model.*
import com.acme.log.Logger as Log

const val MAX_ITEMS = 50

// A cart.
class Cart(private val owner: String, capacity: Int) : Iterable<Item>, AutoCloseable {
    private val items = ArrayList<Item>(capacity)
    var rules: List<PriceRule> = emptyList()

    init {
        Log.info("cart for $owner")
    }

    constructor(owner: String) : this(owner, MAX_ITEMS)

    fun add(item: Item): Outcome {
        if (items.size >= MAX_ITEMS) return Outcome.Rejected
        items.add(item)
        return Outcome.Added(item)
    }

    fun total(): Cents = items.sumOf { it.price } - rules.sumOf { rule -> items.sumOf { rule.apply(it) } }

    override fun iterator(): Iterator<Item> = items.iterator()

    override fun close() {
        if (!items.isEmpty()) items.clear()
        this.rules = emptyList()
    }

    private class Line(override val key: String, override val value: Item) : Map.Entry<String, Item>

    companion object {
        /** Builds a cart for a guest. */
        fun guest(): Cart = Cart("guest")
    }
}

object Checkout {
    fun pay(cart: Cart): Long {
        val receipt = Receipt(cart.total())
        return receipt.amount
    }
}

class Receipt(val amount: Long)

fun Cart.isEmpty(): Boolean = !iterator().hasNext()
//- src/main/kotlin/com/acme/shop/Main.kt
package com.acme.shop

import com.acme.shop.model.Item

fun main(args: Array<String>) {
    val cart = Cart.guest()
    cart.add(Item("apple", 120))
    println(Checkout.pay(cart))
}
"#;

fn check(render: fn(&str) -> String, expect: Expect) {
    expect.assert_eq(&render(SOURCES));
}

#[test]
fn classes_objects_interfaces_and_members() {
    check(
        render_symbols,
        expect![[r#"
            src/main/kotlin/com/acme/shop/model/Item.kt (module com.acme.shop.model, 0 parse errors)
              class com.acme.shop.model.Cents [6-6] `typealias Cents = Long` doc: Prices are kept in cents.
              enum com.acme.shop.model.Category [9-14] `enum class Category(val label: String)` doc: Where an item sits in the catalogue.
                field com.acme.shop.model.Category.label [9-9] `val label: String`
                constant com.acme.shop.model.Category.FOOD [10-10] `FOOD("Food")`
                constant com.acme.shop.model.Category.TOOLS [11-11] `TOOLS("Tools")`
                method com.acme.shop.model.Category.isEdible [13-13] `fun isEdible() = this == FOOD`
              interface com.acme.shop.model.Priced [17-20] `interface Priced` doc: Something that can be put in a cart.
                field com.acme.shop.model.Priced.price [18-18] `val price: Cents`
                method com.acme.shop.model.Priced.discounted [19-19] `fun discounted(percent: Int): Cents = price * (100 - percent) / 100`
              interface com.acme.shop.model.PriceRule [22-24] `fun interface PriceRule`
                method com.acme.shop.model.PriceRule.apply [23-23] `fun apply(item: Item): Cents`
              class com.acme.shop.model.Item [29-33] `data class Item(val sku: String, override val price: Cents) : Priced` doc: An item.
                field com.acme.shop.model.Item.sku [29-29] `val sku: String`
                field com.acme.shop.model.Item.price [29-29] `override val price: Cents`
                field com.acme.shop.model.Item.category [30-30] `var category: Category = Category.FOOD`
                method com.acme.shop.model.Item.toDecimal [32-32] `fun toDecimal(): BigDecimal = BigDecimal.valueOf(price, 2)`
              class com.acme.shop.model.Outcome [35-38] `sealed class Outcome`
                class com.acme.shop.model.Outcome.Added [36-36] `data class Added(val item: Item) : Outcome()`
                  field com.acme.shop.model.Outcome.Added.item [36-36] `val item: Item`
                class com.acme.shop.model.Outcome.Rejected [37-37] `object Rejected : Outcome()`
            src/main/kotlin/com/acme/shop/Cart.kt (module com.acme.shop, 0 parse errors)
              constant com.acme.shop.MAX_ITEMS [8-8] `const val MAX_ITEMS = 50`
              class com.acme.shop.Cart [11-42] `class Cart(private val owner: String, capacity: Int) : Iterable<Item>,…` doc: A cart.
                field com.acme.shop.Cart.owner [11-11] `private val owner: String`
                field com.acme.shop.Cart.items [12-12] `private val items = ArrayList<Item>(capacity)`
                field com.acme.shop.Cart.rules [13-13] `var rules: List<PriceRule> = emptyList()`
                constructor com.acme.shop.Cart.constructor [19-19] `constructor(owner: String) : this(owner, MAX_ITEMS)`
                method com.acme.shop.Cart.add [21-25] `fun add(item: Item): Outcome`
                method com.acme.shop.Cart.total [27-27] `fun total(): Cents = items.sumOf`
                method com.acme.shop.Cart.iterator [29-29] `override fun iterator(): Iterator<Item> = items.iterator()`
                method com.acme.shop.Cart.close [31-34] `override fun close()`
                class com.acme.shop.Cart.Line [36-36] `private class Line(override val key: String, override val value: Item)…`
                  field com.acme.shop.Cart.Line.key [36-36] `override val key: String`
                  field com.acme.shop.Cart.Line.value [36-36] `override val value: Item`
                method com.acme.shop.Cart.guest [40-40] `fun guest(): Cart = Cart("guest")` doc: Builds a cart for a guest.
              class com.acme.shop.Checkout [44-49] `object Checkout`
                method com.acme.shop.Checkout.pay [45-48] `fun pay(cart: Cart): Long`
              class com.acme.shop.Receipt [51-51] `class Receipt(val amount: Long)`
                field com.acme.shop.Receipt.amount [51-51] `val amount: Long`
              function com.acme.shop.isEmpty [53-53] `fun Cart.isEmpty(): Boolean = !iterator().hasNext()`
            src/main/kotlin/com/acme/shop/Main.kt (module com.acme.shop, 0 parse errors)
              function com.acme.shop.main [5-9] `fun main(args: Array<String>)`
        "#]],
    );
}

#[test]
fn calls_constructions_imports_and_supertypes() {
    check(
        render_references,
        expect![[r#"
            src/main/kotlin/com/acme/shop/model/Item.kt
              3:8 import java.math :: BigDecimal in <module>
              29:63 inherit Priced in Item
              30:39 field_use Category :: FOOD in Item.category
              32:46 call BigDecimal :: valueOf in Item.toDecimal
              36:40 inherit Outcome in Outcome.Added
              37:23 inherit Outcome in Outcome.Rejected
            src/main/kotlin/com/acme/shop/Cart.kt
              3:8 import com.acme.shop.model :: Item in <module>
              4:8 import com.acme.shop.model :: Outcome in <module>
              5:8 import com.acme.shop.model :: * in <module>
              6:8 import com.acme.log :: Logger as Log in <module>
              11:56 inherit Iterable in Cart
              11:72 inherit AutoCloseable in Cart
              13:34 call emptyList in Cart.rules
              16:13 call Log :: info in Cart
              22:19 field_use items :: size in Cart.add
              22:53 field_use Outcome :: Rejected in Cart.add
              23:15 call items :: add in Cart.add
              24:24 call Outcome :: Added in Cart.add
              27:32 call items :: sumOf in Cart.total
              27:43 field_use it :: price in Cart.total
              27:59 call rules :: sumOf in Cart.total
              27:81 call items :: sumOf in Cart.total
              27:94 call rule :: apply in Cart.total
              29:53 call items :: iterator in Cart.iterator
              32:20 call items :: isEmpty in Cart.close
              32:37 call items :: clear in Cart.close
              33:14 field_use this :: rules in Cart.close
              33:22 call emptyList in Cart.close
              36:78 inherit Map :: Entry in Cart.Line
              40:29 instantiate Cart in Cart.guest
              46:23 instantiate Receipt in Checkout.pay
              46:36 call cart :: total in Checkout.pay
              47:24 field_use receipt :: amount in Checkout.pay
              53:32 call iterator in isEmpty
              53:43 call !iterator() :: hasNext in isEmpty
            src/main/kotlin/com/acme/shop/Main.kt
              3:8 import com.acme.shop.model :: Item in <module>
              6:21 call Cart :: guest in main
              7:10 call cart :: add in main
              7:14 instantiate Item in main
              8:5 call println in main
              8:22 call Checkout :: pay in main
        "#]],
    );
}

#[test]
fn type_facts_for_receiver_inference() {
    check(
        render_types,
        expect![[r#"
            src/main/kotlin/com/acme/shop/model/Item.kt
              Priced.discounted -> Cents
              PriceRule.apply -> Cents
              Item.toDecimal -> BigDecimal
              9: label : String (in Category)
              18: price : Cents (in Priced)
              19: percent : Int (in Priced.discounted)
              23: item : Item (in PriceRule.apply)
              29: sku : String (in Item)
              29: price : Cents (in Item)
              30: category : Category (in Item)
              36: item : Item (in Outcome.Added)
            src/main/kotlin/com/acme/shop/Cart.kt
              Cart.add -> Outcome
              Cart.total -> Cents
              Cart.iterator -> Iterator<Item>
              Cart.guest -> Cart
              Checkout.pay -> Long
              isEmpty -> Boolean
              11: owner : String (in Cart)
              11: capacity : Int (in Cart)
              13: rules : List<PriceRule> (in Cart)
              19: owner : String (in Cart.constructor)
              21: item : Item (in Cart.add)
              36: key : String (in Cart.Line)
              36: value : Item (in Cart.Line)
              45: cart : Cart (in Checkout.pay)
              46: receipt = call Receipt (in Checkout.pay)
              51: amount : Long (in Receipt)
            src/main/kotlin/com/acme/shop/Main.kt
              5: args : Array<String> (in main)
              6: cart = call Cart.guest (in main)
        "#]],
    );
}

#[test]
fn chunks_follow_declarations() {
    check(
        |f| render_chunks(f, ChunkBudget::default()),
        expect![[r#"
            src/main/kotlin/com/acme/shop/model/Item.kt
              1-39 com.acme.shop.model.Cents | class - | fn -
            src/main/kotlin/com/acme/shop/Cart.kt
              1-8 com.acme.shop.MAX_ITEMS | class - | fn -
              10-42 com.acme.shop.Cart | class - | fn -
              44-49 com.acme.shop.Checkout | class in Checkout[44-49] | fn after guest[40-40]
              51-51 com.acme.shop.Receipt.amount | class in Receipt[51-51] | fn after pay[45-48]
              53-53 com.acme.shop.isEmpty | class after Receipt[51-51] | fn in isEmpty[53-53]
            src/main/kotlin/com/acme/shop/Main.kt
              1-10 com.acme.shop.main | class - | fn -
        "#]],
    );
}
