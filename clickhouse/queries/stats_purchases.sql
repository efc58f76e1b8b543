-- Purchase funnel of one chatbot over W = [{from}, {to}] (see the statistics definitions in services/dashboard/README.md, "purchases"),
-- with its A/B block (read by chatbots with abTestEnabled) from the same reads.
--   V (visitor tokens in W), chatted = tokens of V with a convo_started in W,
--   first_chat(u) = u's earliest convo_started in W.
--   Counted purchases: as defined in shared/counted_purchases.sql (each purchase once, each
--   order number once over all history). P = counted purchases in W whose token is in V.
--   A purchase is after chat when first_chat exists and the purchase is strictly later.
--   A/B: V_g = tokens of V with an event in W whose ab_group is g; visitors = |V_g|;
--   orders = purchases of P by V_g; purchasers = distinct purchasing tokens of V_g; revenue =
--   their purchases' revenue.
-- Returns the counts and sums; the caller derives rates and averages (2 decimals, 0 on a zero
-- denominator): conversion_rate_with_chat, conversion_rate_without_chat, aov_with_chat,
-- aov_without_chat, and the A/B block's rates and significance figures.
-- Retried beacons of the events read are removed (shared/window_events.sql). The read takes the
-- A/B-marked rows too: for a chatbot without A/B test none is marked, so it costs nothing there,
-- and it spares an A/B chatbot a second pass over the same window (one query, not two).
WITH
    window_tokens AS
    (
        -- One row per token of V; retried copies of events that arrived before W are removed.
        SELECT
            token,
            max(event = 'convo_started') AS chatted,
            minIf(received_at, event = 'convo_started') AS first_chat_at,
            max(ifNull(ab_group = 'control', false)) AS in_control,
            max(ifNull(ab_group = 'test', false)) AS in_test
        FROM events
        WHERE {{> shared/window_events rows=(event IN ('visitor', 'convo_started') OR ab_group IN ('control', 'test'))}}
        GROUP BY token
        HAVING max(event = 'visitor')
    ),
    {{> shared/counted_purchases}},
    by_token AS
    (
        -- Tokens are at least 8 characters, so p.token = '' marks a visitor without purchases
        -- (ClickHouse fills unmatched LEFT JOIN columns with defaults, not NULL).
        SELECT
            v.token AS token,
            any(v.chatted) AS chatted,
            any(v.in_control) AS in_control,
            any(v.in_test) AS in_test,
            countIf(p.token != '') AS token_orders,
            countIf(p.token != '' AND v.chatted AND p.at > v.first_chat_at) AS token_orders_after_chat,
            sumIf(p.revenue, p.token != '') AS token_revenue,
            sumIf(p.revenue, p.token != '' AND v.chatted AND p.at > v.first_chat_at) AS token_revenue_after_chat,
            sumIf(p.revenue, p.token != '' AND NOT (v.chatted AND p.at > v.first_chat_at)) AS token_revenue_other
        FROM window_tokens AS v
        LEFT JOIN counted_in_window AS p ON p.token = v.token
        GROUP BY v.token
    )
SELECT
    count() AS total_users,
    countIf(chatted) AS total_users_chatted,
    countIf(in_control) AS control_visitors,
    countIf(in_test) AS test_visitors,
    {{> shared/purchase_totals}}
FROM by_token
