-- The ab_test block of purchases, for chatbots with abTestEnabled.
--   V_g = tokens of V (counted visitor tokens in W) with a counted event in W whose ab_group
--   is g; visitors = |V_g|; orders = purchases of P (stats_purchases.sql) by V_g; purchasers =
--   distinct purchasing tokens of V_g; revenue = their purchases' revenue.
-- The caller derives conversion_rate, aov, arpu and the significance figures (services/dashboard/README.md).
WITH
    -- One read of the window's token sets: (V_control, V_test).
    (SELECT (bitmapAnd(groupBitmapMergeStateIf(tokens, set_name = 'visitor'), groupBitmapMergeStateIf(tokens, set_name = 'ab:control')),
             bitmapAnd(groupBitmapMergeStateIf(tokens, set_name = 'visitor'), groupBitmapMergeStateIf(tokens, set_name = 'ab:test')))
     FROM stats_window_token_sets(chatbot_id = {chatbot_id:String}, from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')}, hour_lo = {hour_lo:DateTime64(3, 'UTC')}, hour_hi = {hour_hi:DateTime64(3, 'UTC')}, dedup_lookback_from = {dedup_lookback_from:DateTime64(3, 'UTC')})) AS groups
SELECT
    bitmapCardinality(groups.1) AS control_visitors,
    countIf(in_control) AS control_orders,
    uniqExactIf(token_id, in_control) AS control_purchasers,
    sumIf(revenue, in_control) AS control_revenue,
    bitmapCardinality(groups.2) AS test_visitors,
    countIf(in_test) AS test_orders,
    uniqExactIf(token_id, in_test) AS test_purchasers,
    sumIf(revenue, in_test) AS test_revenue
FROM
(
    SELECT token_id, revenue, bitmapContains(groups.1, token_id) AS in_control, bitmapContains(groups.2, token_id) AS in_test
    FROM stats_window_purchases(chatbot_id = {chatbot_id:String}, from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')}, hour_lo = {hour_lo:DateTime64(3, 'UTC')}, hour_hi = {hour_hi:DateTime64(3, 'UTC')}, dedup_lookback_from = {dedup_lookback_from:DateTime64(3, 'UTC')})
)
