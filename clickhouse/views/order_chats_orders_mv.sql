-- An order stored (each reported state with a token id): its token's latest first-copy chat
-- before it and within 30 days (clickhouse/migrations/0230_order_chats.sql). Only the block's
-- chatbots, tokens and time span are read from conversation_starts.
SELECT o.chatbot_id AS chatbot_id, o.order_id AS order_id, o.placed_at AS placed_at, o.token_id AS token_id,
    max(c.received_at) AS chat_at
FROM orders AS o
INNER JOIN
(
    SELECT chatbot_id, token_id, received_at
    FROM conversation_starts
    WHERE chatbot_id IN (SELECT chatbot_id FROM orders WHERE token_id != 0)
      AND received_at >= (SELECT min(placed_at) FROM orders WHERE token_id != 0) - INTERVAL 30 DAY
      AND received_at < (SELECT max(placed_at) FROM orders WHERE token_id != 0)
      AND token_id IN (SELECT token_id FROM orders WHERE token_id != 0)
      AND prev_copy_at = toDateTime64(0, 3, 'UTC')
) AS c ON c.chatbot_id = o.chatbot_id AND c.token_id = o.token_id
WHERE o.token_id != 0 AND c.received_at < o.placed_at AND c.received_at >= o.placed_at - INTERVAL 30 DAY
GROUP BY o.chatbot_id, o.order_id, o.placed_at, o.token_id
