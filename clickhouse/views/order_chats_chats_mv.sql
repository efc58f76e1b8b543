-- A chat stored (a first-copy convo_started with a token id): the orders of its token placed
-- after it and within 30 days, stored before it (clickhouse/migrations/0230_order_chats.sql).
-- Only the block's chatbots and tokens are read from `orders` (its token_id index).
SELECT o.chatbot_id AS chatbot_id, o.order_id AS order_id, o.placed_at AS placed_at, o.token_id AS token_id,
    max(c.received_at) AS chat_at
FROM conversation_starts AS c
INNER JOIN
(
    SELECT chatbot_id, order_id, placed_at, token_id
    FROM orders
    WHERE chatbot_id IN (SELECT chatbot_id FROM conversation_starts WHERE token_id != 0 AND prev_copy_at = toDateTime64(0, 3, 'UTC'))
      AND token_id IN (SELECT token_id FROM conversation_starts WHERE token_id != 0 AND prev_copy_at = toDateTime64(0, 3, 'UTC'))
) AS o ON o.chatbot_id = c.chatbot_id AND o.token_id = c.token_id
WHERE c.token_id != 0 AND c.prev_copy_at = toDateTime64(0, 3, 'UTC')
  AND c.received_at < o.placed_at AND c.received_at >= o.placed_at - INTERVAL 30 DAY
GROUP BY o.chatbot_id, o.order_id, o.placed_at, o.token_id
