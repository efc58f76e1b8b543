-- The funnel per segment value of stats/sources.sql under the revenue source 'orders' (services/
-- dashboard/docs/statistics.md, "Revenue source"): purchasers, chatted_purchasers and revenue
-- from the shop's orders placed in W (latest state, net EUR; after chat within {window_days}
-- days before the order: shared/window_orders_after_chat.sql); visitors and chatted as there.
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
        FROM {{> shared/window_orders_after_chat}}
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
