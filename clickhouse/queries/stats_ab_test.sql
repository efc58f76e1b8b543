-- The ab_test block of purchases (see the statistics definitions in services/dashboard/README.md), for chatbots with abTestEnabled.
--   V_g = tokens of V (visitor tokens in W) with an event in W whose ab_group is g;
--   visitors = |V_g|; orders = purchases of P (see stats_purchases.sql) by V_g;
--   purchasers = distinct purchasing tokens of V_g; revenue = their purchases' revenue.
-- The caller derives conversion_rate, aov, arpu and the significance figures (services/dashboard/README.md).
-- Deduplication, retry and order-number rules are the same as in stats_purchases.sql.
-- Retry rule as in stats_engagement.sql: a copy in W of an event received in
-- [{dedup_lookback_from}, {from}) is a retried beacon and does not count.
-- toUInt128(event_id) in the NOT IN: see stats_engagement.sql.
WITH
    grouped_visitors AS
    (
        SELECT
            token,
            max(ifNull(ab_group = 'control', false)) AS in_control,
            max(ifNull(ab_group = 'test', false)) AS in_test
        FROM events
        WHERE chatbot_id = {chatbot_id:String}
          AND received_at >= {from:DateTime64(3, 'UTC')}
          AND received_at <= {to:DateTime64(3, 'UTC')}
          AND (event = 'visitor' OR ab_group IN ('control', 'test'))
          AND toUInt128(event_id) NOT IN
          (
              SELECT toUInt128(event_id)
              FROM events
              WHERE chatbot_id = {chatbot_id:String}
                AND received_at >= {dedup_lookback_from:DateTime64(3, 'UTC')}
                AND received_at < {from:DateTime64(3, 'UTC')}
                AND (event = 'visitor' OR ab_group IN ('control', 'test'))
          )
        GROUP BY token
        HAVING max(event = 'visitor') AND (in_control OR in_test)
    ),
    window_purchases AS
    (
        -- Each purchase counting in W once, at its earliest copy (retry rule: the read starts
        -- at {dedup_lookback_from}, and an event first received before {from} is dropped).
        SELECT
            event_id,
            min(received_at) AS at,
            argMin(token, received_at) AS token,
            argMin(order_num, received_at) AS order_num,
            argMin(ifNull(total_value_base, 0), received_at) AS revenue
        FROM events
        WHERE chatbot_id = {chatbot_id:String}
          AND received_at >= {dedup_lookback_from:DateTime64(3, 'UTC')}
          AND received_at <= {to:DateTime64(3, 'UTC')}
          AND event = 'purchase'
        GROUP BY event_id
        HAVING at >= {from:DateTime64(3, 'UTC')}
    ),
    order_firsts AS
    (
        -- Exact, over all history: each order number's first purchase row ever (ties:
        -- smallest event_id). Only this chatbot's purchase rows with an order number are kept.
        SELECT order_num, min((received_at, event_id)) AS first
        FROM events
        WHERE chatbot_id = {chatbot_id:String}
          AND received_at <= {to:DateTime64(3, 'UTC')}
          AND event = 'purchase'
          AND order_num != ''
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
    ),
    purchases_by_token AS
    (
        SELECT token, count() AS orders, sum(revenue) AS revenue
        FROM counted_in_window
        GROUP BY token
    )
SELECT
    countIf(v.in_control) AS control_visitors,
    sumIf(p.orders, v.in_control) AS control_orders,
    countIf(v.in_control AND p.orders > 0) AS control_purchasers,
    sumIf(p.revenue, v.in_control) AS control_revenue,
    countIf(v.in_test) AS test_visitors,
    sumIf(p.orders, v.in_test) AS test_orders,
    countIf(v.in_test AND p.orders > 0) AS test_purchasers,
    sumIf(p.revenue, v.in_test) AS test_revenue
FROM grouped_visitors AS v
LEFT JOIN purchases_by_token AS p ON p.token = v.token
