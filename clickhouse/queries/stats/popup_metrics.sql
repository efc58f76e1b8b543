-- Popup metrics of one chatbot over W = [{from}, {to}] (see the statistics definitions in services/dashboard/README.md, "popup-metrics"), both
-- blocks in ONE read (both read the same rows):
--   is_conversation = 0: one row per popup_version (`key`) seen on popup_displayed or
--     popup_opened events in W, missing or empty version (stored as '') grouped as 'unknown',
--     with popup_displayed_count and popup_opened_count. Sorted by version in byte order
--     (ClickHouse compares String bytes, which is what the definitions ask for).
--   is_conversation = 1: convo_started events per open_way (`key`: 'popup', 'chat_button', or
--     '' / other, which count in the total only), in `conversations`.
-- The caller derives open_rate = opened / displayed × 100, total = the sum of the
-- conversation rows and popup_ratio = from_popup / total × 100 (0 on a zero denominator).
-- Each event counts once, at its earliest received_at; retried beacons and bots are left out
-- (shared/window_event_counts.sql).
SELECT
    event = 'convo_started' AS is_conversation,
    if(is_conversation, open_way, if(popup_version = '', 'unknown', popup_version)) AS key,
    sumIf(events, event = 'popup_displayed') AS popup_displayed_count,
    sumIf(events, event = 'popup_opened') AS popup_opened_count,
    sumIf(events, is_conversation) AS conversations
FROM {{> shared/window_event_counts kinds=('popup_displayed', 'popup_opened', 'convo_started')}}
GROUP BY is_conversation, key
ORDER BY is_conversation ASC, key ASC
