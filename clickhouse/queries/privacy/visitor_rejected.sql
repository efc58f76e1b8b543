-- The visitor's rows of events_rejected (purchases set aside at ingest, and payloads the consumer
-- could not store that name the token as a JSON string): part of the export.
SELECT toString(received_at) AS received_at, reason, source, payload
FROM events_rejected
WHERE chatbot_id IN ({chatbot_id:String}, '') AND position(payload, concat('"', {token:String}, '"')) > 0
ORDER BY received_at
