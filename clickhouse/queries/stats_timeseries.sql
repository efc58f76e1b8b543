-- Daily series of one chatbot over W = [{from}, {to}] (see "timeseries" in the statistics
-- definitions, services/dashboard/README.md): one row per UTC day that has any of them;
-- the caller fills the days without rows with zeros.
--   visitors      = distinct tokens with a `visitor` event that day;
--   conversations = convo_started events that day (each event_id once, as popup-metrics counts them);
--   purchases / revenue = the purchases the purchases statistic counts (P: order rule, token in
--     V over the whole window), by the day of their earliest copy, and their EUR revenue.
-- Summed over the days, purchases and revenue are exactly that statistic's orders and
-- total_revenue_purchased; visitors are per day, so their sum counts a returning token once a day.
-- Deduplication: shared/window_events.sql (retried beacons) and shared/counted_purchases.sql.
WITH
    window_rows AS
    (
        -- Each event_id once, as its earliest copy (the statistics definitions' rule). Grouped by
        -- the id alone: a fixed 16-byte key hashes several times cheaper than (token, event, id)
        -- with its String, which a big shop's millions of rows made the page's slowest query.
        SELECT event_id, argMin(token, received_at) AS first_token, argMin(event, received_at) AS first_event, min(received_at) AS at
        FROM events
        WHERE {{> shared/window_events rows=(event IN ('visitor', 'convo_started'))}}
        GROUP BY event_id
    ),
    window_visitors AS
    (
        -- V, read on its own: ClickHouse inlines a CTE at each use, so taking V from window_rows
        -- would group the window's events by id a second time.
        SELECT DISTINCT token
        FROM events
        WHERE {{> shared/window_events rows=(event = 'visitor')}}
    ),
    {{> shared/counted_purchases}},
    daily AS
    (
        SELECT toDate(at) AS day, uniqExactIf(first_token, first_event = 'visitor') AS visitors,
               countIf(first_event = 'convo_started') AS conversations, 0 AS purchases, 0 AS revenue
        FROM window_rows
        GROUP BY day
        UNION ALL
        SELECT toDate(at) AS day, 0 AS visitors, 0 AS conversations, count() AS purchases, sum(revenue) AS revenue
        FROM counted_in_window
        WHERE token IN (SELECT token FROM window_visitors)
        GROUP BY day
    )
SELECT toString(day) AS day, sum(visitors) AS visitors, sum(conversations) AS conversations,
       sum(purchases) AS purchases, sum(revenue) AS revenue
FROM daily
GROUP BY day
ORDER BY day ASC
