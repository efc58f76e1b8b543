-- Each order number's first purchase: the earliest non-bot purchase row with that number, ties
-- on time to the smaller event id, with its token id and EUR revenue (0 for an unknown
-- currency). The table keeps the minimum per (chatbot, order), so a row inserted twice changes
-- nothing; the purchase statistics count an order in a window iff this row's time is in it.
SELECT chatbot_id, order_num,
    min(CAST((received_at, event_id, token_id, ifNull(total_value_base, 0)), 'Tuple(at DateTime64(3, \'UTC\'), event_id UUID, token_id UInt64, revenue Float64)')) AS first
FROM events
WHERE event = 'purchase' AND order_num != '' AND NOT is_bot
GROUP BY chatbot_id, order_num
