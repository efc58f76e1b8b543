-- Popup metrics of one chatbot over W = [{from}, {to}] (services/dashboard/README.md "popup-metrics"), both blocks
-- in one query:
--   is_conversation = 0: one row per popup version (`key`, 'unknown' for a missing or empty
--     one) seen on counted popup_displayed or popup_opened events, with both counts, sorted by
--     version in byte order (ClickHouse compares String bytes).
--   is_conversation = 1: counted convo_started events per open_way (`key`: 'popup',
--     'chat_button', or '' / other, which count in the total only), in `conversations`.
-- Counted events: the stats_window_counts view (migration 0003). The caller derives open_rate,
-- total and popup_ratio.
SELECT
    event = 'convo_started' AS is_conversation,
    key,
    sumIf(n, event = 'popup_displayed') AS popup_displayed_count,
    sumIf(n, event = 'popup_opened') AS popup_opened_count,
    sumIf(n, is_conversation) AS conversations
FROM stats_window_counts(chatbot_id = {chatbot_id:String}, from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')}, hour_lo = {hour_lo:DateTime64(3, 'UTC')}, hour_hi = {hour_hi:DateTime64(3, 'UTC')}, dedup_lookback_from = {dedup_lookback_from:DateTime64(3, 'UTC')})
WHERE event IN ('popup_displayed', 'popup_opened', 'convo_started')
GROUP BY is_conversation, key
ORDER BY is_conversation ASC, key ASC
