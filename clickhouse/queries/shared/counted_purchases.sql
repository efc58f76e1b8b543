-- The purchases that count in W = [{from}, {to}]: every purchase event once, at its earliest
-- received_at, under the retry rule (shared/window_events.sql); then per order_num only the
-- chatbot's earliest purchase row EVER (ties: smallest event_id) counts, so an order first seen
-- before W is not counted again inside it; purchases without order_num ('') all count. Revenue
-- is total_value_base with NULL (unknown currency) as 0. Bot rows (is_bot) are left out of both
-- reads, as if never received: a crawler's purchase neither counts nor claims an order number.
-- This fragment is an aggregate over one token's rows `e` (shared/window_rows.sql, grouped by
-- token): the token's counted purchases as (received_at, revenue, order_num, event_id) tuples.
-- The order-number lookup covers the chatbot's whole history (orders are exact over all time)
-- through the order_first_purchases rollup, one row per order (its parts merged here by GROUP
-- BY, as an AggregatingMergeTree needs; its minimum over all time equals the minimum over rows
-- up to {to} for every order a purchase in W carries, that purchase being one). It is a set
-- probed with the few purchases of a token that carry an order number, not a join probed with
-- every row read: on chatbots of 100k events, stats_purchases ~3 % cheaper call by call (~7 %
-- on the A/B chatbots, whose A/B-marked rows double the rows read), the others the same.
-- Use: `SELECT {{> shared/counted_purchases}} AS purchases FROM … GROUP BY e.token`.
arrayFilter(
    p -> p.3 = '' OR (p.3, (p.1, p.4)) IN (
        SELECT order_num, min(first)
        FROM order_first_purchases
        WHERE chatbot_id = {chatbot_id:String}
        GROUP BY order_num),
    groupArrayIf((e.received_at, ifNull(e.total_value_base, 0), e.order_num, e.event_id), e.event = 'purchase'))
