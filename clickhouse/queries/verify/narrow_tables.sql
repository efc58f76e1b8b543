-- The narrow tables (event_copies, purchases, conversation_starts, chat_clicks) against their views' SELECTs
-- over the scope's rows (views/<table>_mv), per chatbot and hour: the number of rows and a
-- fingerprint of their columns (a sum of row hashes: equal for equal multisets of rows).
SELECT check, chatbot_id, toDate(hour) AS day, toString(hour) AS key,
    concat(toString(s.rows), ' rows #', toString(s.print)) AS stored, concat(toString(e.rows), ' rows #', toString(e.print)) AS expected
FROM
(
    SELECT 'event_copies' AS check, chatbot_id, toStartOfHour(received_at) AS hour, count() AS rows,
        sum(cityHash64(received_at, event, token_id, ab_group, popup_version, open_way, holdout, prev_copy_at)) AS print
    FROM event_copies
    WHERE ({chatbot_id:String} = '' OR chatbot_id = {chatbot_id:String})
      AND received_at >= {from:DateTime64(3, 'UTC')} AND received_at < {to:DateTime64(3, 'UTC')}
    GROUP BY chatbot_id, hour
    UNION ALL
    SELECT 'purchases' AS check, chatbot_id, toStartOfHour(received_at) AS hour, count() AS rows,
        sum(cityHash64(received_at, event_id, token_id, order_num, revenue, prev_copy_at)) AS print
    FROM purchases
    WHERE ({chatbot_id:String} = '' OR chatbot_id = {chatbot_id:String})
      AND received_at >= {from:DateTime64(3, 'UTC')} AND received_at < {to:DateTime64(3, 'UTC')}
    GROUP BY chatbot_id, hour
    UNION ALL
    SELECT 'conversation_starts' AS check, chatbot_id, toStartOfHour(received_at) AS hour, count() AS rows,
        sum(cityHash64(received_at, token_id, prev_copy_at)) AS print
    FROM conversation_starts
    WHERE ({chatbot_id:String} = '' OR chatbot_id = {chatbot_id:String})
      AND received_at >= {from:DateTime64(3, 'UTC')} AND received_at < {to:DateTime64(3, 'UTC')}
    GROUP BY chatbot_id, hour
    UNION ALL
    SELECT 'chat_clicks' AS check, chatbot_id, toStartOfHour(received_at) AS hour, count() AS rows,
        sum(cityHash64(received_at, token_id, item_id, prev_copy_at)) AS print
    FROM chat_clicks
    WHERE ({chatbot_id:String} = '' OR chatbot_id = {chatbot_id:String})
      AND received_at >= {from:DateTime64(3, 'UTC')} AND received_at < {to:DateTime64(3, 'UTC')}
    GROUP BY chatbot_id, hour
) AS s
FULL OUTER JOIN
(
    WITH events AS ({{> verify/scope_events}})
    SELECT 'event_copies' AS check, chatbot_id, toStartOfHour(received_at) AS hour, count() AS rows,
        sum(cityHash64(received_at, event, token_id, ab_group, popup_version, open_way, holdout, prev_copy_at)) AS print
    FROM ({{> views/event_copies_mv}})
    GROUP BY chatbot_id, hour
    UNION ALL
    SELECT 'purchases' AS check, chatbot_id, toStartOfHour(received_at) AS hour, count() AS rows,
        sum(cityHash64(received_at, event_id, token_id, order_num, revenue, prev_copy_at)) AS print
    FROM ({{> views/purchases_mv}})
    GROUP BY chatbot_id, hour
    UNION ALL
    SELECT 'conversation_starts' AS check, chatbot_id, toStartOfHour(received_at) AS hour, count() AS rows,
        sum(cityHash64(received_at, token_id, prev_copy_at)) AS print
    FROM ({{> views/conversation_starts_mv}})
    GROUP BY chatbot_id, hour
    UNION ALL
    SELECT 'chat_clicks' AS check, chatbot_id, toStartOfHour(received_at) AS hour, count() AS rows,
        sum(cityHash64(received_at, token_id, item_id, prev_copy_at)) AS print
    FROM ({{> views/chat_clicks_mv}})
    GROUP BY chatbot_id, hour
) AS e USING (check, chatbot_id, hour)
WHERE s.rows != e.rows OR s.print != e.print
SETTINGS join_use_nulls = 0
