mod common;

use common::{render_chunks, render_references, render_symbols, render_types};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

fn check_symbols(fixture: &str, expect: Expect) {
    expect.assert_eq(&render_symbols(fixture));
}

fn check_refs(fixture: &str, expect: Expect) {
    expect.assert_eq(&render_references(fixture));
}

fn check_types(fixture: &str, expect: Expect) {
    expect.assert_eq(&render_types(fixture));
}

fn check_chunks(fixture: &str, budget: ChunkBudget, expect: Expect) {
    expect.assert_eq(&render_chunks(fixture, budget));
}

#[test]
fn classes_fields_constructors_and_nesting() {
    check_symbols(
        r#"
//- src/main/java/com/acme/shop/Cart.java
package com.acme.shop;

import java.util.List;

/**
 * A shopping cart.
 */
public class Cart<T extends Item> extends Base implements Iterable<T> {
    /** Most items in a cart. */
    public static final int MAX_ITEMS = 50;
    static final String NAME = "cart", OTHER = "x";
    private final List<T> items;
    protected int count, total;
    static int instances;

    // Makes an empty cart.
    public Cart() {
        this(10);
    }

    Cart(int capacity) {
        super(capacity);
    }

    public <R> R fold(R initial, java.util.function.BiFunction<R, T, R> f) {
        return initial;
    }

    /** An entry of the cart. */
    static class Entry {
        private int quantity;

        class Deeper {
            void touch() {}
        }
    }

    private enum State {
        OPEN, CLOSED;

        State() {}

        boolean isOpen() { return this == OPEN; }
    }
}
"#,
        expect![[r#"
            src/main/java/com/acme/shop/Cart.java (module com.acme.shop, 0 parse errors)
              class com.acme.shop.Cart [8-45] `public class Cart<T extends Item> extends Base implements Iterable<T>` doc: A shopping cart.
                constant com.acme.shop.Cart.MAX_ITEMS [10-10] `public static final int MAX_ITEMS = 50` doc: Most items in a cart.
                constant com.acme.shop.Cart.NAME [11-11] `static final String NAME = "cart", OTHER = "x"`
                field com.acme.shop.Cart.items [12-12] `private final List<T> items`
                field com.acme.shop.Cart.count [13-13] `protected int count, total`
                field com.acme.shop.Cart.instances [14-14] `static int instances`
                constructor com.acme.shop.Cart.Cart [17-19] `public Cart()` doc: Makes an empty cart.
                constructor com.acme.shop.Cart.Cart [21-23] `Cart(int capacity)`
                method com.acme.shop.Cart.fold [25-27] `public <R> R fold(R initial, java.util.function.BiFunction<R, T, R> f)`
                class com.acme.shop.Cart.Entry [30-36] `static class Entry` doc: An entry of the cart.
                  field com.acme.shop.Cart.Entry.quantity [31-31] `private int quantity`
                  class com.acme.shop.Cart.Entry.Deeper [33-35] `class Deeper`
                    method com.acme.shop.Cart.Entry.Deeper.touch [34-34] `void touch()`
                enum com.acme.shop.Cart.State [38-44] `private enum State`
                  constant com.acme.shop.Cart.State.OPEN [39-39] `OPEN`
                  constant com.acme.shop.Cart.State.CLOSED [39-39] `CLOSED`
                  constructor com.acme.shop.Cart.State.State [41-41] `State()`
                  method com.acme.shop.Cart.State.isOpen [43-43] `boolean isOpen()`
        "#]],
    );
}

#[test]
fn interfaces_enums_records_and_annotations() {
    check_symbols(
        r#"
//- com/acme/api/Api.java
package com.acme.api;

/** A service. */
@FunctionalInterface
public interface Service<I, O> extends AutoCloseable {
    int TIMEOUT = 30;

    O call(I input);

    default void close() {}
}

public enum Level implements Comparable<Level> {
    /** Lowest. */
    LOW(1),
    HIGH(2) {
        @Override int weight() { return 9; }
    };

    private final int value;

    Level(int value) { this.value = value; }

    int weight() { return value; }
}

public record Point(int x, int y) {
    public Point {
        if (x < 0) throw new IllegalArgumentException();
    }

    static Point origin() { return new Point(0, 0); }
}

public @interface Audit {
    String value() default "";
    int level() default 1;
}

class Handlers {
    @Inject
    private Repository repository;

    @Deprecated
    @SuppressWarnings({"unchecked", "rawtypes"})
    void handle(String s) {}
    void handle(int i) {}
    void handle(String s, int i) {}

    Runnable task = () -> System.out.println("run");

    void register() {
        Runnable r = new Runnable() {
            @Override
            public void run() {}
        };
        java.util.function.Function<Integer, Integer> twice = x -> x * 2;
    }
}
"#,
        expect![[r#"
            com/acme/api/Api.java (module com.acme.api, 0 parse errors)
              interface com.acme.api.Service [4-11] `@FunctionalInterface public interface Service<I, O> extends AutoClosea…` doc: A service.
                constant com.acme.api.Service.TIMEOUT [6-6] `int TIMEOUT = 30`
                method com.acme.api.Service.call [8-8] `O call(I input)`
                method com.acme.api.Service.close [10-10] `default void close()`
              enum com.acme.api.Level [13-25] `public enum Level implements Comparable<Level>`
                constant com.acme.api.Level.LOW [15-15] `LOW(1)` doc: Lowest.
                constant com.acme.api.Level.HIGH [16-18] `HIGH(2)`
                  method com.acme.api.Level.HIGH.weight [17-17] `@Override int weight()`
                field com.acme.api.Level.value [20-20] `private final int value`
                constructor com.acme.api.Level.Level [22-22] `Level(int value)`
                method com.acme.api.Level.weight [24-24] `int weight()`
              class com.acme.api.Point [27-33] `public record Point(int x, int y)`
                constructor com.acme.api.Point.Point [28-30] `public Point`
                method com.acme.api.Point.origin [32-32] `static Point origin()`
              interface com.acme.api.Audit [35-38] `public @interface Audit`
                method com.acme.api.Audit.value [36-36] `String value() default ""`
                method com.acme.api.Audit.level [37-37] `int level() default 1`
              class com.acme.api.Handlers [40-59] `class Handlers`
                field com.acme.api.Handlers.repository [41-42] `@Inject`
                method com.acme.api.Handlers.handle [44-46] `@Deprecated @SuppressWarnings({"unchecked", "rawtypes"}) void handle(S…`
                method com.acme.api.Handlers.handle [47-47] `void handle(int i)`
                method com.acme.api.Handlers.handle [48-48] `void handle(String s, int i)`
                field com.acme.api.Handlers.task [50-50] `Runnable task = () -> System.out.println("run")`
                method com.acme.api.Handlers.register [52-58] `void register()`
                  method com.acme.api.Handlers.register.run [54-55] `@Override public void run()`
        "#]],
    );
}

#[test]
fn default_package_and_syntax_errors() {
    check_symbols(
        r#"
//- Main.java
public class Main {
    public static void main(String[] args) {
        System.out.println("hi");
    }
}

//- broken/Broken.java
package broken;

class Good {
    void fine() {}
}

class Bad {
    void half( {
    }

    int after() { return 1; }
}
"#,
        expect![[r#"
            Main.java (module Main, 0 parse errors)
              class Main [1-5] `public class Main`
                method Main.main [2-4] `public static void main(String[] args)`
            broken/Broken.java (module broken, 1 parse errors)
              class broken.Good [3-5] `class Good`
                method broken.Good.fine [4-4] `void fine()`
              class broken.Bad [7-12] `class Bad`
                method broken.Bad.half [8-9] `void half(`
                method broken.Bad.after [11-11] `int after()`
        "#]],
    );
}

#[test]
fn references() {
    check_refs(
        r#"
//- src/com/acme/app/App.java
package com.acme.app;

import java.util.List;
import java.util.*;
import static org.junit.Assert.assertEquals;
import com.acme.shop.Cart;

public class App extends BaseApp<Config> implements Runnable, java.io.Serializable {
    private final Cart<String> cart = new Cart<>();

    @Override
    public void run() {
        List<String> names = new ArrayList<String>();
        this.cart.add("x");
        cart.items.size();
        helper(names.stream().map(n -> n.trim()).count());
        System.out.println(Util.format(this.total));
        new java.io.File("a").delete();
    }
}

interface Store extends Readable<String>, com.acme.Writable {}
"#,
        expect![[r#"
            src/com/acme/app/App.java
              3:18 import java.util :: List in <module>
              4:18 import java.util :: * in <module>
              5:32 import org.junit.Assert :: assertEquals in <module>
              6:22 import com.acme.shop :: Cart in <module>
              8:26 inherit BaseApp in App
              8:53 inherit Runnable in App
              8:63 inherit java.io :: Serializable in App
              9:43 instantiate Cart in App.cart
              13:34 instantiate ArrayList in App.run
              14:14 field_use this :: cart in App.run
              14:19 call this.cart :: add in App.run
              15:14 field_use cart :: items in App.run
              15:20 call cart.items :: size in App.run
              16:9 call helper in App.run
              16:22 call names :: stream in App.run
              16:31 call names.stream() :: map in App.run
              16:42 call n :: trim in App.run
              16:50 call names.stream().map() :: count in App.run
              17:16 field_use System :: out in App.run
              17:20 call System.out :: println in App.run
              17:33 call Util :: format in App.run
              17:45 field_use this :: total in App.run
              18:13 instantiate java.io :: File in App.run
              18:31 call new java.io.File() :: delete in App.run
              22:25 inherit Readable in Store
              22:43 inherit com.acme :: Writable in Store
        "#]],
    );
}

#[test]
fn chunks_keep_definitions_whole_and_split_big_ones() {
    let small = ChunkBudget { max_chars: 400, max_lines: 8, overlap_lines: 2 };
    check_chunks(
        r#"
//- Big.java
package big;

/** A big class. */
public class Big {
    int one() {
        return 1;
    }

    // comment about two
    int two() {
        int a = 1;
        int b = 2;
        int c = 3;
        int d = 4;
        int e = 5;
        int f = 6;
        return a + b + c + d + e + f;
    }
}

class Tail {}
"#,
        small,
        expect![[r#"
            Big.java
              1-1 big | class - | fn -
              3-7 big.Big | class - | fn -
              9-16 big.Big.two | class in Big[4-19] | fn after one[5-7]
              17-19 big.Big | class in Big[4-19] | fn in two[10-18]
              21-21 big.Tail | class in Tail[21-21] | fn after two[10-18]
        "#]],
    );
}

#[test]
fn type_facts_for_receiver_inference() {
    check_types(
        r#"
//- src/main/java/com/example/net/Client.java
package com.example.net;

import java.util.List;

public class Client {
    private static final int RETRIES = 3;
    private final Session session;
    private Pool pool, spare;
    private List<Connection> open = new ArrayList<>();
    private byte[] buffer, scratch[];

    public Client(Session session, int retries) {
        this.session = session;
        this.pool = Pools.create(retries);
        this.spare = new Pool();
    }

    public Connection open(String url) throws IOException {
        Connection conn = pool.connect(url);
        var lock = new Lock();
        var tracker = createTracker();
        var cached = cache.get(url);
        for (Entry e : entries) {
            e.touch();
        }
        try (Reader reader = conn.reader()) {
            reader.read();
        }
        return conn;
    }

    public static <T> List<T> all(final Map<String, T> items, String... keys) {
        return null;
    }

    void run(String args[]) {}
}

interface Store {
    Entry DEFAULT = new Entry();

    Entry get(String key);
}
"#,
        expect![[r#"
            src/main/java/com/example/net/Client.java
              Client.open -> Connection
              Client.all -> List<T>
              Client.run -> void
              Store.get -> Entry
              6: RETRIES : int (in Client)
              7: session : Session (in Client)
              8: pool : Pool (in Client)
              8: spare : Pool (in Client)
              9: open : List<Connection> (in Client)
              10: buffer : byte[] (in Client)
              12: session : Session (in Client.Client)
              12: retries : int (in Client.Client)
              13: this.session = name session (in Client.Client)
              15: this.spare : Pool (in Client.Client)
              18: url : String (in Client.open)
              19: conn : Connection (in Client.open)
              20: lock : Lock (in Client.open)
              21: tracker = call createTracker (in Client.open)
              23: e : Entry (in Client.open)
              26: reader : Reader (in Client.open)
              32: items : Map<String, T> (in Client.all)
              40: DEFAULT : Entry (in Store)
              42: key : String (in Store.get)
        "#]],
    );
}
