//! SQL end to end: a query, view, index or trigger naming a table
//! instantiates it (its readers are its callers), unqualified names resolve
//! as the only table of that name, a schema-qualified one by its full name,
//! and function calls resolve across files.

mod common;

use common::{check_edges, check_queries};
use expect_test::expect;

const SCHEMA: &str = r#"
//- db/schema.sql
CREATE TABLE app.customers (
    id SERIAL PRIMARY KEY,
    email TEXT NOT NULL
);

CREATE TABLE orders (
    id SERIAL PRIMARY KEY,
    customer_id INTEGER REFERENCES app.customers (id),
    total NUMERIC(10, 2) NOT NULL
);

CREATE INDEX orders_customer_idx ON orders (customer_id);

CREATE VIEW big_orders AS
SELECT o.id, c.email
FROM orders o
JOIN app.customers c ON c.id = o.customer_id
WHERE o.total > 100;
//- db/functions.sql
CREATE FUNCTION order_count(cid INTEGER) RETURNS INTEGER AS $$
    SELECT count(*) FROM orders WHERE customer_id = cid;
$$ LANGUAGE sql;

CREATE FUNCTION big_order_count() RETURNS INTEGER AS $$
    SELECT count(*) FROM big_orders;
$$ LANGUAGE sql;
//- db/report.sql
SELECT order_count(id), lower(email) FROM app.customers;
SELECT * FROM customers;
INSERT INTO orders (customer_id, total) VALUES (1, 10);
"#;

#[test]
fn tables_views_and_functions() {
    check_edges(
        SCHEMA,
        expect![[r#"
            big_order_count -instantiates-> big_orders [unique_name]
            big_orders -instantiates-> app.customers
            big_orders -instantiates-> orders
            db/report -calls-> order_count [unique_name]
            db/report -instantiates-> app.customers
            db/report -instantiates-> app.customers [unique_name]
            db/report -instantiates-> orders [unique_name]
            db/schema -instantiates-> orders
            order_count -instantiates-> orders [unique_name]
            orders -instantiates-> app.customers
            unresolved:
            big_order_count -calls-> ?count
            db/report -calls-> ?lower
            order_count -calls-> ?count
        "#]],
    );
}

#[test]
fn readers_of_a_table_are_its_callers() {
    check_queries(
        SCHEMA,
        "callers orders\ncallers order_count\ncallers app.customers",
        expect![[r#"
            > callers orders
              InstantiatedBy order_count (db/functions.sql:2)
              InstantiatedBy db/report (db/report.sql:3)
              InstantiatedBy db/schema (db/schema.sql:12)
              InstantiatedBy big_orders (db/schema.sql:16)
            > callers order_count
              CalledBy db/report (db/report.sql:1)
            > callers app.customers
              InstantiatedBy db/report (db/report.sql:1)
              InstantiatedBy orders (db/schema.sql:8)
              InstantiatedBy big_orders (db/schema.sql:17)
        "#]],
    );
}
