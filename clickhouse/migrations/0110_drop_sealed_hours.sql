-- The statistics read `events` and the order_first_purchases rollup only (clickhouse/README.md):
-- the objects of migrations 0050-0090, which held pre-computed hours, token ids and kept runs
-- for a dashboard job that no longer exists, are dropped. The view first: it writes into one of
-- the tables. On a fresh install every statement finds nothing to drop.
DROP TABLE IF EXISTS sealed_hour_arrivals_mv;
DROP TABLE IF EXISTS sealed_hour_arrivals;
DROP TABLE IF EXISTS sealed_purchases_checked;
DROP TABLE IF EXISTS sealed_run_purchases;
DROP TABLE IF EXISTS sealed_runs;
DROP TABLE IF EXISTS token_id_index;
DROP TABLE IF EXISTS token_hour_sets;
DROP TABLE IF EXISTS token_ids;
-- The per-hour checksum projection of `events` served the sealed hours only; every insert paid
-- for it. Dropping a projection removes its files from each part (no rows are rewritten).
ALTER TABLE events DROP PROJECTION IF EXISTS hour_rows;
