-- The figure of a `silence` alert (services/dashboard/README.md, "Alerts"): the chatbot's
-- tracking events received in [{from}, {to}] and the time of the latest. Bot rows are left out,
-- as in every statistic: only a real visitor's browser proves the widget is on the shop.
-- chatbot_id + received_at is the table's primary-key prefix: the read is the window's granules.
SELECT
    count() AS events,
    max(received_at) AS last_received_at
FROM events
WHERE chatbot_id = {chatbot_id:String}
  AND received_at >= {from:DateTime64(3, 'UTC')}
  AND received_at <= {to:DateTime64(3, 'UTC')}
  AND NOT is_bot
