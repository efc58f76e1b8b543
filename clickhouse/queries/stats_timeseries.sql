-- Daily series of one chatbot over W = [{from}, {to}] (see "timeseries" in the statistics
-- definitions, services/dashboard/README.md): one row per UTC day that has any of them;
-- the caller fills the days without rows with zeros.
--   visitors      = distinct tokens with a `visitor` event that day;
--   conversations = convo_started events that day (each event_id once, as popup-metrics counts them);
--   purchases / revenue = the purchases the purchases statistic counts (P: order rule, token in
--     V over the whole window), by the day of their earliest copy, and their EUR revenue.
-- Summed over the days, purchases and revenue are exactly that statistic's orders and
-- total_revenue_purchased; visitors are per day, so their sum counts a returning token once a day.
-- Reads the window once (shared/window_rows.sql): one row per token carries its
-- days, its counted purchases and whether it is in V, so V is not read a second time for the
-- purchases' "token in V".
WITH
    per_token AS
    (
        SELECT
            e.token AS token,
            max(e.event = 'visitor') AS in_v,
            groupUniqArrayIf(toDate(e.received_at), e.event = 'visitor') AS visit_days,
            groupArrayIf(toDate(e.received_at), e.event = 'convo_started') AS conversation_days,
            arrayMap(p -> (toDate(p.1), p.2), {{> shared/counted_purchases}}) AS purchases
        FROM {{> shared/window_rows rows=(event IN ('visitor', 'convo_started', 'purchase'))}}
        GROUP BY e.token
    )
SELECT toString(day) AS day,
       countIf(kind = 1) AS visitors,
       countIf(kind = 2) AS conversations,
       countIf(kind = 3) AS purchases,
       sumIf(revenue, kind = 3) AS revenue
FROM
(
    -- Back to one row per (day, kind): a token's purchases count only when it is in V.
    SELECT tupleElement(d, 1) AS day, tupleElement(d, 2) AS kind, tupleElement(d, 3) AS revenue
    FROM per_token
    ARRAY JOIN arrayConcat(
        arrayMap(x -> (x, 1, toFloat64(0)), visit_days),
        arrayMap(x -> (x, 2, toFloat64(0)), conversation_days),
        if(in_v, arrayMap(p -> (p.1, 3, p.2), purchases), [])) AS d
)
GROUP BY day
ORDER BY day ASC
