-- The hourly series under the revenue source 'orders': purchases / revenue are the shop's orders
-- (shared/window_orders.sql) by the UTC hour of placed_at.
{{> shared/hourly_series purchases=(SELECT token_id, at, revenue FROM {{> shared/window_orders}})}}
