-- One token's chats and counted purchases, as a SELECT list over the window's rows `e`
-- (shared/window_rows.sql) grouped by token: whether it chatted, its first chat's time, and its
-- counted purchases (shared/counted_purchases.sql; (at, revenue, …) tuples), the input of
-- shared/token_purchase_figures.sql. Shared by stats_purchases.sql (which adds the A/B
-- group flags) and stats_purchases_funnel.sql.
-- Use in a SELECT list: `SELECT {{> shared/token_purchases}} FROM … GROUP BY e.token`.
e.token AS token,
max(e.event = 'convo_started') AS chatted,
minIf(e.received_at, e.event = 'convo_started') AS first_chat_at,
{{> shared/counted_purchases}} AS purchases
