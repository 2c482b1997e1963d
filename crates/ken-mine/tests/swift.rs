mod common;

use common::{render_chunks, render_references, render_symbols, render_types};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

const SOURCES: &str = r#"
//- Sources/Shop/Models/Item.swift
import Foundation

/// Something that has a price, in cents.
public protocol Priced {
    var price: Int { get }
    func discounted(by percent: Int) -> Int
}

extension Priced {
    /// The price after a discount.
    public func discounted(by percent: Int) -> Int {
        price * (100 - percent) / 100
    }
}

/// Where an item sits in the catalogue.
public enum Category: String, CaseIterable {
    case food, tools
    case other = "misc"

    var label: String { rawValue.capitalized }
}

/// One catalogue item.
public struct Item: Priced, Hashable {
    public let sku: String
    public let price: Int
    var category: Category = .food

    public init(sku: String, price: Int) {
        self.sku = sku
        self.price = price
    }
}
//- Sources/Shop/Cart.swift
import Foundation

let maxItems = 50

// A cart that keeps its items in order.
public final class Cart {
    private(set) var items: [Item] = []
    weak var delegate: CartDelegate?

    public init() {}

    @discardableResult
    public func add(_ item: Item) -> Bool {
        guard items.count < maxItems else { return false }
        items.append(item)
        delegate?.cartDidChange(self)
        return true
    }

    public var total: Int {
        items.reduce(0) { $0 + $1.discounted(by: 10) }
    }

    static func guest() -> Cart {
        Cart()
    }
}

public protocol CartDelegate: AnyObject {
    func cartDidChange(_ cart: Cart)
}

extension Cart: CustomStringConvertible {
    public var description: String { "Cart(\(items.count))" }

    func receipt() -> Receipt {
        Receipt(total: total)
    }
}

final class Receipt: NSObject {
    let total: Int

    init(total: Int) {
        self.total = total
        super.init()
    }
}
//- Sources/ShopApp/main.swift
import Shop

let cart = Cart.guest()
cart.add(Item(sku: "apple", price: 120))
print(cart.receipt().total, cart.items[0].sku)
"#;

fn check(render: fn(&str) -> String, expect: Expect) {
    expect.assert_eq(&render(SOURCES));
}

