-- The lift statistic of one chatbot over W = [{from}, {to}] (services/dashboard/docs/statistics.md,
-- "lift") under the revenue source 'tracker': the purchases are the tracker's
-- (shared/window_purchases.sql); the per-arm sums are shared/lift_arms.sql's.
{{> shared/lift_arms purchases=(SELECT token_id, revenue FROM {{> shared/window_purchases}})}}
