-- Purchases of one chatbot the ingest set aside over [{from}, {to}] (clickhouse/README.md,
-- events_rejected; services/ingest/README.md, "Purchases that do not count"): accepted by the
-- tracking endpoint, counted by no statistic. Per reason, each event_id once (a retried beacon
-- is one purchase). received_at here is when the bus took the purchase, within about a second
-- of its own received_at.
SELECT reason, uniqExact(event_id) AS purchases
FROM events_rejected
WHERE source = 'ingest'
  AND chatbot_id = {chatbot_id:String}
  AND received_at >= {from:DateTime64(3, 'UTC')}
  AND received_at <= {to:DateTime64(3, 'UTC')}
GROUP BY reason
ORDER BY reason
