-- Which of these event ids are already stored in `events`. The consumer asks only for a
-- redelivered ("fenced") bus batch, after a crash or rebalance between insert and commit.
-- The received_at bounds (the batch's own min/max) let ClickHouse skip every partition and
-- granule outside the batch's time range instead of scanning the whole table for the ids.
-- The ids go through a subquery: `event_id IN {ids:Array(UUID)}` matches nothing on
-- ClickHouse 26.7 (the array parameter is compared as strings), the subquery set is typed.
SELECT DISTINCT toString(event_id) AS event_id
FROM events
WHERE received_at BETWEEN {from:DateTime64(3, 'UTC')} AND {to:DateTime64(3, 'UTC')}
  AND event_id IN (SELECT arrayJoin({ids:Array(UUID)}))
