-- Engagement funnel of one chatbot over the window W = [{from}, {to}] (services/dashboard/README.md "engagement").
--   V = tokens with a counted visitor event in W; approached / opened / chatted = tokens of V
--   that also have a counted popup_displayed / bot_open / convo_started event in W.
-- Counted events, retry rule and the rollups read: the stats_window_* views (migration 0003).
-- Ratios are computed by the caller.
SELECT
    bitmapCardinality(v) AS total_users,
    bitmapAndCardinality(v, approached) AS total_users_approached,
    bitmapAndCardinality(v, opened) AS total_users_opened,
    bitmapAndCardinality(v, chatted) AS total_users_chatted
FROM
(
    SELECT
        groupBitmapMergeStateIf(tokens, set_name = 'visitor') AS v,
        groupBitmapMergeStateIf(tokens, set_name = 'popup_displayed') AS approached,
        groupBitmapMergeStateIf(tokens, set_name = 'bot_open') AS opened,
        groupBitmapMergeStateIf(tokens, set_name = 'convo_started') AS chatted
    FROM stats_window_token_sets(chatbot_id = {chatbot_id:String}, from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')}, hour_lo = {hour_lo:DateTime64(3, 'UTC')}, hour_hi = {hour_hi:DateTime64(3, 'UTC')}, dedup_lookback_from = {dedup_lookback_from:DateTime64(3, 'UTC')})
)
