-- The rows of W outside the sealed hours of shared/sealed_hours.sql (a window without sealed
-- hours is read by the plain statistic instead: the repository asks first). The first two
-- conditions bound received_at, the primary key's second column, so only the granules of
-- the unsealed edges of W are read.
-- Use: `AND {{> shared/unsealed_rows}}` after a shared/window_events condition.
(received_at < sealed_from OR received_at >= sealed_until OR has(holes, toStartOfHour(received_at)))
