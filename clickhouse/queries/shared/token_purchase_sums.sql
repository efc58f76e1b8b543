-- One token's purchase sums, as the purchase statistic defines them per token (its orders, those
-- after chat, their revenue, the rest's revenue): the SELECT list of a query grouped by token
-- over rows with `revenue` and `after_chat`. shared/purchases_by_token.sql and
-- shared/kept_run_by_token.sql both use it, so that a kept run's totals are the ones the settled
-- query would compute.
-- Use in a SELECT list after the token's flags: `{{> shared/token_purchase_sums}}`.
count() AS token_orders,
countIf(after_chat) AS token_orders_after_chat,
sum(revenue) AS token_revenue,
sumIf(revenue, after_chat) AS token_revenue_after_chat,
sumIf(revenue, NOT after_chat) AS token_revenue_other
