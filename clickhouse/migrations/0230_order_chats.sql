-- Per shop order with a token id, the latest first-copy convo_started of that token before the
-- order and at most 30 days before it (the longest attribution window): what the revenue source
-- 'orders' reads to tell an order after chat (shared/window_orders_after_chat.sql): one row per
-- order, where the window's chats are many. One row per (chatbot, order, placed_at,
-- token id) once merged, `chat_at` its maximum: exact however often a row arrives. A report that
-- changes an order's time or token makes another key, which no read matches (the read joins on
-- the order's latest state). Fed by two views (clickhouse/views/, made after the migrations as
-- every view is): order_chats_orders_mv when an order is stored (its token's chats stored
-- before it), order_chats_chats_mv when a chat is stored (the orders of its token stored before
-- it): whichever of the two arrives last finds the other.
CREATE TABLE IF NOT EXISTS order_chats
(
    chatbot_id String,
    order_id   String,
    placed_at  DateTime64(3, 'UTC'),
    token_id   UInt64,
    chat_at    SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY (chatbot_id, order_id, placed_at, token_id)
SETTINGS non_replicated_deduplication_window = 1000;

-- The pairs stored before this migration. Start-up runs the migrations before its consumer; a
-- pair another process stores between this statement and the views' creation is found by
-- `npm run cli -- verify` (the order_chats check) and put back by `verify --repair`.
INSERT INTO order_chats
SELECT o.chatbot_id, o.order_id, o.placed_at, o.token_id, max(c.received_at)
FROM orders AS o
INNER JOIN
(
    SELECT chatbot_id, token_id, received_at FROM conversation_starts
    WHERE token_id != 0 AND prev_copy_at = toDateTime64(0, 3, 'UTC')
) AS c ON c.chatbot_id = o.chatbot_id AND c.token_id = o.token_id
WHERE o.token_id != 0 AND c.received_at < o.placed_at AND c.received_at >= o.placed_at - INTERVAL 30 DAY
GROUP BY o.chatbot_id, o.order_id, o.placed_at, o.token_id;

-- order_chats_chats_mv looks up the orders of a block's tokens: a skip index on the token id, so
-- that a chat's insert reads the granules that can hold its tokens' orders, not all the
-- chatbot's. Parts written from now on have it, and a merge gives it to the parts it writes; the
-- older parts are read whole until then (no MATERIALIZE: start-up rewrites no stored table).
ALTER TABLE orders ADD INDEX IF NOT EXISTS idx_token_id token_id TYPE bloom_filter(0.01) GRANULARITY 1;
