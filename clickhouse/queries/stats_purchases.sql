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
    buyers AS
    (
        -- Every purchasing token as parallel arrays (one row, empty arrays when none), so the
        -- final SELECT reads the one row of `sets` once.
        SELECT
            groupArray(token_id) AS ids,
            groupArray(token_orders) AS order_counts,
            groupArray(token_orders_after_chat) AS after_chat_counts,
            groupArray(token_revenue) AS revenues,
            groupArray(token_revenue_after_chat) AS revenues_after_chat,
            groupArray(token_revenue_other) AS revenues_other
        FROM {{> shared/token_purchase_figures}}
    ),
    -- Per purchasing token: in V (its purchases are P), in the control / test group of V.
    arrayMap(id -> bitmapContains(visitors, id), ids) AS in_v,
    arrayMap((id, v) -> v AND bitmapContains(control, id), ids, in_v) AS in_control,
    arrayMap((id, v) -> v AND bitmapContains(test, id), ids, in_v) AS in_test
SELECT
    bitmapCardinality(visitors) AS total_users,
    bitmapAndCardinality(visitors, chatters) AS total_users_chatted,
    bitmapAndCardinality(visitors, control) AS control_visitors,
    bitmapAndCardinality(visitors, test) AS test_visitors,
    arrayCount(v -> v, in_v) AS total_users_purchased,
    arrayCount((v, n) -> v AND n > 0, in_v, after_chat_counts) AS total_users_chatted_purchased,
    arraySum((v, r) -> if(v, r, 0), in_v, revenues) AS total_revenue_purchased,
    arraySum((v, r) -> if(v, r, 0), in_v, revenues_after_chat) AS total_revenue_chatted_purchased,
    -- Summed separately, not as a difference: subtracting two large sums loses the cents.
    arraySum((v, r) -> if(v, r, 0), in_v, revenues_other) AS revenue_other,
    arraySum((v, n) -> if(v, n, 0), in_v, order_counts) AS orders,
    arraySum((v, n) -> if(v, n, 0), in_v, after_chat_counts) AS orders_after_chat,
    arraySum((g, n) -> if(g, n, 0), in_control, order_counts) AS control_orders,
    arrayCount(g -> g, in_control) AS control_purchasers,
    arraySum((g, r) -> if(g, r, 0), in_control, revenues) AS control_revenue,
    arraySum((g, n) -> if(g, n, 0), in_test, order_counts) AS test_orders,
    arrayCount(g -> g, in_test) AS test_purchasers,
    arraySum((g, r) -> if(g, r, 0), in_test, revenues) AS test_revenue
FROM sets
CROSS JOIN buyers
