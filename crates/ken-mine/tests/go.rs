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
fn structs_interfaces_methods_and_constants() {
    check_symbols(
        r#"
//- geo/shapes.go
// Package shapes draws.
package shapes

// Max is the largest size.
const Max = 10

const (
	// Small is small.
	Small Size = iota
	Large
	Width, Height = 3, 4
)

// Size of a shape.
type Size int

// Shape is anything with an area.
type Shape interface {
	fmt.Stringer
	// Area in square units.
	Area() float64
}

// Point is a point.
type Point struct {
	X, Y int
	// Label names it.
	Label string `json:"label"`
	Base
	Meta struct {
		Tags []string
	}
}

type (
	Handler func(int) error
	Empty   struct{}
)

// NewPoint makes a point.
func NewPoint(x, y int) *Point {
	type local struct{ n int }
	return &Point{X: x, Y: y}
}

// Area computes.
func (p *Point) Area() float64 { return 0 }

func (Point) String() string { return "" }

func (s Size) Double() Size { return s * 2 }

func (u *Unknown) Orphan() {}

// Marker is a marker interface; its method is named like it.
type Marker interface{ Marker() }

func (Point) Marker() {}
"#,
        expect![[r#"
            geo/shapes.go (module geo, 0 parse errors)
              constant geo.Max [5-5] `const Max = 10` doc: Max is the largest size.
              constant geo.Small [9-9] `Small Size = iota` doc: Small is small.
              constant geo.Large [10-10] `Large`
              constant geo.Width [11-11] `Width`
              constant geo.Height [11-11] `Height`
              class geo.Size [15-15] `type Size int` doc: Size of a shape.
              interface geo.Shape [18-22] `type Shape interface` doc: Shape is anything with an area.
                method geo.Shape.Area [21-21] `Area() float64` doc: Area in square units.
              struct geo.Point [25-33] `type Point struct` doc: Point is a point.
                field geo.Point.X [26-26] `X`
                field geo.Point.Y [26-26] `Y`
                field geo.Point.Label [28-28] `Label string `json:"label"`` doc: Label names it.
                field geo.Point.Meta [30-32] `Meta struct`
                  field geo.Point.Meta.Tags [31-31] `Tags []string`
              class geo.Handler [36-36] `Handler func(int) error`
              struct geo.Empty [37-37] `Empty struct`
              function geo.NewPoint [41-44] `func NewPoint(x, y int) *Point` doc: NewPoint makes a point.
                struct geo.NewPoint.local [42-42] `type local struct`
                  field geo.NewPoint.local.n [42-42] `n int`
                method geo.Point.Area [47-47] `func (p *Point) Area() float64` doc: Area computes.
                method geo.Point.String [49-49] `func (Point) String() string`
                method geo.Size.Double [51-51] `func (s Size) Double() Size`
              method geo.Unknown.Orphan [53-53] `func (u *Unknown) Orphan()`
              interface geo.Marker [56-56] `type Marker interface` doc: Marker is a marker interface; its method is named …
                method geo.Marker.Marker [56-56] `Marker()`
                method geo.Point.Marker [58-58] `func (Point) Marker()`
        "#]],
    );
}

#[test]
fn generics_and_function_literals() {
    check_symbols(
        r#"
//- list.go
package list

// List holds items.
type List[T any] struct {
	items []T
}

// Push appends.
func (l *List[T]) Push(v T) { l.items = append(l.items, v) }

func (l List[T]) Len() int { return len(l.items) }

// Map maps.
func Map[T, U any](xs []T, f func(T) U) []U { return nil }

// Number is a constraint.
type Number interface {
	~int | ~float64
}

// handler handles.
var handler = func(x int) int { return x }

var (
	before = func() {}
	count  int
)

func main() {
	f := func() {}
	f()
}
"#,
        expect![[r#"
            list.go (module list, 0 parse errors)
              struct list.List [4-6] `type List[T any] struct` doc: List holds items.
                field list.List.items [5-5] `items []T`
                method list.List.Push [9-9] `func (l *List[T]) Push(v T)` doc: Push appends.
                method list.List.Len [11-11] `func (l List[T]) Len() int`
              function list.Map [14-14] `func Map[T, U any](xs []T, f func(T) U) []U` doc: Map maps.
              interface list.Number [17-19] `type Number interface` doc: Number is a constraint.
              function list.handler [22-22] `var handler = func(x int) int` doc: handler handles.
              function list.before [25-25] `before = func()`
              function list.main [29-32] `func main()`
        "#]],
    );
}

#[test]
fn no_package_clause_and_syntax_errors() {
    check_symbols(
        r#"
//- cmd/tool/main.go
func ok() {}

func broken( {
}

type After struct { A int }
"#,
        expect![[r#"
            cmd/tool/main.go (module cmd/tool/main, 1 parse errors)
              function ok [1-1] `func ok()`
              function broken [3-4] `func broken(`
              struct After [6-6] `type After struct`
                field After.A [6-6] `A int`
        "#]],
    );
}

#[test]
fn references() {
    check_refs(
        r#"
//- server/server.go
package server

import (
	"fmt"
	m "math"
	. "strings"
	_ "embed"
	"github.com/acme/store"
)
import "os"

type Server struct {
	Base
	*store.Conn
	name string
}

type Handler interface {
	io.Reader
	Closer
	Serve()
}

func (s *Server) Start() error {
	p := Point{X: 1}
	c := &store.Client{Name: s.name}
	l := List[int]{}
	fmt.Println(p.X, c, l)
	s.Base.Run()
	s.conn().Close()
	out := Map[int, string](nil, nil)
	one := Apply[int](out)
	_ = m.Sqrt(2)
	return run(os.Args)
}
"#,
        expect![[r#"
            server/server.go
              4:2 import fmt in <module>
              5:4 import math as m in <module>
              6:4 import strings as . in <module>
              7:4 import embed as _ in <module>
              8:2 import github.com/acme/store in <module>
              10:8 import os in <module>
              13:2 inherit Base in Server
              14:9 inherit store :: Conn in Server
              19:5 inherit io :: Reader in Handler
              20:2 inherit Closer in Handler
              25:7 instantiate Point in Server.Start
              26:14 instantiate store :: Client in Server.Start
              26:29 field_use s :: name in Server.Start
              27:7 instantiate List in Server.Start
              28:6 call fmt :: Println in Server.Start
              28:16 field_use p :: X in Server.Start
              29:4 field_use s :: Base in Server.Start
              29:9 call s.Base :: Run in Server.Start
              30:4 call s :: conn in Server.Start
              30:11 call s.conn() :: Close in Server.Start
              31:9 call Map in Server.Start
              32:9 call Apply in Server.Start
              33:8 call m :: Sqrt in Server.Start
              34:9 call run in Server.Start
              34:16 field_use os :: Args in Server.Start
        "#]],
    );
}

#[test]
fn chunks_keep_definitions_whole_and_split_big_ones() {
    let small = ChunkBudget { max_chars: 400, max_lines: 8, overlap_lines: 2 };
    check_chunks(
        r#"
//- big/big.go
package big

// Big is big.
type Big struct{ n int }

func (b *Big) One() int {
	return 1
}

// Two is long.
func (b *Big) Two() int {
	a := 1
	c := 2
	d := 3
	e := 4
	f := 5
	g := 6
	return a + c + d + e + f + g
}

func Tail() {}
"#,
        small,
        expect![[r#"
            big/big.go
              1-4 big.Big | class - | fn -
              6-8 big.Big.One | class after Big[4-4] | fn in One[6-8]
              10-11 big.Big.Two | class after Big[4-4] | fn after One[6-8]
              12-19 big.Big.Two | class after Big[4-4] | fn in Two[11-19]
              21-21 big.Tail | class after Big[4-4] | fn in Tail[21-21]
        "#]],
    );
}

#[test]
fn type_facts_for_receiver_inference() {
    check_types(
        r#"
//- net/client.go
package net

import "sync"

// Client talks to the server.
type Client struct {
	session *Session
	pool    Pool
	a, b    int
	Logger
}

type HandlerFunc func(w Writer, r *Request)

var defaultPool = NewPool(4)

func NewClient(session *Session, retries int) *Client {
	pool := NewPool(retries)
	c := &Client{session: session, pool: pool}
	return c
}

func (c *Client) Open(url string) (*Conn, error) {
	conn, err := c.pool.Connect(url)
	var tracker Tracker
	var lock = sync.Mutex{}
	buf := make([]byte, 0, 64)
	p := new(Pool)
	_, ok := c.session.(*TLSSession)
	h, _ := c.handler.(Handler)
	cfg := config.Default()
	items := []Item{}
	done := func(reason string) {}
	return conn, err
}

func helper(a, b string, opts ...Option) (n int, err error) {
	return 0, nil
}

type Store interface {
	Get(key string) Entry
}
"#,
        expect![[r#"
            net/client.go
              NewClient -> *Client
              Client.Open -> *Conn
              helper -> int
              Store.Get -> Entry
              7: session : *Session (in Client)
              8: pool : Pool (in Client)
              9: a : int (in Client)
              9: b : int (in Client)
              15: defaultPool = call NewPool (in )
              17: session : *Session (in NewClient)
              17: retries : int (in NewClient)
              18: pool = call NewPool (in NewClient)
              19: c : Client (in NewClient)
              23: c : *Client (in Client.Open)
              23: url : string (in Client.Open)
              24: conn = call c.pool.Connect (in Client.Open)
              25: tracker : Tracker (in Client.Open)
              26: lock : sync.Mutex (in Client.Open)
              28: p : Pool (in Client.Open)
              30: h : Handler (in Client.Open)
              31: cfg = call config.Default (in Client.Open)
              33: reason : string (in Client.Open)
              37: a : string (in helper)
              37: b : string (in helper)
              37: n : int (in helper)
              37: err : error (in helper)
        "#]],
    );
}
