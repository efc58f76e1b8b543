-- Events per minute of one chatbot over [{from}, {to}] (the dashboard's live view): one row per
-- minute that has events, each event_id once at its earliest received_at; the caller fills the
-- empty minutes. Retried beacons of events received shortly before {from} are removed like in
-- every statistic (shared/window_events.sql).
SELECT formatDateTime(toStartOfMinute(received_at), '%Y-%m-%d %H:%i:00', 'UTC') AS minute, count() AS events
FROM events
WHERE {{> shared/window_events rows=(1)}}
GROUP BY minute
ORDER BY minute ASC
