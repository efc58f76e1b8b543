-- The purchase funnel of stats/purchases.sql under the revenue source 'orders' (services/
-- dashboard/docs/statistics.md, "Revenue source"): P = the shop's orders placed in W whose token
-- is in V, at their net EUR value (shared/window_orders_after_chat.sql); an order is after chat
-- when its token started a conversation within {window_days} days before it. V, the chatters and
-- the A/B groups are those of stats/purchases.sql. Beyond them: orders_direct and revenue_direct,
-- the after-chat orders with a product the visitor clicked in the chat.
{{> shared/purchase_funnel purchases=(SELECT * FROM {{> shared/window_orders_after_chat}}) direct=(purchases_after_chat.direct)}}
