-- Replays one month of events through the rollups' materialized views (stats_feed is the Null
-- table they hang off), in received_at order: the classification of an event copy needs the
-- copies, orders and chats before it. One insert thread keeps the blocks in that order; no
-- block deduplication (a rebuild inserts the same blocks as the last one did).
INSERT INTO stats_feed
SELECT *
FROM events
WHERE chatbot_id != ''
  AND received_at >= toDateTime64({month:Date}, 3, 'UTC')
  AND received_at < toDateTime64({month:Date} + INTERVAL 1 MONTH, 3, 'UTC')
ORDER BY received_at, event_id
SETTINGS max_insert_threads = 1, insert_deduplicate = 0
