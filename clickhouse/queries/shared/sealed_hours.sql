-- The sealed hours a statistic over W = [{from}, {to}] reads instead of the rows (migration
-- 0050), as WITH-list entries: `sealed`, the sorted start times of the hours that lie wholly
-- in W and whose sealed row still describes the hour (same rows and checksum as the events
-- projection hour_rows, nothing unsealable, the same retry look-back {lookback_s}); and
-- sealed_from, sealed_until and holes, which shared/unsealed_rows.sql turns into the condition
-- that reads every other row of W. `sealed` is a scalar subquery: computed once per query
-- (a CTE would be re-evaluated at each use), then a constant the primary key can use.
-- Use inside a WITH list: `{{> shared/sealed_hours}},` (comma when more entries follow).
(
    -- W's whole hours: from the first hour starting at or after {from} to the last one ending
    -- at or before {to} (W includes {to}, so an hour ending at {to} + 1 ms is whole).
    WITH
        toStartOfHour({from:DateTime64(3, 'UTC')} + toIntervalMillisecond(3599999)) AS first_hour,
        toStartOfHour({to:DateTime64(3, 'UTC')} + toIntervalMillisecond(1)) AS end_hour
    SELECT arraySort(groupArray(s.hour))
    FROM
    (
        SELECT hour, rows, checksum, lookback_s, unsealable
        FROM token_hour_sets FINAL
        WHERE chatbot_id = {chatbot_id:String} AND hour >= first_hour AND hour < end_hour
    ) AS s
    INNER JOIN
    (
        -- Grouped by the projection's own expressions, so ClickHouse answers from it.
        SELECT toStartOfHour(received_at) AS hour, count() AS rows, sum(cityHash64(event_id, received_at)) AS checksum
        FROM events
        WHERE chatbot_id = {chatbot_id:String}
          AND toStartOfHour(received_at) >= first_hour AND toStartOfHour(received_at) < end_hour
        GROUP BY hour
    ) AS l ON l.hour = s.hour
    WHERE s.rows = l.rows AND s.checksum = l.checksum AND s.unsealable = 0 AND s.lookback_s = {lookback_s:UInt32}
) AS sealed,
-- The sealed hours are usually one run [sealed_from, sealed_until) with no holes; holes are
-- the hours inside the run that are not sealed (rows arrived after sealing, not resealed yet).
toDateTime64(arrayMin(sealed), 3, 'UTC') AS sealed_from,
toDateTime64(arrayMax(sealed), 3, 'UTC') + toIntervalHour(1) AS sealed_until,
arrayFilter(h -> NOT has(sealed, h),
    arrayMap(i -> arrayMin(sealed) + toIntervalHour(i), range(toUInt32(if(empty(sealed), 0, dateDiff('hour', arrayMin(sealed), arrayMax(sealed))))))) AS holes
