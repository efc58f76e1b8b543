-- The daily series of stats/timeseries.sql under the revenue source 'orders' (services/
-- dashboard/docs/statistics.md, "Revenue source"): visitors and conversations as there;
-- purchases / revenue = the orders the purchases statistic counts under that source (latest
-- state, placed in W, token in V; net EUR revenue: shared/window_orders.sql), by the UTC day of
-- placed_at. Summed over the days they are that statistic's orders and revenue.
{{> shared/daily_series purchases=(SELECT token_id, at, revenue FROM {{> shared/window_orders}})}}
