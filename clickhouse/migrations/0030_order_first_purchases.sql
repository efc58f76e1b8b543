-- Each order number's first purchase, per chatbot, kept up to date at insert time: the
-- statistics' order rule ("a purchase counts only if it is its order's earliest purchase row
-- ever", queries/shared/counted_purchases.sql) looks orders up here instead of scanning the
-- chatbot's whole purchase history on every call, which grew with the shop's age.
-- Exact under every way a row can arrive twice (a replayed batch, a retried beacon, a block the
-- dependent view sees again after a deduplicated insert): min is idempotent, so a row counted
-- twice leaves the same minimum. Bot rows are left out, as in every statistic.
-- Rebuilt from `events` by `npm run cli -- rollups:rebuild` (clickhouse/README.md, "Rollups").
CREATE TABLE IF NOT EXISTS order_first_purchases
(
    chatbot_id String,
    order_num  String,
    -- (received_at, event_id) of the earliest purchase row: ties on time go to the smaller id.
    first      SimpleAggregateFunction(min, Tuple(DateTime64(3, 'UTC'), UUID))
)
ENGINE = AggregatingMergeTree
ORDER BY (chatbot_id, order_num);

CREATE MATERIALIZED VIEW IF NOT EXISTS order_first_purchases_mv TO order_first_purchases AS
SELECT chatbot_id, order_num, min((received_at, event_id)) AS first
FROM events
WHERE event = 'purchase' AND order_num != '' AND NOT is_bot
GROUP BY chatbot_id, order_num;

-- The rows stored before the view existed (a row inserted meanwhile is counted twice: harmless).
INSERT INTO order_first_purchases
SELECT chatbot_id, order_num, min((received_at, event_id)) AS first
FROM events
WHERE event = 'purchase' AND order_num != '' AND NOT is_bot
GROUP BY chatbot_id, order_num;
