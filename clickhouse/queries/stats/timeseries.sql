-- Daily series of one chatbot over W = [{from}, {to}] (see "timeseries" in the statistics
-- definitions, services/dashboard/README.md): one row per UTC day that has any of them;
-- the caller fills the days without rows with zeros.
--   visitors      = distinct tokens with a `visitor` event that day;
--   conversations = convo_started events that day (each event_id once, as popup-metrics counts them);
--   purchases / revenue = the purchases the purchases statistic counts (P: order rule, token in
--     V over the whole window), by the day of their earliest copy, and their EUR revenue.
-- Summed over the days, purchases and revenue are exactly that statistic's orders and
-- total_revenue_purchased; visitors are per day, so their sum counts a returning token once a day.
-- Visitors per day are the day's bitmaps of visitor token ids (whole days from token_day_sets,
-- the other whole hours from token_hour_sets, partial hours and copies as in
-- shared/window_token_sets.sql), conversations
-- the day's counts (shared/window_event_counts.sql does the same for the whole window).
WITH
    sets AS
    (
        SELECT groupBitmapMergeStateIf(tokens, kind = 'visitor') AS visitors
        FROM {{> shared/window_token_sets kinds=('visitor')}}
    ),
    visitor_days AS
    (
        SELECT day, bitmapCardinality(groupBitmapMergeState(tokens)) AS visitors
        FROM
        (
            SELECT day, tokens
            FROM token_day_sets
            WHERE chatbot_id = {chatbot_id:String}
              AND kind = 'visitor'
              AND day >= toDate({days_from:DateTime('UTC')})
              AND day < toDate({days_to:DateTime('UTC')})
            UNION ALL
            SELECT toDate(hour) AS day, tokens
            FROM token_hour_sets
            WHERE chatbot_id = {chatbot_id:String}
              AND kind = 'visitor'
              AND hour >= {hours_from:DateTime('UTC')}
              AND hour < {hours_to:DateTime('UTC')}
              AND (hour < {days_from:DateTime('UTC')} OR hour >= {days_to:DateTime('UTC')})
            UNION ALL
            SELECT toDate(received_at) AS day, groupBitmapState(token_id) AS tokens
            FROM
            (
                WITH received_at < {hours_from:DateTime('UTC')} OR received_at >= {hours_to:DateTime('UTC')} AS in_partial_hour
                SELECT received_at, token_id
                FROM events
                WHERE {{> shared/window_events rows=(in_partial_hour AND event = 'visitor')}}
                UNION ALL
                SELECT received_at, token_id
                FROM event_copies
                WHERE chatbot_id = {chatbot_id:String}
                  AND event = 'visitor'
                  AND received_at >= {hours_from:DateTime('UTC')}
                  AND received_at < {hours_to:DateTime('UTC')}
                  AND prev_copy_at < {dedup_lookback_from:DateTime64(3, 'UTC')}
            )
            GROUP BY day
        )
        GROUP BY day
    ),
    conversation_days AS
    (
        SELECT toDate(hour) AS day, sum(n) AS conversations
        FROM
        (
            SELECT hour, events AS n
            FROM event_hour_counts
            WHERE chatbot_id = {chatbot_id:String}
              AND event = 'convo_started'
              AND hour >= {hours_from:DateTime('UTC')}
              AND hour < {hours_to:DateTime('UTC')}
            UNION ALL
            SELECT toDateTime(received_at, 'UTC') AS hour, 1 AS n
            FROM
            (
                WITH received_at < {hours_from:DateTime('UTC')} OR received_at >= {hours_to:DateTime('UTC')} AS in_partial_hour
                SELECT received_at
                FROM events
                WHERE {{> shared/window_events rows=(in_partial_hour AND event = 'convo_started')}}
                UNION ALL
                SELECT received_at
                FROM event_copies
                WHERE chatbot_id = {chatbot_id:String}
                  AND event = 'convo_started'
                  AND received_at >= {hours_from:DateTime('UTC')}
                  AND received_at < {hours_to:DateTime('UTC')}
                  AND prev_copy_at < {dedup_lookback_from:DateTime64(3, 'UTC')}
            )
        )
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
SELECT
    toString(day) AS day,
    sum(visitors) AS visitors,
    sum(conversations) AS conversations,
    sum(purchases) AS purchases,
    sum(revenue) AS revenue
FROM
(
    SELECT day, visitors, 0 AS conversations, 0 AS purchases, toFloat64(0) AS revenue FROM visitor_days
    UNION ALL
    SELECT day, 0, conversations, 0, 0 FROM conversation_days
    UNION ALL
    SELECT day, 0, 0, day_purchases, day_revenue FROM purchase_days
)
GROUP BY day
ORDER BY day ASC
