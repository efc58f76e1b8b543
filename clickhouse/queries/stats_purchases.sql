-- Purchase funnel of one chatbot over W = [{from}, {to}] (see the statistics definitions in services/dashboard/README.md, "purchases").
--   V (visitor tokens in W), chatted = tokens of V with a convo_started in W,
--   first_chat(u) = u's earliest convo_started in W.
--   Counted purchases: as defined in shared/counted_purchases.sql (each purchase once, each
--   order number once over all history). P = counted purchases in W whose token is in V.
--   A purchase is after chat when first_chat exists and the purchase is strictly later.
-- Returns the counts and sums; the caller derives rates and averages (2 decimals, 0 on a zero
-- denominator): conversion_rate_with_chat, conversion_rate_without_chat, aov_with_chat,
-- aov_without_chat.
-- Retried beacons of visitor and convo_started events are removed (shared/window_events.sql).
WITH
    window_tokens AS
    (
        -- One row per token of V; retried copies of events that arrived before W are removed.
        SELECT
            token,
            max(event = 'convo_started') AS chatted,
            minIf(received_at, event = 'convo_started') AS first_chat_at
        FROM events
        WHERE {{> shared/window_events rows=(event IN ('visitor', 'convo_started'))}}
        GROUP BY token
        HAVING max(event = 'visitor')
    ),
    {{> shared/counted_purchases}}
SELECT
    count() AS total_users,
    countIf(chatted) AS total_users_chatted,
    countIf(token_orders > 0) AS total_users_purchased,
    countIf(token_orders_after_chat > 0) AS total_users_chatted_purchased,
    sum(token_revenue) AS total_revenue_purchased,
    sum(token_revenue_after_chat) AS total_revenue_chatted_purchased,
    -- Summed separately, not as a difference: subtracting two large sums loses the cents.
    sum(token_revenue_other) AS revenue_other,
    sum(token_orders) AS orders,
    sum(token_orders_after_chat) AS orders_after_chat
FROM
(
    -- Tokens are at least 8 characters, so p.token = '' marks a visitor without purchases
    -- (ClickHouse fills unmatched LEFT JOIN columns with defaults, not NULL).
    SELECT
        v.token AS token,
        any(v.chatted) AS chatted,
        countIf(p.token != '') AS token_orders,
        countIf(p.token != '' AND v.chatted AND p.at > v.first_chat_at) AS token_orders_after_chat,
        sumIf(p.revenue, p.token != '') AS token_revenue,
        sumIf(p.revenue, p.token != '' AND v.chatted AND p.at > v.first_chat_at) AS token_revenue_after_chat,
        sumIf(p.revenue, p.token != '' AND NOT (v.chatted AND p.at > v.first_chat_at)) AS token_revenue_other
    FROM window_tokens AS v
    LEFT JOIN counted_in_window AS p ON p.token = v.token
    GROUP BY v.token
)
