-- event_hour_counts against a count of the rows it stands for (migration 0130's view).
SELECT 'event_hour_counts' AS check, chatbot_id, toDate(hour) AS day,
    concat(toString(hour), ' ', event, ' ', popup_version, ' ', open_way) AS key,
    toString(stored) AS stored, toString(expected) AS expected
FROM
(
    SELECT chatbot_id, hour, event, popup_version, open_way, sum(events) AS stored
    FROM event_hour_counts
    WHERE ({chatbot_id:String} = '' OR chatbot_id = {chatbot_id:String})
      AND hour >= toStartOfHour({from:DateTime64(3, 'UTC')}) AND hour < {to:DateTime64(3, 'UTC')}
    GROUP BY chatbot_id, hour, event, popup_version, open_way
) AS s
FULL OUTER JOIN
(
    SELECT chatbot_id, toStartOfHour(received_at) AS hour, event,
        if(event IN ('popup_displayed', 'popup_opened'), popup_version, '') AS popup_version,
        if(event = 'convo_started', open_way, '') AS open_way,
        count() AS expected
    FROM ({{> verify/scope_events}})
    WHERE NOT is_bot AND prev_copy_at = 0
    GROUP BY chatbot_id, hour, event, popup_version, open_way
) AS e USING (chatbot_id, hour, event, popup_version, open_way)
WHERE stored != expected
SETTINGS join_use_nulls = 0
