-- The months holding chatbot events, oldest first: the rebuild replays history one month at
-- a time, in received_at order, so that each batch only needs the state of the ones before.
SELECT DISTINCT toString(toStartOfMonth(received_at)) AS month
FROM events
WHERE chatbot_id != ''
ORDER BY month
