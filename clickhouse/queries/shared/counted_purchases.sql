-- The purchases that count in W = [{from}, {to}]: every purchase event once, at its earliest
-- received_at, under the retry rule (shared/window_events.sql); then per order_num only the
-- chatbot's earliest purchase row EVER (ties: smallest event_id) counts, so an order first seen
-- before W is not counted again inside it; purchases without order_num ('') all count. Revenue
-- is total_value_base with NULL (unknown currency) as 0. Bot rows (is_bot) are left out of both
-- reads, as if never received: a crawler's purchase neither counts nor claims an order number.
-- This fragment is an aggregate over one token's rows `e` (shared/window_rows.sql, grouped by
-- token): the token's counted purchases as named tuples (at, revenue, order_num, event_id).
-- The order-number lookup covers the chatbot's whole history through the order_first_purchases
-- rollup (migration 0030, one row per order once merged: its parts are merged here by GROUP BY).
-- It is a set probed with the few purchases of a token that carry an order number, not a join
-- probed with every row read.
-- Use: `SELECT {{> shared/counted_purchases}} AS purchases FROM … GROUP BY e.token`.
arrayFilter(
    p -> p.order_num = '' OR (p.order_num, (p.at, p.event_id)) IN (
        SELECT order_num, min(first)
        FROM order_first_purchases
        WHERE chatbot_id = {chatbot_id:String}
        GROUP BY order_num),
    CAST(groupArrayIf((e.received_at, ifNull(e.total_value_base, 0), e.order_num, e.event_id), e.event = 'purchase'),
        'Array(Tuple(at DateTime64(3, \'UTC\'), revenue Float64, order_num String, event_id UUID))'))
