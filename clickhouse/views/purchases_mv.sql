-- Every non-bot purchase row, copies too (with prev_copy_at): the purchase statistics apply the
-- retry and order rules to these at read time. revenue: total_value_base, 0 for an unknown currency.
SELECT chatbot_id, received_at, event_id, token_id, order_num, ifNull(total_value_base, 0) AS revenue, prev_copy_at
FROM events
WHERE event = 'purchase' AND NOT is_bot
