-- Purchase funnel of one chatbot over W = [{from}, {to}] (see the statistics definitions in services/dashboard/README.md, "purchases"),
-- with its A/B block (read by chatbots with abTestEnabled) from the same read.
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
-- One read of the window (shared/window_rows.sql): retried beacons removed; the order rule is
-- applied to each token's purchases (shared/counted_purchases.sql). It takes the A/B-marked rows
-- too; a chatbot without A/B test reads the funnel alone (stats_purchases_funnel.sql), cheaper.
WITH
    by_token AS
    (
        -- One row per token of V.
        SELECT
            {{> shared/token_purchases}},
            -- NULL for a token whose rows carry no group, which countIf and sumIf below take as
            -- false (no ifNull over every row of the LowCardinality(Nullable) column).
            max(e.ab_group = 'control') AS in_control,
            max(e.ab_group = 'test') AS in_test
        FROM {{> shared/window_rows rows=(event IN ('visitor', 'convo_started', 'purchase') OR ab_group IN ('control', 'test'))}}
        GROUP BY e.token
        HAVING max(e.event = 'visitor')
    ),
    per_token AS
    (
        SELECT
            chatted,
            in_control,
            in_test,
            {{> shared/token_purchase_figures}}
        FROM by_token
    )
SELECT
    count() AS total_users,
    countIf(chatted) AS total_users_chatted,
    countIf(in_control) AS control_visitors,
    countIf(in_test) AS test_visitors,
    {{> shared/purchase_totals}}
FROM per_token
