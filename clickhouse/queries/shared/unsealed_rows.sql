-- The rows of W outside the sealed hours of shared/sealed_hours.sql (every row of W when none
-- is sealed: sealed_from is then 1970-01-01 and sealed_until an hour later). The first two
-- conditions bound received_at, the primary key's second column, so only the granules of
-- the unsealed edges of W are read.
-- Use: `AND {{> shared/unsealed_rows}}` after a shared/window_events condition.
(received_at < sealed_from OR received_at >= sealed_until OR has(holes, toStartOfHour(received_at)))
