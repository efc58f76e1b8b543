-- event_hour_counts against its view's SELECT over the scope's rows (views/event_hour_counts_mv).
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
    SELECT chatbot_id, hour, event, popup_version, open_way, sum(events) AS expected
    FROM
    (
        WITH events AS ({{> verify/scope_events}})
        {{> views/event_hour_counts_mv}}
    )
    GROUP BY chatbot_id, hour, event, popup_version, open_way
) AS e USING (chatbot_id, hour, event, popup_version, open_way)
WHERE stored != expected
SETTINGS join_use_nulls = 0
