-- The daily series of stats/timeseries.sql and stats/timeseries_orders.sql, which differ only in
-- where the window's purchases come from: {{purchases}} is a SELECT of (token_id, at, revenue)
-- rows (shared/window_purchases.sql, or the shop's orders: shared/window_orders.sql).
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
        -- P (the purchases, or orders, of V) by day: the window's visitor bitmap joined once.
        SELECT
            toDate(at) AS day,
            countIf(bitmapContains(visitors, token_id)) AS day_purchases,
            sumIf(revenue, bitmapContains(visitors, token_id)) AS day_revenue
        FROM {{purchases}} AS p
        CROSS JOIN sets
        GROUP BY day
    )
SELECT toString(day) AS day, visitors, conversations, day_purchases AS purchases, day_revenue AS revenue
FROM visitor_days
FULL OUTER JOIN conversation_days USING (day)
FULL OUTER JOIN purchase_days USING (day)
ORDER BY day ASC
SETTINGS join_use_nulls = 0
