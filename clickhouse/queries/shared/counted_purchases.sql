-- The purchases that count in W = [{from}, {to}], as three CTEs ending in counted_in_window
-- (at, token, revenue): every purchase event once, at its earliest received_at, under the retry
-- rule (shared/window_events.sql); then per order_num only the chatbot's earliest purchase row EVER (ties: smallest
-- event_id) counts, so an order first seen before W is not counted again inside it; purchases
-- without order_num ('') all count. Revenue is total_value_base with NULL (unknown currency) as 0.
-- Bot rows (is_bot) are left out of both reads, as if never received: a crawler's purchase
-- neither counts nor claims an order number.
-- Reading: the window's purchases; the order-number lookup
-- covers the chatbot's whole history (orders are exact over all time) through the
-- order_first_purchases rollup: one row per order, not one per purchase row ever received.
-- Use inside a WITH list: `{{> shared/counted_purchases}},` (comma when more CTEs follow).
window_purchases AS
(
    -- Each purchase counting in W once, at its earliest copy (shared/window_events.sql).
    SELECT event_id, received_at AS at, token, order_num, ifNull(total_value_base, 0) AS revenue
    FROM events
    WHERE {{> shared/window_events rows=(event = 'purchase')}}
),
order_firsts AS
(
    -- Exact, over all history: each order number's first purchase row ever (ties: smallest
    -- event_id), from the order_first_purchases rollup (maintained at insert time; its parts
    -- are merged here, as an AggregatingMergeTree needs). Its minimum over all time equals the
    -- minimum over rows up to {to} for every order a purchase in W carries (that purchase is one).
    SELECT order_num, min(first) AS first
    FROM order_first_purchases
    WHERE chatbot_id = {chatbot_id:String}
    GROUP BY order_num
),
counted_in_window AS
(
    -- Purchases without order_num all count; one with an order number only when it is
    -- that order's first purchase ever (a retried copy of it, or a repeat, is not).
    SELECT p.at AS at, p.token AS token, p.revenue AS revenue
    FROM window_purchases AS p
    LEFT JOIN order_firsts AS o ON o.order_num = p.order_num
    WHERE p.order_num = '' OR o.first = (p.at, p.event_id)
)
