-- popup-metrics' counts over the rows of shared/window_events.sql that `rows` also selects:
-- (is_conversation, key, displayed, opened, convos), one row per popup version ('' as
-- 'unknown') and per open way, as stats_popup_metrics.sql describes.
-- Use as a subquery or a UNION branch: `{{> shared/popup_counts rows=(true)}}`.
SELECT
    event = 'convo_started' AS is_conversation,
    if(is_conversation, open_way, if(popup_version = '', 'unknown', popup_version)) AS key,
    countIf(event = 'popup_displayed') AS displayed,
    countIf(event = 'popup_opened') AS opened,
    countIf(is_conversation) AS convos
FROM events
WHERE {{> shared/window_events rows=(event IN ('popup_displayed', 'popup_opened', 'convo_started'))}}
  AND {{rows}}
GROUP BY is_conversation, key
