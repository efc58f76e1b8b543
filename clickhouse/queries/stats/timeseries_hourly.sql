-- The `timeseries` statistic by UTC hour (bucket=hour: services/dashboard/docs/statistics.md,
-- "timeseries"): one row per hour of W that has any figure; the caller fills the others with
-- zeros. Purchases are the purchases statistic's (shared/window_purchases.sql).
{{> shared/hourly_series purchases=(SELECT * FROM {{> shared/window_purchases}})}}
