-- Ids for the tokens of one chatbot's hours {hours} (Unix seconds, within [{lo}, {hi})) that
-- have none yet: the chatbot's largest id + 1, + 2, … in order of first appearance (ties: the
-- token). Bot rows get none (no statistic reads them), nor the token ' indexed' (the key of
-- token_id_index's mark, migration 0080; no valid token has a space): its hours stay
-- unsealable. Only the sealer runs this, under its lock: two runs at once could give a token
-- two ids.
INSERT INTO token_ids (chatbot_id, token, id)
SELECT {chatbot_id:String}, n.token, b.base + row_number() OVER (ORDER BY n.first, n.token)
FROM
(
    SELECT token, min(received_at) AS first
    FROM events
    WHERE chatbot_id = {chatbot_id:String}
      AND received_at >= {lo:DateTime64(3, 'UTC')} AND received_at < {hi:DateTime64(3, 'UTC')}
      AND has({hours:Array(UInt32)}, toUInt32(toStartOfHour(received_at)))
      AND NOT is_bot AND token != ' indexed'
    GROUP BY token
) AS n
LEFT ANTI JOIN
(
    SELECT token
    FROM token_ids
    WHERE chatbot_id = {chatbot_id:String}
) AS t ON t.token = n.token
CROSS JOIN
(
    SELECT max(id) AS base FROM token_ids WHERE chatbot_id = {chatbot_id:String}
) AS b
