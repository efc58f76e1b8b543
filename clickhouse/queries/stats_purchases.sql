-- Purchase funnel of one chatbot over W = [{from}, {to}] (see the statistics definitions in services/dashboard/README.md, "purchases").
--   V (visitor tokens in W), chatted = tokens of V with a convo_started in W,
--   first_chat(u) = u's earliest convo_started in W.
--   Counted purchases: every purchase event once, at its earliest received_at, under the
--   retry rule of stats_engagement.sql (a copy in W of an event received in
--   [{dedup_lookback_from}, {from}) does not count); then per order_num only the chatbot's
--   earliest purchase row EVER (ties: smallest event_id) counts, so an order first seen before
--   W is not counted again inside it; purchases without order_num ('') all count.
--   P = counted purchases in W whose token is in V.
--   A purchase is after chat when first_chat exists and the purchase is strictly later.
--   Revenue sums total_value_base with NULL (unknown currency) as 0.
-- Returns the counts and sums; the caller derives rates and averages (2 decimals, 0 on a zero
-- denominator): conversion_rate_with_chat, conversion_rate_without_chat, aov_with_chat,
-- aov_without_chat.
-- Reading: the window's events from {dedup_lookback_from} to {to}; the order-number lookup
-- covers the chatbot's whole history (orders are exact over all time) but only its purchase
-- rows with an order number, in this chatbot's primary-key range.
-- toUInt128(event_id) in the NOT IN: see stats_engagement.sql.
WITH
    window_tokens AS
    (
        -- One row per token of V; retried copies of events that arrived before W are removed.
        SELECT
            token,
            max(event = 'convo_started') AS chatted,
            minIf(received_at, event = 'convo_started') AS first_chat_at
        FROM events
        WHERE chatbot_id = {chatbot_id:String}
          AND received_at >= {from:DateTime64(3, 'UTC')}
          AND received_at <= {to:DateTime64(3, 'UTC')}
          AND event IN ('visitor', 'convo_started')
          AND toUInt128(event_id) NOT IN
          (
              SELECT toUInt128(event_id)
              FROM events
              WHERE chatbot_id = {chatbot_id:String}
                AND received_at >= {dedup_lookback_from:DateTime64(3, 'UTC')}
                AND received_at < {from:DateTime64(3, 'UTC')}
                AND event IN ('visitor', 'convo_started')
          )
        GROUP BY token
        HAVING max(event = 'visitor')
    ),
    window_purchases AS
    (
        -- Each purchase counting in W once, at its earliest copy (retry rule: the read starts
        -- at {dedup_lookback_from}, and an event first received before {from} is dropped).
        SELECT
            event_id,
            min(received_at) AS at,
            argMin(token, received_at) AS token,
            argMin(order_num, received_at) AS order_num,
            argMin(ifNull(total_value_base, 0), received_at) AS revenue
        FROM events
        WHERE chatbot_id = {chatbot_id:String}
          AND received_at >= {dedup_lookback_from:DateTime64(3, 'UTC')}
          AND received_at <= {to:DateTime64(3, 'UTC')}
          AND event = 'purchase'
        GROUP BY event_id
        HAVING at >= {from:DateTime64(3, 'UTC')}
    ),
    order_firsts AS
    (
        -- Exact, over all history: each order number's first purchase row ever (ties:
        -- smallest event_id). Only this chatbot's purchase rows with an order number are kept.
        SELECT order_num, min((received_at, event_id)) AS first
        FROM events
        WHERE chatbot_id = {chatbot_id:String}
          AND received_at <= {to:DateTime64(3, 'UTC')}
          AND event = 'purchase'
          AND order_num != ''
        GROUP BY order_num
    ),
    counted_in_window AS
    (
        -- Purchases without order_num all count; one with an order number only when it is
        -- that order's first purchase ever (a retried copy of it, or a repeat, is not).
        SELECT p.at AS at, p.token AS token, p.revenue AS revenue
        FROM window_purchases AS p
        LEFT JOIN order_firsts AS o ON o.order_num = p.order_num
        WHERE p.order_num = '' OR o.first = (p.at, p.event_id)
    )
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
