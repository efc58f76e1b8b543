-- The rows of `events` a verification, a repair or a rebuild computes the aggregates from: the
-- scope's chatbot ('' for every chatbot) and time, each stored row once (FINAL: a row stored
-- twice, not merged yet, counts once, as the aggregates hold it once).
SELECT *
FROM events FINAL
WHERE ({chatbot_id:String} = '' OR chatbot_id = {chatbot_id:String})
  AND received_at >= {from:DateTime64(3, 'UTC')}
  AND received_at < {to:DateTime64(3, 'UTC')}
