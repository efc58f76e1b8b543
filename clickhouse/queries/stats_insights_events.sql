-- The event counts of the conversation-insights report over W = [{from}, {to}]: counted
-- click_through events, and counted message_like / message_dislike events of the chatbot.
-- Counted events: the stats_window_counts view (migration 0003).
SELECT
    sumIf(n, event = 'click_through') AS total_click_throughs,
    sumIf(n, event = 'message_like') AS likes,
    sumIf(n, event = 'message_dislike') AS dislikes
FROM stats_window_counts(chatbot_id = {chatbot_id:String}, from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')}, hour_lo = {hour_lo:DateTime64(3, 'UTC')}, hour_hi = {hour_hi:DateTime64(3, 'UTC')}, dedup_lookback_from = {dedup_lookback_from:DateTime64(3, 'UTC')})
