-- The purchase funnel of stats/purchases.sql and stats/purchases_orders.sql, which differ only in
-- where the purchases come from: {{purchases}} is a SELECT of (token_id, at, revenue, after_chat,
-- and for the shop's orders direct) rows (shared/window_purchases_after_chat.sql, or
-- shared/window_orders_after_chat.sql), {{direct}} whether a row was bought directly from the
-- chat (false for tracker purchases: orders_direct and revenue_direct are then 0).
SELECT
    any(users) AS total_users,
    any(users_chatted) AS total_users_chatted,
    any(group_control_visitors) AS control_visitors,
    any(group_test_visitors) AS test_visitors,
    groupBitmapIf(token_id, in_v) AS total_users_purchased,
    groupBitmapIf(token_id, in_v AND after_chat) AS total_users_chatted_purchased,
    sumIf(revenue, in_v) AS total_revenue_purchased,
    sumIf(revenue, in_v AND after_chat) AS total_revenue_chatted_purchased,
    -- Summed separately, not as a difference: subtracting two large sums loses the cents.
    sumIf(revenue, in_v AND NOT after_chat) AS revenue_other,
    countIf(in_v) AS orders,
    countIf(in_v AND after_chat) AS orders_after_chat,
    countIf(in_v AND direct) AS orders_direct,
    sumIf(revenue, in_v AND direct) AS revenue_direct,
    countIf(in_control) AS control_orders,
    groupBitmapIf(token_id, in_control) AS control_purchasers,
    sumIf(revenue, in_control) AS control_revenue,
    countIf(in_test) AS test_orders,
    groupBitmapIf(token_id, in_test) AS test_purchasers,
    sumIf(revenue, in_test) AS test_revenue
FROM
(
    SELECT
        purchases_after_chat.token_id AS token_id,
        purchases_after_chat.revenue AS revenue,
        purchases_after_chat.after_chat AS after_chat,
        {{direct}} AS direct,
        token_id != 0 AND bitmapContains(sets.visitors, token_id) AS in_v,
        in_v AND bitmapContains(sets.control, token_id) AS in_control,
        in_v AND bitmapContains(sets.test, token_id) AS in_test,
        sets.users AS users,
        sets.users_chatted AS users_chatted,
        sets.control_visitors AS group_control_visitors,
        sets.test_visitors AS group_test_visitors
    FROM {{purchases}} AS purchases_after_chat
    -- A RIGHT JOIN keeps the one row of `sets` when W has no purchase: that row's token_id is
    -- then 0, an id no token has (migration 0130), so it counts in nothing.
    RIGHT JOIN
    (
        SELECT
            visitors,
            control,
            test,
            bitmapCardinality(visitors) AS users,
            bitmapAndCardinality(visitors, chatters) AS users_chatted,
            bitmapAndCardinality(visitors, control) AS control_visitors,
            bitmapAndCardinality(visitors, test) AS test_visitors
        FROM
        (
            SELECT
                groupBitmapMergeStateIf(tokens, kind = 'visitor') AS visitors,
                groupBitmapMergeStateIf(tokens, kind = 'convo_started') AS chatters,
                groupBitmapMergeStateIf(tokens, kind = 'ab:control') AS control,
                groupBitmapMergeStateIf(tokens, kind = 'ab:test') AS test
            FROM {{> shared/window_token_sets kinds=(if({ab_block:Bool}, ['visitor', 'convo_started', 'ab:control', 'ab:test'], ['visitor', 'convo_started']))}}
        )
    ) AS sets ON 1 = 1
)
SETTINGS join_use_nulls = 0
