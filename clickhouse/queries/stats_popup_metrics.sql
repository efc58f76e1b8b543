-- Popup metrics of one chatbot over W = [{from}, {to}] (see the statistics definitions in services/dashboard/README.md, "popup-metrics"), both
-- blocks in ONE scan (each query costs a fixed few ms on the embedded engine, and both blocks
-- read the same rows):
--   is_conversation = 0: one row per popup_version (`key`) seen on popup_displayed or
--     popup_opened events in W, missing or empty version (stored as '') grouped as 'unknown',
--     with popup_displayed_count and popup_opened_count. Sorted by version in byte order
--     (ClickHouse compares String bytes, which is what the statistics definitions in services/dashboard/README.md ask for).
--   is_conversation = 1: convo_started events per open_way (`key`: 'popup', 'chat_button', or
--     '' / other, which count in the total only), in `conversations`.
-- The caller derives open_rate = opened / displayed × 100, total = the sum of the
-- conversation rows and popup_ratio = from_popup / total × 100 (0 on a zero denominator).
-- Deduplication: each event counts once, at its earliest received_at; retried beacons of
-- events that arrived before W are excluded (shared/window_events.sql leaves one row per event).
-- Reading: every row of W. A chatbot with sealed hours (migration 0050) is read by
-- stats_popup_metrics_sealed.sql instead, which answers the same from them.
SELECT is_conversation, key, displayed AS popup_displayed_count, opened AS popup_opened_count, convos AS conversations
FROM
(
    {{> shared/popup_counts rows=(true)}}
)
ORDER BY is_conversation ASC, key ASC
