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
            {{> shared/counted_purchases}} AS purchases
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
    SELECT d.day AS day, d.kind AS kind, d.revenue AS revenue
    FROM per_token
    ARRAY JOIN CAST(arrayConcat(
        arrayMap(x -> (x, 1, toFloat64(0)), visit_days),
        arrayMap(x -> (x, 2, toFloat64(0)), conversation_days),
        if(in_v, arrayMap(p -> (toDate(p.at), 3, p.revenue), purchases), [])),
        'Array(Tuple(day Date, kind UInt8, revenue Float64))') AS d
)
GROUP BY day
ORDER BY day ASC
