-- Per (chatbot, UTC hour, kind) the token ids of the rows that count in any window: not a bot,
-- no earlier copy (a retried beacon is judged per window from event_copies). The kinds of a
-- row: its event name, and its A/B group's (shared/token_kinds.sql).
SELECT chatbot_id, toStartOfHour(received_at) AS hour, kind, groupBitmapState(token_id) AS tokens
FROM events
{{> shared/token_kinds}}
WHERE NOT is_bot AND prev_copy_at = 0 AND kind != ''
GROUP BY chatbot_id, hour, kind
