-- Per (chatbot, UTC hour, event, popup version for the popup events, open way for
-- convo_started) the number of rows that count in any window: not a bot, no earlier copy.
SELECT
    chatbot_id,
    toStartOfHour(received_at) AS hour,
    event,
    if(event IN ('popup_displayed', 'popup_opened'), popup_version, '') AS popup_version,
    if(event = 'convo_started', open_way, '') AS open_way,
    count() AS events
FROM events
WHERE NOT is_bot AND prev_copy_at = 0
GROUP BY chatbot_id, hour, event, popup_version, open_way
