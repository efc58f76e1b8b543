-- Where visitors come from (services/dashboard/README.md, "sources"): the purchase funnel of
-- one chatbot over W = [{from}, {to}] per value of one segment attribute, {by} = 'source',
-- 'utm_campaign' or 'device'.
--   V (visitor tokens in W); a token's segment = the attributes of its earliest visitor row in
--   W (ties: smallest event_id), as in shared/segment_tokens.sql.
--   Per value: visitors = tokens of V with that value; chatted = those with a convo_started in
--   W; purchasers = those with a counted purchase in W (shared/counted_purchases.sql: each
--   purchase once, each order number once over all history); chatted_purchasers = those with a
--   purchase after their first chat; revenue = their counted purchases' EUR.
-- One row per value, unsorted and uncut: the caller sorts by visitors, keeps 50 and sums the
-- rest, and derives the rates (2 decimals, 0 on a zero denominator).
-- One read of the window: the columns of shared/window_rows.sql plus the segment's three.
WITH
    by_token AS
    (
        -- One row per token of V.
        SELECT
            {{> shared/token_purchases}},
            argMinIf(e.source, (e.received_at, UUIDToNum(e.event_id)), e.event = 'visitor') AS first_source,
            argMinIf(e.utm_campaign, (e.received_at, UUIDToNum(e.event_id)), e.event = 'visitor') AS first_utm_campaign,
            argMinIf(e.device, (e.received_at, UUIDToNum(e.event_id)), e.event = 'visitor') AS first_device
        FROM
        (
            SELECT token, event, received_at, order_num, event_id, total_value_base, source, utm_campaign, device
            FROM events
            WHERE {{> shared/window_events rows=(event IN ('visitor', 'convo_started', 'purchase'))}}
        ) AS e
        GROUP BY e.token
        HAVING max(e.event = 'visitor')
    ),
    per_token AS
    (
        SELECT
            multiIf({by:String} = 'source', first_source, {by:String} = 'utm_campaign', first_utm_campaign, first_device) AS value,
            chatted,
            {{> shared/token_purchase_figures}}
        FROM by_token
    )
SELECT
    value,
    count() AS visitors,
    countIf(chatted) AS chatted,
    countIf(token_orders > 0) AS purchasers,
    countIf(token_orders_after_chat > 0) AS chatted_purchasers,
    sum(token_revenue) AS revenue
FROM per_token
GROUP BY value
