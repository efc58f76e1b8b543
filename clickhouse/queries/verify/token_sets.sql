-- token_hour_sets and token_day_sets against their views' SELECTs over the scope's rows
-- (views/token_hour_sets_mv; views/token_day_sets_mv over those hours): a difference is any id
-- in one and not the other.
WITH expected_hours AS
(
    WITH events AS ({{> verify/scope_events}})
    {{> views/token_hour_sets_mv}}
),
expected_days AS
(
    WITH token_hour_sets AS (SELECT * FROM expected_hours)
    {{> views/token_day_sets_mv}}
)
SELECT 'token_hour_sets' AS check, chatbot_id, toDate(hour) AS day, concat(toString(hour), ' ', kind) AS key,
    toString(bitmapCardinality(s.tokens)) AS stored, toString(bitmapCardinality(e.tokens)) AS expected
FROM
(
    SELECT chatbot_id, hour, kind, groupBitmapMergeState(tokens) AS tokens
    FROM token_hour_sets
    WHERE ({chatbot_id:String} = '' OR chatbot_id = {chatbot_id:String})
      AND hour >= toStartOfHour({from:DateTime64(3, 'UTC')}) AND hour < {to:DateTime64(3, 'UTC')}
    GROUP BY chatbot_id, hour, kind
) AS s
FULL OUTER JOIN expected_hours AS e USING (chatbot_id, hour, kind)
WHERE bitmapXorCardinality(s.tokens, e.tokens) != 0
UNION ALL
SELECT 'token_day_sets' AS check, chatbot_id, day, concat(toString(day), ' ', kind) AS key,
    toString(bitmapCardinality(s.tokens)) AS stored, toString(bitmapCardinality(e.tokens)) AS expected
FROM
(
    SELECT chatbot_id, day, kind, groupBitmapMergeState(tokens) AS tokens
    FROM token_day_sets
    WHERE ({chatbot_id:String} = '' OR chatbot_id = {chatbot_id:String})
      AND day >= toDate({from:DateTime64(3, 'UTC')}) AND day < {to:DateTime64(3, 'UTC')}
    GROUP BY chatbot_id, day, kind
) AS s
FULL OUTER JOIN expected_days AS e USING (chatbot_id, day, kind)
WHERE bitmapXorCardinality(s.tokens, e.tokens) != 0
SETTINGS join_use_nulls = 0
