-- order_chats (migration 0230) against its view's SELECT (views/order_chats_orders_mv) over the
-- orders placed in the scope, each reported state with a token id, and the chats stored now:
-- per (order, time, token id), the latest chat before the order within 30 days.
SELECT 'order_chats' AS check, chatbot_id, toDate(placed_at) AS day, concat(order_id, ' ', toString(token_id)) AS key,
    if(s.order_id = '', '', toString(s.chat_at)) AS stored, if(e.order_id = '', '', toString(e.chat_at)) AS expected
FROM
(
    SELECT chatbot_id, order_id, placed_at, token_id, max(chat_at) AS chat_at
    FROM order_chats
    WHERE ({chatbot_id:String} = '' OR chatbot_id = {chatbot_id:String})
      AND placed_at >= {from:DateTime64(3, 'UTC')} AND placed_at < {to:DateTime64(3, 'UTC')}
    GROUP BY chatbot_id, order_id, placed_at, token_id
) AS s
FULL OUTER JOIN
(
    WITH orders AS (
        SELECT * FROM orders
        WHERE ({chatbot_id:String} = '' OR chatbot_id = {chatbot_id:String})
          AND placed_at >= {from:DateTime64(3, 'UTC')} AND placed_at < {to:DateTime64(3, 'UTC')}
    )
    {{> views/order_chats_orders_mv}}
) AS e USING (chatbot_id, order_id, placed_at, token_id)
WHERE s.order_id = '' OR e.order_id = '' OR s.chat_at != e.chat_at
SETTINGS join_use_nulls = 0
