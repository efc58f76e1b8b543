-- The purchases that count in W = [{from}, {to}], as a FROM clause of rows (token_id, at,
-- revenue): every purchase once, at its earliest received_at, under the retry rule (as
-- shared/window_events.sql); then per order_num only the chatbot's earliest purchase row EVER
-- (ties: smallest event_id) counts, so an order first seen before W is not counted again inside
-- it; purchases without order_num ('') all count. Revenue is total_value_base with NULL
-- (unknown currency) as 0. Bot rows are in neither table: a crawler's purchase neither counts
-- nor claims an order number. The caller keeps the purchases of V (P) with
-- bitmapContains(visitors, token_id).
-- Reads the narrow `purchases` table for the purchases without an order number, and
-- order_first_purchases (one row per order once merged, migration 0130) for the others.
-- Use: `FROM {{> shared/window_purchases}}`.
(
    -- Without an order number: every purchase in W that counts under the retry rule.
    SELECT token_id, received_at AS at, revenue
    FROM purchases
    WHERE chatbot_id = {chatbot_id:String}
      AND received_at >= {from:DateTime64(3, 'UTC')}
      AND received_at <= {to:DateTime64(3, 'UTC')}
      AND prev_copy_at < {dedup_lookback_from:DateTime64(3, 'UTC')}
      AND order_num = ''
    UNION ALL
    -- With one: the order's first purchase ever, when it is in W. It is the first copy of its
    -- event (prev_copy_at 0), so the retry rule always keeps it. FINAL merges an order's rows
    -- of unmerged parts (min of `first`) first; the time is tested outside it, on the merged
    -- row (a WHERE on `first` beside FINAL is evaluated before the merge), so an order whose
    -- earliest row is before W is left out even when a later row of it is in W.
    SELECT order_first.token_id AS token_id, order_first.at AS at, order_first.revenue AS revenue
    FROM
    (
        SELECT first AS order_first
        FROM order_first_purchases FINAL
        WHERE chatbot_id = {chatbot_id:String}
    )
    WHERE order_first.at >= {from:DateTime64(3, 'UTC')} AND order_first.at <= {to:DateTime64(3, 'UTC')}
) AS p
