mod common;

use common::{render_chunks, render_references, render_symbols};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

const SOURCES: &str = r#"
//- db/schema.sql
-- Customers of the shop.
CREATE TABLE app.customers (
    id SERIAL PRIMARY KEY,
    email TEXT NOT NULL UNIQUE
);

CREATE TABLE orders (
    id SERIAL PRIMARY KEY,
    customer_id INTEGER REFERENCES app.customers (id),
    total NUMERIC(10, 2) NOT NULL
);

CREATE INDEX orders_customer_idx ON orders (customer_id);

-- Orders over a hundred, with who placed them.
CREATE VIEW big_orders AS
SELECT o.id, c.email
FROM orders o
JOIN app.customers c ON c.id = o.customer_id
WHERE o.total > 100;

CREATE FUNCTION order_count(cid INTEGER) RETURNS INTEGER AS $$
    SELECT count(*) FROM orders WHERE customer_id = cid;
$$ LANGUAGE sql;

CREATE TYPE mood AS ENUM ('sad', 'ok');

CREATE TRIGGER orders_audit BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION audit();
//- db/report.sql
SELECT order_count(id), lower(email) FROM app.customers;
INSERT INTO orders (customer_id, total) VALUES (1, 10);
UPDATE orders SET total = 0 WHERE id = 1;
DELETE FROM orders WHERE id IN (SELECT id FROM big_orders);
"#;

fn check(render: fn(&str) -> String, expect: Expect) {
    expect.assert_eq(&render(SOURCES));
}

#[test]
fn tables_views_functions_and_indexes() {
    check(
        render_symbols,
        expect![[r#"
        db/schema.sql (module db/schema, 0 parse errors)
          struct app.customers [2-5] `CREATE TABLE app.customers (`
            field app.customers.id [3-3] `id SERIAL PRIMARY KEY`
            field app.customers.email [4-4] `email TEXT NOT NULL UNIQUE`
          struct orders [7-11] `CREATE TABLE orders (`
            field orders.id [8-8] `id SERIAL PRIMARY KEY`
            field orders.customer_id [9-9] `customer_id INTEGER REFERENCES app.customers (id)`
            field orders.total [10-10] `total NUMERIC(10, 2) NOT NULL`
          constant orders_customer_idx [13-13] `CREATE INDEX orders_customer_idx ON orders (customer_id)`
          struct big_orders [16-20] `CREATE VIEW big_orders AS`
          function order_count [22-24] `CREATE FUNCTION order_count(cid INTEGER) RETURNS INTEGER AS $$`
          enum mood [26-26] `CREATE TYPE mood AS ENUM ('sad', 'ok')`
        db/report.sql (module db/report, 0 parse errors)
    "#]],
    );
}

#[test]
fn tables_read_and_functions_called() {
    check(
        render_references,
        expect![[r#"
        db/schema.sql
          9:40 instantiate app :: customers in orders.customer_id
          13:37 instantiate orders in orders_customer_idx
          18:6 instantiate orders in big_orders
          19:10 instantiate app :: customers in big_orders
          23:12 call count in order_count
          23:26 instantiate orders in order_count
          28:46 instantiate orders in <module>
          28:83 call audit in <module>
        db/report.sql
          1:8 call order_count in <module>
          1:25 call lower in <module>
          1:47 instantiate app :: customers in <module>
          2:13 instantiate orders in <module>
          3:8 instantiate orders in <module>
          4:13 instantiate orders in <module>
          4:48 instantiate big_orders in <module>
    "#]],
    );
}

#[test]
fn chunks_follow_statements() {
    check(
        |f| render_chunks(f, ChunkBudget::default()),
        expect![[r#"
        db/schema.sql
          1-29 app.customers | class - | fn -
        db/report.sql
          1-5 db/report | class - | fn -
    "#]],
    );
}
