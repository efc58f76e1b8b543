-- The purchase statistic's sums over by_token (one row per token of V, or per purchasing
-- token of V: a token without purchases adds nothing to them), as a SELECT list: the funnel's
-- (shared/funnel_totals.sql), and the A/B groups' orders, purchasers and revenue. Used by
-- stats_purchases.sql.
-- Use in a SELECT list: `SELECT …, {{> shared/purchase_totals}} FROM by_token`.
{{> shared/funnel_totals}},
sumIf(token_orders, in_control) AS control_orders,
countIf(in_control AND token_orders > 0) AS control_purchasers,
sumIf(token_revenue, in_control) AS control_revenue,
sumIf(token_orders, in_test) AS test_orders,
countIf(in_test AND token_orders > 0) AS test_purchasers,
sumIf(token_revenue, in_test) AS test_revenue
