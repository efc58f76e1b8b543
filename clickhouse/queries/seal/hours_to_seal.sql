-- The complete hours (before {before}) of at least {min_rows} rows whose sealed row is missing
-- or no longer describes the hour's rows (migration 0050): (chatbot_id, hour as Unix seconds),
-- most recent first, at most {max_hours}. A smaller hour is cheaper to read than to look up. Reads the events projection hour_rows, not the rows: the filter and the grouping
-- use only its columns.
SELECT l.chatbot_id AS chatbot_id, toUInt32(l.hour) AS hour
FROM
(
    SELECT chatbot_id, toStartOfHour(received_at) AS hour, count() AS rows, sum(cityHash64(event_id, received_at)) AS checksum
    FROM events
    WHERE toStartOfHour(received_at) < {before:DateTime64(3, 'UTC')}
    GROUP BY chatbot_id, hour
    HAVING rows >= {min_rows:UInt32}
) AS l
LEFT JOIN
(
    SELECT chatbot_id, hour, rows, checksum, lookback_s
    FROM token_hour_sets FINAL
) AS s ON s.chatbot_id = l.chatbot_id AND s.hour = l.hour
WHERE s.rows != l.rows OR s.checksum != l.checksum OR s.lookback_s != {lookback_s:UInt32}
ORDER BY l.hour DESC, l.chatbot_id
LIMIT {max_hours:UInt32}
SETTINGS join_use_nulls = 0
