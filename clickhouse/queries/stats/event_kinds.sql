-- Events of one chatbot in W = [{from}, {to}] by kind: each event once, retried beacons and bot
-- rows left out (shared/window_events.sql), every tracked kind that occurred.
SELECT toString(event) AS event, count() AS events
FROM events
WHERE {{> shared/window_events rows=(1)}}
GROUP BY event
ORDER BY event ASC
