-- Daily series of one chatbot over W = [{from}, {to}] (see "timeseries" in the statistics
-- definitions, services/dashboard/README.md): one row per UTC day that has any of them;
-- the caller fills the days without rows with zeros.
--   visitors      = distinct tokens with a `visitor` event that day;
--   conversations = convo_started events that day (each event_id once, as popup-metrics counts them);
--   purchases / revenue = the purchases the purchases statistic counts (P: order rule, token in
--     V over the whole window), by the day of their earliest copy, and their EUR revenue.
-- Summed over the days, purchases and revenue are exactly that statistic's orders and
-- total_revenue_purchased; visitors are per day, so their sum counts a returning token once a day.
-- Visitors per day are the day's bitmaps of visitor token ids, conversations the day's counts:
-- the rows of shared/window_token_sets.sql and shared/window_event_counts.sql, by day.
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
        -- P (the purchases of V) by day: the window's visitor bitmap joined once.
        SELECT
            toDate(at) AS day,
            countIf(bitmapContains(visitors, token_id)) AS day_purchases,
            sumIf(revenue, bitmapContains(visitors, token_id)) AS day_revenue
        FROM {{> shared/window_purchases}}
        CROSS JOIN sets
        GROUP BY day
    )
SELECT toString(day) AS day, visitors, conversations, day_purchases AS purchases, day_revenue AS revenue
FROM visitor_days
FULL OUTER JOIN conversation_days USING (day)
FULL OUTER JOIN purchase_days USING (day)
ORDER BY day ASC
SETTINGS join_use_nulls = 0
