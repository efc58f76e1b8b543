-- Purchase funnel of one chatbot over W = [{from}, {to}] and its A/B block (see the statistics
-- definitions in services/dashboard/README.md, "purchases").
--   V (visitor tokens in W); chatted = tokens of V with a convo_started in W;
--   P = counted purchases in W whose token is in V (shared/window_purchases.sql);
--   a purchase is after chat when its token chatted and it is strictly later than the token's
--   earliest convo_started in W.
--   A/B: V_g = tokens of V with an event in W whose ab_group is g; visitors = |V_g|;
--   orders = purchases of P by V_g; purchasers = distinct purchasing tokens of V_g; revenue =
--   their purchases' revenue.
-- Returns counts and sums; the caller derives rates and averages (2 decimals, 0 on a zero
-- denominator) and the A/B block's significance figures.
-- The sets are the window's bitmaps (shared/window_token_sets.sql); each purchasing token's
-- figures come from shared/token_purchase_figures.sql.
WITH
    sets AS
    (
        SELECT
            anyIf(tokens, kind = 'visitor') AS visitors,
            anyIf(tokens, kind = 'convo_started') AS chatters,
            anyIf(tokens, kind = 'ab:control') AS control,
            anyIf(tokens, kind = 'ab:test') AS test
        FROM {{> shared/window_token_sets kinds=('visitor', 'convo_started', 'ab:control', 'ab:test')}}
    ),
    per_token AS
    (
        -- One row per purchasing token of V.
        SELECT *
        FROM {{> shared/token_purchase_figures}}
    ),
    totals AS
    (
        SELECT
            count() AS total_users_purchased,
            countIf(token_orders_after_chat > 0) AS total_users_chatted_purchased,
            sum(token_revenue) AS total_revenue_purchased,
            sum(token_revenue_after_chat) AS total_revenue_chatted_purchased,
            -- Summed separately, not as a difference: subtracting two large sums loses the cents.
            sum(token_revenue_other) AS revenue_other,
            sum(token_orders) AS orders,
            sum(token_orders_after_chat) AS orders_after_chat,
            sumIf(token_orders, bitmapContains((SELECT control FROM sets), token_id)) AS control_orders,
            countIf(bitmapContains((SELECT control FROM sets), token_id)) AS control_purchasers,
            sumIf(token_revenue, bitmapContains((SELECT control FROM sets), token_id)) AS control_revenue,
            sumIf(token_orders, bitmapContains((SELECT test FROM sets), token_id)) AS test_orders,
            countIf(bitmapContains((SELECT test FROM sets), token_id)) AS test_purchasers,
            sumIf(token_revenue, bitmapContains((SELECT test FROM sets), token_id)) AS test_revenue
        FROM per_token
    )
SELECT
    bitmapCardinality(visitors) AS total_users,
    bitmapAndCardinality(visitors, chatters) AS total_users_chatted,
    bitmapAndCardinality(visitors, control) AS control_visitors,
    bitmapAndCardinality(visitors, test) AS test_visitors,
    totals.*
FROM sets, totals
