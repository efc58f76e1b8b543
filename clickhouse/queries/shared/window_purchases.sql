-- The purchases that count in W = [{from}, {to}], as a FROM clause of rows (token_id, at,
-- revenue): every purchase once, at its earliest received_at, under the retry rule (as
-- shared/window_events.sql); then per order_num only the chatbot's earliest purchase row EVER
-- (ties: smallest event_id) counts, so an order first seen before W is not counted again inside
-- it; purchases without order_num ('') all count. Revenue is total_value_base with NULL
-- (unknown currency) as 0. Bot rows are in neither table: a crawler's purchase neither counts
-- nor claims an order number. Only tokens in the bitmap `visitors` (a column of `sets`, the
-- query's CTE of window bitmaps) are kept: P, the purchases of V.
-- Reads the narrow `purchases` table (migration 0130) and the order_first_purchases rollup
-- (migration 0030) for the order numbers of W only.
-- Use: `FROM {{> shared/window_purchases visitors=(visitors)}}`.
(
    SELECT token_id, received_at AS at, revenue
    FROM purchases
    WHERE chatbot_id = {chatbot_id:String}
      AND received_at >= {from:DateTime64(3, 'UTC')}
      AND received_at <= {to:DateTime64(3, 'UTC')}
      AND prev_copy_at < {dedup_lookback_from:DateTime64(3, 'UTC')}
      AND (order_num = '' OR (order_num, (received_at, event_id)) IN (
          SELECT order_num, min(first)
          FROM order_first_purchases
          WHERE chatbot_id = {chatbot_id:String}
            AND order_num IN (
                SELECT order_num
                FROM purchases
                WHERE chatbot_id = {chatbot_id:String}
                  AND received_at >= {from:DateTime64(3, 'UTC')}
                  AND received_at <= {to:DateTime64(3, 'UTC')}
                  AND order_num != '')
          GROUP BY order_num))
      AND bitmapContains((SELECT {{visitors}} FROM sets), token_id)
) AS p
