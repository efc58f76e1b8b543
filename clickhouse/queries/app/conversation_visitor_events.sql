-- The tracked events of one visitor (its tracker token) of one chatbot in [{from}, {to}]: the
-- conversation page shows them next to the messages (services/dashboard/README.md, app pages).
-- Each event_id once, with the values of its earliest copy (a retried beacon is the same event);
-- bot rows left out, as in every number a shop owner reads; oldest first; at most {limit} rows
-- (the caller asks for one more than it shows, to know whether the list was cut).
-- Reading: chatbot_id + received_at is the table's primary-key prefix, so only this chatbot's
-- granules of the window are read, and the token is filtered within them: the caller keeps the
-- window short (around the conversation), never the token's whole history.
SELECT
    toString(event_id) AS event_id,
    argMin(event, received_at) AS event,
    toString(min(received_at)) AS at,
    argMin(url, received_at) AS url,
    argMin(popup_version, received_at) AS popup_version,
    argMin(open_way, received_at) AS open_way,
    argMin(order_num, received_at) AS order_num,
    argMin(total_value_base, received_at) AS value_eur
FROM events
WHERE chatbot_id = {chatbot_id:String}
  AND received_at >= {from:DateTime64(3, 'UTC')}
  AND received_at <= {to:DateTime64(3, 'UTC')}
  AND token = {token:String}
  AND NOT is_bot
GROUP BY event_id
ORDER BY min(received_at) ASC, event_id ASC
LIMIT {limit:UInt32}
