-- Popup metrics of one chatbot over W = [{from}, {to}] (see the statistics definitions in services/dashboard/README.md, "popup-metrics"), both
-- blocks in ONE query (each query costs a fixed few ms on the embedded engine, and both blocks
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
-- Reading: the counts of W's sealed hours (shared/sealed_hours.sql), summed per key, and the
-- other rows of W counted as before.
WITH
    {{> shared/sealed_hours}}
SELECT
    is_conversation,
    key,
    sum(displayed) AS popup_displayed_count,
    sum(opened) AS popup_opened_count,
    sum(convos) AS conversations
FROM
(
    SELECT r.1 AS is_conversation, r.2 AS key, r.3 AS displayed, r.4 AS opened, r.5 AS convos
    FROM
    (
        SELECT arrayJoin(arrayConcat(
            arrayMap((k, n) -> (false, k, n, toUInt64(0), toUInt64(0)), mapKeys(d), mapValues(d)),
            arrayMap((k, n) -> (false, k, toUInt64(0), n, toUInt64(0)), mapKeys(o), mapValues(o)),
            arrayMap((k, n) -> (true, k, toUInt64(0), toUInt64(0), n), mapKeys(c), mapValues(c)))) AS r
        FROM
        (
            SELECT sumMap(popup_displayed) AS d, sumMap(popup_opened) AS o, sumMap(conversations) AS c
            FROM token_hour_sets FINAL
            WHERE chatbot_id = {chatbot_id:String} AND hour >= sealed_from AND hour < sealed_until AND has(sealed, hour)
        )
    )
    UNION ALL
    SELECT
        event = 'convo_started' AS is_conversation,
        if(is_conversation, open_way, if(popup_version = '', 'unknown', popup_version)) AS key,
        countIf(event = 'popup_displayed') AS displayed,
        countIf(event = 'popup_opened') AS opened,
        countIf(is_conversation) AS convos
    FROM events
    WHERE {{> shared/window_events rows=(event IN ('popup_displayed', 'popup_opened', 'convo_started'))}}
      AND {{> shared/unsealed_rows}}
    GROUP BY is_conversation, key
)
GROUP BY is_conversation, key
ORDER BY is_conversation ASC, key ASC
