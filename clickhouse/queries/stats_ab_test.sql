-- The ab_test block of purchases (see the statistics definitions in services/dashboard/README.md), for chatbots with abTestEnabled.
--   V_g = tokens of V (visitor tokens in W) with an event in W whose ab_group is g;
--   visitors = |V_g|; orders = purchases of P (see stats_purchases.sql) by V_g;
--   purchasers = distinct purchasing tokens of V_g; revenue = their purchases' revenue.
-- The caller derives conversion_rate, aov, arpu and the significance figures (services/dashboard/README.md).
-- Counted purchases as in stats_purchases.sql (shared/counted_purchases.sql); retried beacons
-- of the visitor and A/B events are removed (shared/window_events.sql).
WITH
    grouped_visitors AS
    (
        SELECT
            token,
            max(ifNull(ab_group = 'control', false)) AS in_control,
            max(ifNull(ab_group = 'test', false)) AS in_test
        FROM events
        WHERE {{> shared/window_events rows=(event = 'visitor' OR ab_group IN ('control', 'test'))}}
        GROUP BY token
        HAVING max(event = 'visitor') AND (in_control OR in_test)
    ),
    {{> shared/counted_purchases}},
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
