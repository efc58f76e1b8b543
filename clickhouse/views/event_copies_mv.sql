-- The non-bot rows with an earlier copy of their event (retried beacons): whether one counts
-- depends on the window (shared/window_events.sql), so they are kept apart, narrow, and judged
-- at read time.
SELECT chatbot_id, received_at, event, token_id, ab_group, popup_version, open_way, holdout, prev_copy_at
FROM events
WHERE NOT is_bot AND prev_copy_at != 0
