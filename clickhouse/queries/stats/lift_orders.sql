-- The lift statistic under the revenue source 'orders' (services/dashboard/docs/statistics.md,
-- "lift", "Revenue source"): the purchases are the shop's orders placed in W at their net EUR
-- value (shared/window_orders.sql; no attribution window: the lift compares arms, not chats);
-- the per-arm sums are shared/lift_arms.sql's.
{{> shared/lift_arms purchases=(SELECT token_id, revenue FROM {{> shared/window_orders}})}}
