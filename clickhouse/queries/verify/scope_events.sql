-- The rows of `events` a verification compares the aggregates with: the scope's chatbot ('' for
-- every chatbot) and time, each stored row once (a row stored twice, not merged yet, counts once:
-- the aggregates must hold it once too).
SELECT *
FROM events
WHERE ({chatbot_id:String} = '' OR chatbot_id = {chatbot_id:String})
  AND received_at >= {from:DateTime64(3, 'UTC')}
  AND received_at < {to:DateTime64(3, 'UTC')}
LIMIT 1 BY chatbot_id, received_at, event_id
