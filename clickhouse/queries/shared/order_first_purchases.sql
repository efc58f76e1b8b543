-- The order_first_purchases rollup computed from `events`: the SELECT of its materialized view
-- (migration 0030), over the events rows `rows` selects. Use after an INSERT INTO.
SELECT chatbot_id, order_num, min((received_at, event_id)) AS first
FROM events
WHERE event = 'purchase' AND order_num != '' AND NOT is_bot AND {{rows}}
GROUP BY chatbot_id, order_num
