-- The daily series of one chatbot over W = [{from}, {to}], per UTC day of the counted event:
-- visitors = distinct tokens with a counted visitor event that day; conversations = counted
-- convo_started events; purchases = counted purchases (retry and order rules, every token);
-- revenue = their total_value_base, unknown currencies as 0. Days without events have no row
-- (the caller fills them with zeros). Counted events: the stats_window_* views (migration 0003).
SELECT day, sum(visitors) AS visitors, sum(conversations) AS conversations, sum(purchases) AS purchases, sum(revenue) AS revenue
FROM
(
    SELECT day, bitmapCardinality(tokens) AS visitors, 0 AS conversations, 0 AS purchases, 0 AS revenue
    FROM stats_window_token_sets(chatbot_id = {chatbot_id:String}, from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')}, hour_lo = {hour_lo:DateTime64(3, 'UTC')}, hour_hi = {hour_hi:DateTime64(3, 'UTC')}, dedup_lookback_from = {dedup_lookback_from:DateTime64(3, 'UTC')})
    WHERE set_name = 'visitor'
    UNION ALL
    SELECT day, 0, n, 0, 0
    FROM stats_window_counts(chatbot_id = {chatbot_id:String}, from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')}, hour_lo = {hour_lo:DateTime64(3, 'UTC')}, hour_hi = {hour_hi:DateTime64(3, 'UTC')}, dedup_lookback_from = {dedup_lookback_from:DateTime64(3, 'UTC')})
    WHERE event = 'convo_started'
    UNION ALL
    SELECT toDate(received_at) AS day, 0, 0, count(), sum(revenue)
    FROM stats_window_purchases(chatbot_id = {chatbot_id:String}, from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')}, hour_lo = {hour_lo:DateTime64(3, 'UTC')}, hour_hi = {hour_hi:DateTime64(3, 'UTC')}, dedup_lookback_from = {dedup_lookback_from:DateTime64(3, 'UTC')})
    GROUP BY day
)
GROUP BY day
ORDER BY day
