-- Daily series of one chatbot over W = [{from}, {to}] (see "timeseries" in the statistics
-- definitions, services/dashboard/README.md): one row per UTC day that has any of them;
-- the caller fills the days without rows with zeros.
--   visitors      = distinct tokens with a `visitor` event that day;
--   conversations = convo_started events that day (each event_id once, as popup-metrics counts them);
--   purchases / revenue = the purchases the purchases statistic counts (P: order rule, token in
--     V over the whole window), by the day of their earliest copy, and their EUR revenue.
-- Summed over the days, purchases and revenue are exactly that statistic's orders and
-- total_revenue_purchased; visitors are per day, so their sum counts a returning token once a day.
-- Reads: the window's visitor and conversation rows once, the purchases once (with the order
-- rollup). Each read of `events` costs the embedded engine a fixed few milliseconds, so V is
-- not read a second time for the purchases' "token in V": one row per token carries its days
-- and purchases, and whether it is in V.
WITH
    window_rows AS
    (
        -- Each event once, as its earliest copy (shared/window_events.sql).
        SELECT token AS first_token, event AS first_event, received_at AS at
        FROM events
        WHERE {{> shared/window_events rows=(event IN ('visitor', 'convo_started'))}}
    ),
    {{> shared/counted_purchases}},
    per_token AS
    (
        -- kind: 1 visitor event, 2 conversation, 3 counted purchase.
        SELECT
            token,
            max(kind = 1) AS in_v,
            groupUniqArrayIf(day, kind = 1) AS visit_days,
            groupArrayIf(day, kind = 2) AS conversation_days,
            groupArrayIf((day, revenue), kind = 3) AS purchases
        FROM
        (
            SELECT first_token AS token, toDate(at) AS day, if(first_event = 'visitor', 1, 2) AS kind, toFloat64(0) AS revenue
            FROM window_rows
            UNION ALL
            SELECT token, toDate(at) AS day, 3 AS kind, revenue
            FROM counted_in_window
        )
        GROUP BY token
    )
SELECT toString(day) AS day,
       countIf(kind = 1) AS visitors,
       countIf(kind = 2) AS conversations,
       countIf(kind = 3) AS purchases,
       sumIf(revenue, kind = 3) AS revenue
FROM
(
    -- Back to one row per (day, kind): a token's purchases count only when it is in V.
    SELECT tupleElement(e, 1) AS day, tupleElement(e, 2) AS kind, tupleElement(e, 3) AS revenue
    FROM per_token
    ARRAY JOIN arrayConcat(
        arrayMap(d -> (d, 1, toFloat64(0)), visit_days),
        arrayMap(d -> (d, 2, toFloat64(0)), conversation_days),
        if(in_v, arrayMap(p -> (p.1, 3, p.2), purchases), [])) AS e
)
GROUP BY day
ORDER BY day ASC
