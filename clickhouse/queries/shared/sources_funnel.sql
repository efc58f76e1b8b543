-- The funnel per segment value of stats/sources.sql and stats/sources_orders.sql, which differ
-- only in where the purchases come from: {{purchases}} is a SELECT of (token_id, at, revenue,
-- after_chat) rows (shared/window_purchases_after_chat.sql, or the shop's orders:
-- shared/window_orders_after_chat.sql).
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
        FROM {{purchases}} AS purchases_after_chat
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
