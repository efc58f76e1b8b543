-- Requests of one chatbot over [{from}, {to}] classified as bots at ingest (is_bot: a crawler's
-- User-Agent, or a script's such as Node.js's): the live view's note that they are not counted.
-- Stored rows, retried copies included: requests, not events. Reads the chatbot's primary-key
-- range for the window, like stats/live_events.sql.
SELECT count() AS requests
FROM events
WHERE chatbot_id = {chatbot_id:String}
  AND received_at >= {from:DateTime64(3, 'UTC')}
  AND received_at <= {to:DateTime64(3, 'UTC')}
  AND is_bot
