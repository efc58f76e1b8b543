-- The unsealed rows' purchases of W for shared/sealed_purchases.sql and
-- stats_purchases_sealed_settled.sql, as one SELECT in the columns of `counted` (see
-- shared/sealed_purchases.sql): an order number counts only as its order's first row ever.
-- Use after `UNION ALL` inside `counted`, after shared/unsealed_tokens: `{{> shared/unsealed_purchases}}`.
SELECT r.id, r.key, e.at, e.revenue, false, false, r.is_v, r.in_control, r.in_test,
    if(r.chatted, r.first_chat_at, toDateTime64('2299-12-31 00:00:00', 3, 'UTC'))
FROM
(
    SELECT token, received_at AS at, event_id, order_num, ifNull(total_value_base, 0) AS revenue
    FROM events
    WHERE {{> shared/window_events rows=(event = 'purchase')}}
      AND {{> shared/unsealed_rows}}
) AS e
INNER JOIN raw_tokens AS r ON r.token = e.token
LEFT JOIN
(
    -- Only these rows' orders.
    {{> shared/order_firsts_of orders=(SELECT order_num FROM events WHERE {{> shared/window_events rows=(event = 'purchase' AND order_num != '')}} AND {{> shared/unsealed_rows}})}}
) AS o ON o.order_num = e.order_num
WHERE e.order_num = '' OR o.first = (e.at, e.event_id)
