-- Rebuild of the order_first_purchases rollup (migration 0030) from one partition of `events`
-- ({partition}: a toYYYYMM(received_at) value, as events' PARTITION BY): the SELECT of its
-- materialized view, inserted again. The rollup keeps min((received_at, event_id)) per order, so
-- rows inserted twice change nothing, and a row the view missed is added.
INSERT INTO order_first_purchases
SELECT chatbot_id, order_num, min((received_at, event_id)) AS first
FROM events
WHERE event = 'purchase' AND order_num != '' AND NOT is_bot AND toYYYYMM(received_at) = {partition:UInt32}
GROUP BY chatbot_id, order_num
