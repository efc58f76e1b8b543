-- Purchase funnel of one chatbot over W = [{from}, {to}] (services/dashboard/README.md "purchases").
--   V = tokens with a counted visitor event in W; chatted = tokens of V with a counted
--   convo_started in W. P = counted purchases in W (retry rule; per order number only the
--   chatbot's first purchase row ever; purchases without one all count) whose token is in V.
--   A purchase is after chat when its token has a counted convo_started in W before it.
--   Revenue sums total_value_base with unknown currencies as 0.
-- Counted events and purchases: the stats_window_* views (migration 0003). The caller derives
-- rates and averages.
WITH
    -- One read of the window's token sets: (visitors, chatted).
    (SELECT (groupBitmapMergeStateIf(tokens, set_name = 'visitor'), groupBitmapMergeStateIf(tokens, set_name = 'convo_started'))
     FROM stats_window_token_sets(chatbot_id = {chatbot_id:String}, from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')}, hour_lo = {hour_lo:DateTime64(3, 'UTC')}, hour_hi = {hour_hi:DateTime64(3, 'UTC')}, dedup_lookback_from = {dedup_lookback_from:DateTime64(3, 'UTC')})) AS sets
SELECT
    bitmapCardinality(sets.1) AS total_users,
    bitmapAndCardinality(sets.1, sets.2) AS total_users_chatted,
    uniqExact(token_id) AS total_users_purchased,
    uniqExactIf(token_id, after_chat) AS total_users_chatted_purchased,
    sum(revenue) AS total_revenue_purchased,
    sumIf(revenue, after_chat) AS total_revenue_chatted_purchased,
    -- Summed separately, not as a difference: subtracting two large sums loses the cents.
    sumIf(revenue, NOT after_chat) AS revenue_other,
    count() AS orders,
    countIf(after_chat) AS orders_after_chat
FROM stats_window_purchases(chatbot_id = {chatbot_id:String}, from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')}, hour_lo = {hour_lo:DateTime64(3, 'UTC')}, hour_hi = {hour_hi:DateTime64(3, 'UTC')}, dedup_lookback_from = {dedup_lookback_from:DateTime64(3, 'UTC')})
WHERE bitmapContains(sets.1, token_id)