#[test]
fn protocols_types_extensions_and_members() {
    check(
        render_symbols,
        expect![[r#"
            Sources/Shop/Models/Item.swift (module Sources/Shop/Models/Item, 0 parse errors)
              interface Priced [4-7] `public protocol Priced` doc: Something that has a price, in cents.
                field Priced.price [5-5] `var price: Int { get }`
                method Priced.discounted [6-6] `func discounted(by percent: Int) -> Int`
                method Priced.discounted [11-13] `public func discounted(by percent: Int) -> Int` doc: The price after a discount.
              enum Category [17-22] `public enum Category: String, CaseIterable` doc: Where an item sits in the catalogue.
                constant Category.food [18-18] `food`
                constant Category.tools [18-18] `tools`
                constant Category.other [19-19] `case other = "misc"`
                field Category.label [21-21] `var label: String { rawValue.capitalized }`
              struct Item [25-34] `public struct Item: Priced, Hashable` doc: One catalogue item.
                field Item.sku [26-26] `public let sku: String`
                field Item.price [27-27] `public let price: Int`
                field Item.category [28-28] `var category: Category = .food`
                constructor Item.init [30-33] `public init(sku: String, price: Int)`
            Sources/Shop/Cart.swift (module Sources/Shop/Cart, 0 parse errors)
              constant maxItems [3-3] `let maxItems = 50`
              class Cart [6-27] `public final class Cart` doc: A cart that keeps its items in order.
                field Cart.items [7-7] `private(set) var items: [Item] = []`
                field Cart.delegate [8-8] `weak var delegate: CartDelegate?`
                constructor Cart.init [10-10] `public init()`
                method Cart.add [12-18] `@discardableResult public func add(_ item: Item) -> Bool`
                field Cart.total [20-22] `public var total: Int`
                method Cart.guest [24-26] `static func guest() -> Cart`
              interface CartDelegate [29-31] `public protocol CartDelegate: AnyObject`
                method CartDelegate.cartDidChange [30-30] `func cartDidChange(_ cart: Cart)`
                field Cart.description [34-34] `public var description: String { "Cart(\(items.count))" }`
                method Cart.receipt [36-38] `func receipt() -> Receipt`
              class Receipt [41-48] `final class Receipt: NSObject`
                field Receipt.total [42-42] `let total: Int`
                constructor Receipt.init [44-47] `init(total: Int)`
            Sources/ShopApp/main.swift (module Sources/ShopApp/main, 0 parse errors)
              constant cart [3-3] `let cart = Cart.guest()`
        "#]],
    );
}

#[test]
fn calls_constructions_imports_and_conformances() {
    check(
        render_references,
        expect![[r#"
            Sources/Shop/Models/Item.swift
              1:8 import Foundation in <module>
              17:23 inherit String in Category
              17:31 inherit CaseIterable in Category
              21:34 field_use rawValue :: capitalized in Category.label
              25:21 inherit Priced in Item
              25:29 inherit Hashable in Item
              31:14 field_use self :: sku in Item.init
              32:14 field_use self :: price in Item.init
            Sources/Shop/Cart.swift
              1:8 import Foundation in <module>
              14:21 field_use items :: count in Cart.add
              15:15 call items :: append in Cart.add
              16:19 call delegate :: cartDidChange in Cart.add
              21:15 call items :: reduce in Cart.total
              21:35 call $1 :: discounted in Cart.total
              25:9 instantiate Cart in Cart.guest
              29:31 inherit AnyObject in CartDelegate
              33:17 inherit CustomStringConvertible in Cart
              34:52 field_use items :: count in Cart.description
              37:9 instantiate Receipt in Cart.receipt
              41:22 inherit NSObject in Receipt
              45:14 field_use self :: total in Receipt.init
              46:15 call super :: init in Receipt.init
            Sources/ShopApp/main.swift
              1:8 import Shop in <module>
              3:17 call Cart :: guest in cart
              4:6 call cart :: add in <module>
              4:10 instantiate Item in <module>
              5:1 call print in <module>
              5:12 call cart :: receipt in <module>
              5:22 field_use cart.receipt() :: total in <module>
              5:34 field_use cart :: items in <module>
              5:43 field_use cart.items[0] :: sku in <module>
        "#]],
    );
}

#[test]
fn type_facts_for_receiver_inference() {
    check(
        render_types,
        expect![[r#"
        Sources/Shop/Models/Item.swift
          Priced.discounted -> Int
          Priced.discounted -> Int
          5: price : Int (in Priced)
          6: percent : Int (in Priced.discounted)
          11: percent : Int (in Priced.discounted)
          21: label : String (in Category)
          26: sku : String (in Item)
          27: price : Int (in Item)
          28: category : Category (in Item)
          30: sku : String (in Item.init)
          30: price : Int (in Item.init)
        Sources/Shop/Cart.swift
          Cart.add -> Bool
          Cart.guest -> Cart
          Cart.receipt -> Receipt
          8: delegate : CartDelegate? (in Cart)
          13: item : Item (in Cart.add)
          20: total : Int (in Cart)
          30: cart : Cart (in CartDelegate.cartDidChange)
          34: description : String (in Cart)
          42: total : Int (in Receipt)
          44: total : Int (in Receipt.init)
        Sources/ShopApp/main.swift
          3: cart = call Cart.guest (in )
    "#]],
    );
}

#[test]
fn chunks_follow_declarations() {
    check(
        |f| render_chunks(f, ChunkBudget::default()),
        expect![[r#"
        Sources/Shop/Models/Item.swift
          1-35 Priced | class - | fn -
        Sources/Shop/Cart.swift
          1-3 maxItems | class - | fn -
          5-27 Cart | class - | fn -
          29-39 CartDelegate | class in CartDelegate[29-31] | fn after guest[24-26]
          41-48 Receipt | class in Receipt[41-48] | fn after receipt[36-38]
        Sources/ShopApp/main.swift
          1-6 cart | class - | fn -
    "#]],
    );
}
