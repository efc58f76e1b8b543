-- Events received per chatbot over [{from}, {to}] (the chatbot list's "events in the last
-- 24 h"), each event_id once. A retried copy of an event received shortly before {from} may be
-- counted here: this is an activity indicator, not a statistic, and skipping the retry lookup
-- keeps the list to one primary-key range read per chatbot. Crawlers (is_bot) are left out, as
-- everywhere the shop owner reads numbers.
SELECT chatbot_id, uniqExact(event_id) AS events
FROM events
WHERE chatbot_id IN {chatbot_ids:Array(String)}
  AND received_at >= {from:DateTime64(3, 'UTC')}
  AND received_at <= {to:DateTime64(3, 'UTC')}
  AND NOT is_bot
GROUP BY chatbot_id
