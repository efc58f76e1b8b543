-- Where visitors come from (services/dashboard/README.md, "sources"): the purchase funnel of
-- one chatbot over W = [{from}, {to}] per value of one segment attribute, {by} = 'source',
-- 'utm_campaign' or 'device'.
--   V (visitor tokens in W); a token's segment = the attributes of its earliest visitor row in
--   W (ties: smallest event_id), as in shared/segment_tokens.sql.
--   Per value: visitors = tokens of V with that value; chatted = those with a convo_started in
--   W; purchasers = those with a counted purchase in W (shared/window_purchases.sql: each
--   purchase once, each order number once over all history); chatted_purchasers = those with a
--   purchase after their first chat; revenue = their counted purchases' EUR.
-- One row per value, unsorted and uncut: the caller sorts by visitors, keeps 50 and sums the
-- rest, and derives the rates (2 decimals, 0 on a zero denominator).
-- The chatters are the window's bitmap; the segments a read of the window's visitor rows; the
-- purchases shared/window_purchases_after_chat.sql, summed per token.
WITH
    sets AS
    (
        SELECT groupBitmapMergeStateIf(tokens, kind = 'convo_started') AS chatters
        FROM {{> shared/window_token_sets kinds=('convo_started')}}
    ),
    segments AS
    (
        -- One row per token of V: the value of `by` of its earliest visitor row in W.
        SELECT
            token_id,
            argMin(multiIf({by:String} = 'source', source, {by:String} = 'utm_campaign', utm_campaign, device),
                   {{> shared/visit_order}}) AS value
        FROM events
        WHERE {{> shared/window_events rows=(event = 'visitor')}}
        GROUP BY token_id
    ),
    purchasing AS
    (
        SELECT
            token_id,
            count() AS token_orders,
            countIf(after_chat) AS token_orders_after_chat,
            sum(revenue) AS token_revenue
        FROM {{> shared/window_purchases_after_chat}}
        GROUP BY token_id
    )
SELECT
    s.value AS value,
    count() AS visitors,
    countIf(bitmapContains((SELECT chatters FROM sets), s.token_id)) AS chatted,
    countIf(p.token_orders > 0) AS purchasers,
    countIf(p.token_orders_after_chat > 0) AS chatted_purchasers,
    sum(p.token_revenue) AS revenue
FROM segments AS s
LEFT JOIN purchasing AS p ON p.token_id = s.token_id
GROUP BY value
SETTINGS join_use_nulls = 0
