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
fn file_scoped_namespace_classes_members_and_nesting() {
    check_symbols(
        r#"
//- src/Shop/Cart.cs
using System;

namespace Acme.Shop;

/// <summary>
/// A shopping cart.
/// </summary>
[Serializable]
public sealed class Cart<T> : Base, IDisposable where T : IItem
{
    /// <summary>Most items in a cart.</summary>
    public const int MaxItems = 50;
    private static readonly string Name = "cart";
    private int count, total;

    public int Count { get; private set; } = 0;
    public string Title => Name;
    public event EventHandler Changed;

    // Makes an empty cart.
    public Cart() : this(10) { }

    public Cart(int capacity) : base(capacity) { }

    public TResult Fold<TResult>(TResult seed, Func<TResult, T, TResult> f) => seed;

    public void Dispose() { }

    private class Entry
    {
        public int Quantity;

        internal struct Key { public int Id; }
    }

    private enum State { Open = 1, Closed }
}
"#,
        expect![[r#"
            src/Shop/Cart.cs (module Acme.Shop, 0 parse errors)
              class Acme.Shop.Cart [8-37] `[Serializable] public sealed class Cart<T> : Base, IDisposable where T…` doc: <summary>⏎A shopping cart.⏎</summary>
                constant Acme.Shop.Cart.MaxItems [12-12] `public const int MaxItems = 50` doc: <summary>Most items in a cart.</summary>
                field Acme.Shop.Cart.Name [13-13] `private static readonly string Name = "cart"`
                field Acme.Shop.Cart.count [14-14] `private int count, total`
                field Acme.Shop.Cart.Count [16-16] `public int Count`
                field Acme.Shop.Cart.Title [17-17] `public string Title => Name`
                field Acme.Shop.Cart.Changed [18-18] `public event EventHandler Changed`
                constructor Acme.Shop.Cart.Cart [21-21] `public Cart() : this(10)` doc: Makes an empty cart.
                constructor Acme.Shop.Cart.Cart [23-23] `public Cart(int capacity) : base(capacity)`
                method Acme.Shop.Cart.Fold [25-25] `public TResult Fold<TResult>(TResult seed, Func<TResult, T, TResult> f…`
                method Acme.Shop.Cart.Dispose [27-27] `public void Dispose()`
                class Acme.Shop.Cart.Entry [29-34] `private class Entry`
                  field Acme.Shop.Cart.Entry.Quantity [31-31] `public int Quantity`
                  struct Acme.Shop.Cart.Entry.Key [33-33] `internal struct Key`
                    field Acme.Shop.Cart.Entry.Key.Id [33-33] `public int Id`
                enum Acme.Shop.Cart.State [36-36] `private enum State`
                  constant Acme.Shop.Cart.State.Open [36-36] `Open = 1`
                  constant Acme.Shop.Cart.State.Closed [36-36] `Closed`
        "#]],
    );
}

#[test]
fn block_namespaces_interfaces_records_attributes_and_overloads() {
    check_symbols(
        r#"
//- Api/Service.cs
namespace Acme.Api
{
    /// <summary>A service.</summary>
    public interface IService<in TIn, out TOut> : IDisposable
    {
        TOut Call(TIn input);
        int Timeout { get; }
    }

    namespace Models
    {
        public record Point(int X, int Y);
        public readonly struct Size { public int W; }
    }

    public class Handlers
    {
        [Obsolete("use the other")]
        [HttpGet("/items/{id}")]
        public void Handle(string s) { }
        public void Handle(int i) { }
        public void Handle(string s, int i) { }

        public Func<int, int> Twice = x => x * 2;

        public int Register()
        {
            Action log = () => Console.WriteLine("registered");
            int Local(int z) => z + 1;
            return Local(1);
        }
    }
}

namespace Other { class Plain { } }
"#,
        expect![[r#"
            Api/Service.cs (module Api/Service, 0 parse errors)
              interface Acme.Api.IService [4-8] `public interface IService<in TIn, out TOut> : IDisposable` doc: <summary>A service.</summary>
                method Acme.Api.IService.Call [6-6] `TOut Call(TIn input)`
                field Acme.Api.IService.Timeout [7-7] `int Timeout`
              class Acme.Api.Models.Point [12-12] `public record Point(int X, int Y)`
              struct Acme.Api.Models.Size [13-13] `public readonly struct Size`
                field Acme.Api.Models.Size.W [13-13] `public int W`
              class Acme.Api.Handlers [16-32] `public class Handlers`
                method Acme.Api.Handlers.Handle [18-20] `[Obsolete("use the other")] [HttpGet("/items/{id}")] public void Handl…`
                method Acme.Api.Handlers.Handle [21-21] `public void Handle(int i)`
                method Acme.Api.Handlers.Handle [22-22] `public void Handle(string s, int i)`
                field Acme.Api.Handlers.Twice [24-24] `public Func<int, int> Twice = x => x * 2`
                method Acme.Api.Handlers.Register [26-31] `public int Register()`
                  function Acme.Api.Handlers.Register.Local [29-29] `int Local(int z)`
              class Other.Plain [35-35] `class Plain`
        "#]],
    );
}

#[test]
fn syntax_errors_keep_what_was_recovered() {
    check_symbols(
        r#"
//- Broken.cs
class Good
{
    void Fine() { }
}

class Bad
{
    void Half( {
    }

    int After() { return 1; }
}
"#,
        expect![[r#"
            Broken.cs (module Broken, 1 parse errors)
              class Good [1-4] `class Good`
                method Good.Fine [3-3] `void Fine()`
              class Bad [6-12] `class Bad`
                field Bad.Half [8-9] `void Half(`
                method Bad.After [11-11] `int After()`
        "#]],
    );
}

#[test]
fn references() {
    check_refs(
        r#"
//- App/Program.cs
using System;
using System.Collections.Generic;
using static System.Math;
using Json = Newtonsoft.Json.JsonConvert;

namespace Acme.App;

public class Program : BaseApp<Config>, IRunnable, Acme.Core.IService
{
    private readonly List<string> names = new List<string>();

    public void Run()
    {
        var cart = new Shop.Cart<int>(10);
        this.names.Add("x");
        cart.Items.Clear();
        Helper(names.Count);
        Console.WriteLine(Json.SerializeObject(this.total));
        cart?.Dispose();
        var point = new Point { X = 1 };
        Items.Where(i => i.Active).Select<Item, int>(i => i.Id);
    }
}
"#,
        expect![[r#"
            App/Program.cs
              1:7 import System in <module>
              2:7 import System.Collections.Generic in <module>
              3:14 import System.Math in <module>
              4:14 import Newtonsoft.Json.JsonConvert as Json in <module>
              8:24 inherit BaseApp in Program
              8:41 inherit IRunnable in Program
              8:62 inherit Acme.Core :: IService in Program
              10:47 instantiate List in Program.names
              14:29 instantiate Shop :: Cart in Program.Run
              15:14 field_use this :: names in Program.Run
              15:20 call this.names :: Add in Program.Run
              16:14 field_use cart :: Items in Program.Run
              16:20 call cart.Items :: Clear in Program.Run
              17:9 call Helper in Program.Run
              17:22 field_use names :: Count in Program.Run
              18:17 call Console :: WriteLine in Program.Run
              18:32 call Json :: SerializeObject in Program.Run
              18:53 field_use this :: total in Program.Run
              19:15 call cart :: Dispose in Program.Run
              20:25 instantiate Point in Program.Run
              21:15 call Items :: Where in Program.Run
              21:28 field_use i :: Active in Program.Run
              21:36 call Items.Where() :: Select in Program.Run
              21:61 field_use i :: Id in Program.Run
        "#]],
    );
}

#[test]
fn chunks_keep_definitions_whole_and_split_big_ones() {
    let small = ChunkBudget { max_chars: 400, max_lines: 8, overlap_lines: 2 };
    check_chunks(
        r#"
//- Big.cs
namespace Big;

/// A big class.
public class Big
{
    int One()
    {
        return 1;
    }

    // comment about two
    int Two()
    {
        int a = 1, b = 2, c = 3;
        int d = 4, e = 5, f = 6;
        return a + b + c + d + e + f;
    }
}

class Tail { }
"#,
        small,
        expect![[r#"
            Big.cs
              1-1 Big | class - | fn -
              3-9 Big.Big | class - | fn -
              11-18 Big.Big | class in Big[4-18] | fn after One[6-9]
              20-20 Big.Tail | class in Tail[20-20] | fn after Two[12-17]
        "#]],
    );
}

#[test]
fn type_facts_for_receiver_inference() {
    check_types(
        r#"
//- src/Net/Client.cs
using System.Collections.Generic;

namespace Example.Net
{
    public class Client
    {
        private readonly Session _session;
        private Pool _pool, _spare;
        public int Retries { get; set; }
        public Pool Primary => _pool;
        private List<Connection> _open = new List<Connection>();
        private static readonly Registry Shared = new();

        public Client(Session session, int retries = 3)
        {
            this._session = session;
            this._pool = Pools.Create(retries);
            this._spare = new Pool();
        }

        public async Task<Connection> Open(string url, ref int attempts, params string[] tags)
        {
            Connection conn = _pool.Connect(url);
            var lockObj = new Lock();
            var tracker = CreateTracker();
            var cached = Cache.Get(url);
            Pool p = new(), q = null;
            foreach (Entry e in entries) { }
            using var reader = new StreamReader(url);
            if (conn is SecureConnection secure && _cache.TryGet(url, out Entry hit)) { }
            Stats Local(Entry x) => new Stats(x);
            return conn;
        }

        void Run() { }

        public delegate void Closed(Connection conn);
    }

    interface IStore
    {
        Entry Get(string key);
    }
}
"#,
        expect![[r#"
            src/Net/Client.cs
              Example.Net.Client.Open -> Task<Connection>
              Example.Net.Client.Open.Local -> Stats
              Example.Net.Client.Run -> void
              Example.Net.IStore.Get -> Entry
              7: _session : Session (in Example.Net.Client)
              8: _pool : Pool (in Example.Net.Client)
              8: _spare : Pool (in Example.Net.Client)
              9: Retries : int (in Example.Net.Client)
              10: Primary : Pool (in Example.Net.Client)
              11: _open : List<Connection> (in Example.Net.Client)
              12: Shared : Registry (in Example.Net.Client)
              14: session : Session (in Example.Net.Client.Client)
              14: retries : int (in Example.Net.Client.Client)
              16: this._session = name session (in Example.Net.Client.Client)
              17: this._pool = call Pools.Create (in Example.Net.Client.Client)
              18: this._spare : Pool (in Example.Net.Client.Client)
              21: url : string (in Example.Net.Client.Open)
              21: attempts : int (in Example.Net.Client.Open)
              23: conn : Connection (in Example.Net.Client.Open)
              24: lockObj : Lock (in Example.Net.Client.Open)
              25: tracker = call CreateTracker (in Example.Net.Client.Open)
              26: cached = call Cache.Get (in Example.Net.Client.Open)
              27: p : Pool (in Example.Net.Client.Open)
              27: q : Pool (in Example.Net.Client.Open)
              28: e : Entry (in Example.Net.Client.Open)
              29: reader : StreamReader (in Example.Net.Client.Open)
              30: secure : SecureConnection (in Example.Net.Client.Open)
              30: hit : Entry (in Example.Net.Client.Open)
              31: x : Entry (in Example.Net.Client.Open.Local)
              42: key : string (in Example.Net.IStore.Get)
        "#]],
    );
}
