-- The tokens of one chatbot whose rows break the token-id rule, each with the id it keeps
-- (packages/clickhouse/src/repair-token-ids.ts): the smallest id token_ids holds for it, else
-- the smallest its rows carry. `shared`: another token keeps the same id (the one whose rows
-- began earliest keeps it; the others get new ids). Tokens whose rows all carry their kept id,
-- that token_ids holds, and that share it with no other token are not returned.
WITH
    by_token AS
    (
        SELECT token, minIf(token_id, token_id != 0) AS row_min, max(token_id) AS row_max, countIf(token_id = 0) AS without,
            min(received_at) AS first_at
        FROM events
        WHERE chatbot_id = {chatbot_id:String} AND NOT is_bot
        GROUP BY token
    ),
    kept AS
    (
        SELECT r.token AS token, if(m.token_id != 0, m.token_id, r.row_min) AS id, r.row_min AS row_min, r.row_max AS row_max,
            r.without AS without, m.token_id AS map_id, r.first_at AS first_at
        FROM by_token AS r
        LEFT JOIN
        (
            SELECT token, min(token_id) AS token_id FROM token_ids WHERE chatbot_id = {chatbot_id:String} GROUP BY token
        ) AS m USING (token)
        SETTINGS join_use_nulls = 0
    ),
    owners AS
    (
        SELECT id, argMin(token, (first_at, token)) AS owner, count() AS tokens FROM kept WHERE id != 0 GROUP BY id
    )
SELECT k.token AS token, toString(k.id) AS id, (o.tokens > 1 AND o.owner != k.token) OR k.id = 0 AS needs_new_id
FROM kept AS k
LEFT JOIN owners AS o ON o.id = k.id
WHERE k.id = 0 OR k.without > 0 OR k.row_min != k.row_max OR k.row_min != k.id OR k.map_id = 0 OR o.tokens > 1
SETTINGS join_use_nulls = 0
