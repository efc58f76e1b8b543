-- The purchase funnel's sums over per-token figures (shared/token_purchase_figures.sql; a token
-- without purchases adds nothing to them), as a SELECT list: purchasing users, revenues and
-- orders. The A/B block's sums are added by shared/purchase_totals.sql.
-- Use in a SELECT list: `SELECT …, {{> shared/funnel_totals}} FROM per_token`.
countIf(token_orders > 0) AS total_users_purchased,
countIf(token_orders_after_chat > 0) AS total_users_chatted_purchased,
sum(token_revenue) AS total_revenue_purchased,
sum(token_revenue_after_chat) AS total_revenue_chatted_purchased,
-- Summed separately, not as a difference: subtracting two large sums loses the cents.
sum(token_revenue_other) AS revenue_other,
sum(token_orders) AS orders,
sum(token_orders_after_chat) AS orders_after_chat
