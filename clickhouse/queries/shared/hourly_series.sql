-- The hourly series of stats/timeseries_hourly.sql and stats/timeseries_hourly_orders.sql (the
-- `timeseries` statistic with bucket=hour), which differ only in where the window's purchases
-- come from: {{purchases}} is a SELECT of (token_id, at, revenue) rows (shared/window_purchases.sql,
-- or the shop's orders: shared/window_orders.sql). As shared/daily_series.sql by UTC hour:
-- visitors = the hour's distinct visitor tokens (its token_hour_sets bitmap for the whole hours
-- [{hours_from}, {hours_to}), the rows of shared/window_rest.sql for the rest of W);
-- conversations = its convo_started events (event_hour_counts, and the rest of W);
-- purchases / revenue = P (token in V over the whole window) by the hour of their time.
WITH
    sets AS
    (
        SELECT groupBitmapMergeStateIf(tokens, kind = 'visitor') AS visitors
        FROM {{> shared/window_token_sets kinds=('visitor')}}
    ),
    visitor_hours AS
    (
        SELECT hour, bitmapCardinality(groupBitmapMergeState(tokens)) AS visitors
        FROM
        (
            SELECT hour, tokens
            FROM token_hour_sets
            WHERE chatbot_id = {chatbot_id:String}
              AND kind = 'visitor'
              AND hour >= {hours_from:DateTime('UTC')}
              AND hour < {hours_to:DateTime('UTC')}
            UNION ALL
            SELECT toStartOfHour(received_at) AS hour, groupBitmapState(token_id) AS tokens
            FROM {{> shared/window_rest rows=(event = 'visitor')}}
            GROUP BY hour
        )
        GROUP BY hour
    ),
    conversation_hours AS
    (
        SELECT hour, sum(n) AS conversations
        FROM
        (
            SELECT hour, events AS n
            FROM event_hour_counts
            WHERE chatbot_id = {chatbot_id:String}
              AND event = 'convo_started'
              AND hour >= {hours_from:DateTime('UTC')}
              AND hour < {hours_to:DateTime('UTC')}
            UNION ALL
            SELECT toStartOfHour(received_at) AS hour, count() AS n
            FROM {{> shared/window_rest rows=(event = 'convo_started')}}
            GROUP BY hour
        )
        GROUP BY hour
    ),
    purchase_hours AS
    (
        SELECT
            toStartOfHour(at) AS hour,
            countIf(bitmapContains(visitors, token_id)) AS hour_purchases,
            sumIf(revenue, bitmapContains(visitors, token_id)) AS hour_revenue
        FROM {{purchases}} AS p
        CROSS JOIN sets
        GROUP BY hour
    )
SELECT formatDateTime(hour, '%Y-%m-%dT%H:00:00Z', 'UTC') AS hour, visitors, conversations, hour_purchases AS purchases, hour_revenue AS revenue
FROM visitor_hours
FULL OUTER JOIN conversation_hours USING (hour)
FULL OUTER JOIN purchase_hours USING (hour)
ORDER BY hour ASC
SETTINGS join_use_nulls = 0
