-- The window's rows of the kinds `rows` selects (shared/window_events.sql: each event once,
-- retried beacons and bots removed) as `e`, each joined as `o` to the first purchase row ever of
-- its order number (`o.first` = (received_at, event_id); the default tuple when the row has no
-- order, or is not a purchase), for shared/counted_purchases.sql. One read of `events` serves a
-- statistic's visitors, conversations and purchases: measured on chatbots of 100k events, one
-- read with a per-token array of purchases made purchases 12-15 % and the series 10-18 % faster
-- than a second read of the purchases joined to the visitors by token (README's performance table).
-- The order_first_purchases rollup's parts are merged here (GROUP BY), as an
-- AggregatingMergeTree needs. Its minimum over all time equals the minimum over rows up to {to}
-- for every order a purchase in W carries (that purchase is one).
-- Use as a FROM clause: `FROM {{> shared/window_rows_with_orders rows=(event IN ('visitor', 'purchase'))}}`.
(
    SELECT token, event, received_at, ab_group, order_num, event_id, total_value_base
    FROM events
    WHERE {{> shared/window_events rows={{rows}}}}
) AS e
LEFT JOIN
(
    SELECT order_num, min(first) AS first
    FROM order_first_purchases
    WHERE chatbot_id = {chatbot_id:String}
    GROUP BY order_num
) AS o ON o.order_num = e.order_num
