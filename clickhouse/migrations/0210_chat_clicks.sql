-- Every non-bot click_through row naming a product (`data.item_id`): the clicks the revenue
-- source 'orders' reads to tell a direct order from an assisted one
-- (shared/window_orders_after_chat.sql), so that rule reads a narrow table instead of scanning
-- the window's `click_through` rows of `events` and their JSON. Fed by chat_clicks_mv
-- (clickhouse/views/chat_clicks_mv.sql, made after the migrations, as every view is), with the
-- deduplication window of migration 0160.
CREATE TABLE IF NOT EXISTS chat_clicks
(
    chatbot_id   String,
    received_at  DateTime64(3, 'UTC'),
    token_id     UInt64,
    item_id      String,
    prev_copy_at DateTime64(3, 'UTC')
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (chatbot_id, received_at)
SETTINGS non_replicated_deduplication_window = 1000;

-- The clicks stored before this migration. Start-up runs the migrations before its consumer;
-- a row another process inserts between this statement and the view's creation is found by
-- `npm run cli -- verify` (the narrow tables' check) and put back by `verify --repair`.
INSERT INTO chat_clicks
SELECT chatbot_id, received_at, token_id,
    if(JSONType(data, 'item_id') = 'String', JSONExtractString(data, 'item_id'), JSONExtractRaw(data, 'item_id')) AS item_id,
    prev_copy_at
FROM events
WHERE event = 'click_through' AND NOT is_bot AND JSONHas(data, 'item_id');
