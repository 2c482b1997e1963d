mod common;

use common::{render_chunks, render_references, render_symbols};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

fn check_symbols(fixture: &str, expect: Expect) {
    expect.assert_eq(&render_symbols(fixture));
}

fn check_refs(fixture: &str, expect: Expect) {
    expect.assert_eq(&render_references(fixture));
}

fn check_chunks(fixture: &str, budget: ChunkBudget, expect: Expect) {
    expect.assert_eq(&render_chunks(fixture, budget));
}

#[test]
fn functions_structs_enums_and_macros() {
    check_symbols(
        r#"
//- src/geo/point.h
#ifndef GEO_POINT_H
#define GEO_POINT_H
#define MAX_POINTS 64
#define SQUARE(x) ((x) * (x))

/* A point in the plane. */
struct point {
    int x, y;
    /** Optional label. */
    const char *label;
    unsigned flags : 3;
    int (*on_move)(struct point *self);
    struct { int depth; } meta;
};

typedef struct {
    double w, h;
} size_t2;

typedef struct node { struct node *next; } node_t;

/// Colors.
enum color { RED, GREEN = 2 };

union value { int i; float f; };

typedef enum { MODE_READ, MODE_WRITE } mode_t;

static const int LIMIT = 5;
int counter;

// Moves a point.
int point_move(struct point *p, int dx);
char **point_names(void);
#endif
"#,
        expect![[r#"
            src/geo/point.h (module src/geo/point, 0 parse errors)
              constant MAX_POINTS [3-4] `#define MAX_POINTS 64`
              function SQUARE [4-5] `#define SQUARE(x) ((x) * (x))`
              struct point [7-14] `struct point` doc: A point in the plane.
                field point::x [8-8] `x`
                field point::y [8-8] `y`
                field point::label [10-10] `const char *label` doc: Optional label.
                field point::flags [11-11] `unsigned flags : 3`
                field point::on_move [12-12] `int (*on_move)(struct point *self)`
                field point::meta [13-13] `struct { int depth; } meta`
                  field point::meta::depth [13-13] `int depth`
              struct size_t2 [16-18] `typedef struct`
                field size_t2::w [17-17] `w`
                field size_t2::h [17-17] `h`
              struct node [20-20] `struct node`
                field node::next [20-20] `struct node *next`
              enum color [23-23] `enum color` doc: Colors.
                constant color::RED [23-23] `RED`
                constant color::GREEN [23-23] `GREEN = 2`
              struct value [25-25] `union value`
                field value::i [25-25] `int i`
                field value::f [25-25] `float f`
              enum mode_t [27-27] `typedef enum`
                constant mode_t::MODE_READ [27-27] `MODE_READ`
                constant mode_t::MODE_WRITE [27-27] `MODE_WRITE`
              constant LIMIT [29-29] `static const int LIMIT = 5`
              function point_move [33-33] `int point_move(struct point *p, int dx)` doc: Moves a point.
              function point_names [34-34] `char **point_names(void)`
        "#]],
    );
}

#[test]
fn definitions_pointers_and_syntax_errors() {
    check_symbols(
        r#"
//- src/geo/point.c
#include "point.h"

static int helper(void);

// Moves a point.
int point_move(struct point *p, int dx) {
    p->x += dx;
    return helper();
}

char **point_names(void) { return 0; }

void (*on_signal(int sig, void (*func)(int)))(int) { return func; }

static int helper(void) { return 1; }

int broken(int a {
    return a;
}

struct after { int z; };
"#,
        expect![[r#"
            src/geo/point.c (module src/geo/point, 1 parse errors)
              function helper [3-3] `static int helper(void)`
              function point_move [6-9] `int point_move(struct point *p, int dx)` doc: Moves a point.
              function point_names [11-11] `char **point_names(void)`
              function on_signal [13-13] `void (*on_signal(int sig, void (*func)(int)))(int)`
              function helper [15-15] `static int helper(void)`
              function broken [17-19] `int broken(int a`
              struct after [21-21] `struct after`
                field after::z [21-21] `int z`
        "#]],
    );
}

#[test]
fn references() {
    check_refs(
        r#"
//- src/main.c
#include <stdio.h>
#include "geo/point.h"

static struct point origin;

int main(int argc, char **argv) {
    struct point p = { .x = 1 };
    struct point q = (struct point){ .y = 2 };
    p.x = origin.y;
    point_move(&p, argc);
    p.on_move(&p);
    ops->dev.reset(ops);
    (*handler)(argv[0]);
    printf("%d\n", SQUARE(p.x));
    return 0;
}
"#,
        expect![[r#"
            src/main.c
              1:10 import <stdio.h> in <module>
              2:10 import geo/point.h in <module>
              8:30 instantiate point in main
              9:7 field_use p :: x in main
              9:18 field_use origin :: y in main
              10:5 call point_move in main
              11:7 call p :: on_move in main
              12:10 field_use ops :: dev in main
              12:14 call ops->dev :: reset in main
              13:7 call handler in main
              14:5 call printf in main
              14:20 call SQUARE in main
              14:29 field_use p :: x in main
        "#]],
    );
}

#[test]
fn chunks_keep_definitions_whole_and_split_big_ones() {
    let small = ChunkBudget { max_chars: 400, max_lines: 8, overlap_lines: 2 };
    check_chunks(
        r#"
//- big.c
#include <stdio.h>

/* Big. */
struct big { int n; };

int one(void) {
    return 1;
}

// two is long
int two(void) {
    int a = 1;
    int b = 2;
    int c = 3;
    int d = 4;
    int e = 5;
    int f = 6;
    return a + b + c + d + e + f;
}

void tail(void) {}
"#,
        small,
        expect![[r#"
            big.c
              1-4 big | class - | fn -
              6-8 one | class after big[4-4] | fn in one[6-8]
              10-17 two | class after big[4-4] | fn after one[6-8]
              18-19 two | class after big[4-4] | fn in two[11-19]
              21-21 tail | class after big[4-4] | fn in tail[21-21]
        "#]],
    );
}
