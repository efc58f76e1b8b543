-- The first WITH entries of the kept-run purchases queries (stats_purchases_cached.sql says
-- what they compute): the sealed hours, the unsealed rows' tokens, `touched`, the kept run
-- `kept`, the touched ids' `sets` and `counted` (the touched tokens' kept purchases and the
-- unsealed rows' purchases, in shared/sealed_purchases.sql's columns). The query then defines
-- `other_chats` and ends with shared/kept_purchases_tail.sql.
-- Use first in a WITH list: `WITH {{> shared/kept_purchases_head}},`.
{{> shared/sealed_hours}},
{{> shared/unsealed_tokens}},
(SELECT groupBitmapState(id) FROM raw_tokens WHERE id > 0) AS touched,
(
    -- The kept run: its sets cut down to the touched ids (1–4), its totals (5–17), its
    -- visitor counts (18–21); NULL when the build is not there (expired, dropped).
    SELECT tuple(bitmapAnd(visitors, touched), bitmapAnd(chatted, touched), bitmapAnd(in_control, touched), bitmapAnd(in_test, touched),
        total_users_purchased, total_users_chatted_purchased, total_revenue_purchased, total_revenue_chatted_purchased,
        revenue_other, orders, orders_after_chat, control_orders, control_purchasers, control_revenue,
        test_orders, test_purchasers, test_revenue,
        total_users, total_users_chatted, control_visitors, test_visitors)
    FROM sealed_runs
    WHERE chatbot_id = {chatbot_id:String} AND run = {run:UInt64} AND build = {build:UUID}
    LIMIT 1
) AS kept,
(
    -- shared/purchase_sets.sql's sets of the touched ids.
    SELECT tuple(bitmapOr(kept.1, groupBitmapStateIf(id, is_v)), kept.2, bitmapOr(kept.3, groupBitmapStateIf(id, in_control)),
        bitmapOr(kept.4, groupBitmapStateIf(id, in_test)), groupBitmapStateIf(id, bought), groupBitmapStateIf(id, chatted))
    FROM raw_tokens
    WHERE id > 0
) AS sets,
counted AS
(
    -- The touched tokens' kept purchases, as the settled query reads them from the hours.
    SELECT id, '' AS key, at, revenue, true AS from_seal, chat >= {from:DateTime64(3, 'UTC')} AS chatted_before,
        false AS is_v, false AS in_control, false AS in_test, toDateTime64('2299-12-31 00:00:00', 3, 'UTC') AS raw_chat
    FROM sealed_run_purchases
    WHERE chatbot_id = {chatbot_id:String} AND run = {run:UInt64} AND build = {build:UUID} AND bitmapContains(touched, id)
    UNION ALL
    {{> shared/unsealed_purchases}}
)
