-- The sealed hours a statistic over W = [{from}, {to}] reads instead of the rows (migration
-- 0050): the sorted start times of the hours that lie wholly in W and whose sealed row still
-- describes the hour (same rows and checksum as the events projection hour_rows, nothing
-- unsealable, the same retry look-back {lookback_s}) and whose tokens' ids are all in
-- token_id_index (migration 0080: max_id within what the index says it holds). The repository
-- asks this first and binds the answer into the *_sealed.sql statistics (shared/sealed_hours.sql) as
-- {sealed_from}, {sealed_until} and {holes}: written into those queries as a subquery, the
-- analyzer resolved it again at every use of the values derived from it (~40 times in
-- purchases), which cost more than reading the data (measured: 135 vs 220 ms on the demo).
-- Also late_from: the earliest received_at of the chatbot's rows that arrived since the sealer
-- last checked (sealed_hour_arrivals, migration 0070), NULL when none did; one before the end
-- of the sealed run means that run is not settled (sealed-hours.ts, settledRun).
-- And run: the run's fingerprint, which a reseal or a hole changes (shared/run_fingerprint.sql;
-- kept runs, migration 0090, are found by it).
-- W's whole hours: from the first hour starting at or after {from} to the last one ending at
-- or before {to} (W includes {to}, so an hour ending at {to} + 1 ms is whole).
WITH
    toStartOfHour({from:DateTime64(3, 'UTC')} + toIntervalMillisecond(3599999)) AS first_hour,
    toStartOfHour({to:DateTime64(3, 'UTC')} + toIntervalMillisecond(1)) AS end_hour
SELECT
    arraySort(groupArray(s.hour)) AS hours,
    {{> shared/run_fingerprint hour=(s.hour) sealed_at=(s.sealed_at)}} AS run,
    (
        SELECT minOrNull(received_at)
        FROM sealed_hour_arrivals
        WHERE arrived_at >= (SELECT max(checked_until) FROM sealed_purchases_checked)
          AND chatbot_id = {chatbot_id:String}
    ) AS late_from
FROM
(
    SELECT hour, rows, checksum, lookback_s, unsealable, max_id, sealed_at
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
  AND s.max_id <= {{> shared/token_ids_indexed_to chatbot=({chatbot_id:String})}}
