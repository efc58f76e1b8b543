-- The purchase statistic's sums over by_token (one row per token of V, or per purchasing
-- token of V: a token without purchases adds nothing to them), as a SELECT list: funnel
-- counts, revenues and orders, and the A/B groups' orders, purchasers and revenue. Shared by
-- stats_purchases.sql and stats_purchases_sealed.sql, which add the visitor counts.
-- Use in a SELECT list: `SELECT …, {{> shared/purchase_totals}} FROM by_token`.
countIf(token_orders > 0) AS total_users_purchased,
countIf(token_orders_after_chat > 0) AS total_users_chatted_purchased,
sum(token_revenue) AS total_revenue_purchased,
sum(token_revenue_after_chat) AS total_revenue_chatted_purchased,
-- Summed separately, not as a difference: subtracting two large sums loses the cents.
sum(token_revenue_other) AS revenue_other,
sum(token_orders) AS orders,
sum(token_orders_after_chat) AS orders_after_chat,
sumIf(token_orders, in_control) AS control_orders,
countIf(in_control AND token_orders > 0) AS control_purchasers,
sumIf(token_revenue, in_control) AS control_revenue,
sumIf(token_orders, in_test) AS test_orders,
countIf(in_test AND token_orders > 0) AS test_purchasers,
sumIf(token_revenue, in_test) AS test_revenue
