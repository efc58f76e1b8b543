-- The id of each order's token (clickhouse/README.md, "orders"), stored with the order state by
-- its writer (the consumer looks it up in token_ids after its flush's own ids are stored), so
-- that the statistics under the revenue source 'orders' do not look every order's token up in
-- token_ids on each read. 0: not known when stored (an order ahead of its visitor's events, no
-- token, a row stored before this column, an id taken back by a repair or an erasure); the
-- statistics look those tokens up when they read them (shared/window_orders.sql).
-- Safe under a rolling deploy: a writer that does not send the column stores 0.
ALTER TABLE orders ADD COLUMN IF NOT EXISTS token_id UInt64 DEFAULT 0 AFTER token;
