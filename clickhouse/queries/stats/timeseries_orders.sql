-- The daily series of stats/timeseries.sql under the revenue source 'orders' (services/
-- dashboard/docs/statistics.md, "Revenue source"): visitors and conversations as there;
-- purchases / revenue = the orders the purchases statistic counts under that source (latest
-- state, placed in W, token in V; net EUR revenue: shared/window_orders_after_chat.sql), by the
-- UTC day of placed_at. Summed over the days they are that statistic's orders and revenue.
WITH
    sets AS
    (
        SELECT groupBitmapMergeStateIf(tokens, kind = 'visitor') AS visitors
        FROM {{> shared/window_token_sets kinds=('visitor')}}
    ),
    visitor_days AS
    (
        SELECT day, bitmapCardinality(groupBitmapMergeState(tokens)) AS visitors
        FROM {{> shared/window_token_sets kinds=('visitor')}}
        GROUP BY day
    ),
    conversation_days AS
    (
        SELECT day, sum(events) AS conversations
        FROM {{> shared/window_event_counts kinds=('convo_started')}}
        GROUP BY day
    ),
    purchase_days AS
    (
        -- P (the orders of V) by the day they were placed: the window's visitor bitmap joined once.
        SELECT
            toDate(at) AS day,
            countIf(bitmapContains(visitors, token_id)) AS day_purchases,
            sumIf(revenue, bitmapContains(visitors, token_id)) AS day_revenue
        FROM {{> shared/window_orders_after_chat}}
        CROSS JOIN sets
        GROUP BY day
    )
SELECT toString(day) AS day, visitors, conversations, day_purchases AS purchases, day_revenue AS revenue
FROM visitor_days
FULL OUTER JOIN conversation_days USING (day)
FULL OUTER JOIN purchase_days USING (day)
ORDER BY day ASC
SETTINGS join_use_nulls = 0
