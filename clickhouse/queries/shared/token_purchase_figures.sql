-- One token's purchase figures, as a SELECT list over a row of by_token (chatted, first_chat_at,
-- purchases = its counted purchases, shared/counted_purchases.sql): orders and revenue, all and
-- after its first chat (a purchase strictly later than the token's earliest convo_started in W),
-- and the revenue not after chat. Shared by stats_purchases.sql and stats_purchases_funnel.sql.
-- Use in a SELECT list: `SELECT chatted, {{> shared/token_purchase_figures}} FROM by_token`.
arrayFilter(p -> chatted AND p.at > first_chat_at, purchases) AS after_chat,
length(purchases) AS token_orders,
length(after_chat) AS token_orders_after_chat,
arraySum(p -> p.revenue, purchases) AS token_revenue,
arraySum(p -> p.revenue, after_chat) AS token_revenue_after_chat,
arraySum(p -> p.revenue, arrayFilter(p -> NOT (chatted AND p.at > first_chat_at), purchases)) AS token_revenue_other
