-- The whole rollup again from `events`, into the empty copy {table} that then replaces the live
-- table's data (packages/clickhouse/src/rollups.ts says in which order and why).
INSERT INTO {table:Identifier}
{{> shared/order_first_purchases rows=(1)}}
