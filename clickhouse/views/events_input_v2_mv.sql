-- The rows a writer inserts into events_input_v2, stored in `events`: each non-bot row with the
-- time of its event's latest earlier copy (prev_copy_at, 0 for none), a row with a stored copy
-- at or after its own time dropped, a bot's row without a token id. Earlier copies are looked
-- for among this chatbot's rows of the last 31 days, leaving out the rows of the same insert
-- (insert_key), so an insert repeated after it was partly applied computes the same rows
-- (clickhouse/README.md, "Every row counted once").
WITH
    keys AS
    (
        SELECT UUIDToNum(event_id) AS id, chatbot_id, received_at
        FROM events_input_v2
        WHERE NOT is_bot
    ),
    (
        SELECT CAST((groupArray(key), groupArray(verdict)), 'Tuple(keys Array(String), verdicts Array(Int64))')
        FROM
        (
            SELECT
                concat(id, chatbot_id, reinterpretAsString(received_at)) AS key,
                if(arrayExists(x -> x >= received_at, stored), -1,
                   toUnixTimestamp64Milli(arrayMax(arrayFilter(x -> x < received_at, arrayConcat(stored, in_block, [toDateTime64(0, 3, 'UTC')]))))) AS verdict
            FROM
            (
                SELECT g.id AS id, g.chatbot_id AS chatbot_id, g.times AS in_block, s.times AS stored
                FROM
                (
                    SELECT id, chatbot_id, groupArray(received_at) AS times
                    FROM keys
                    GROUP BY id, chatbot_id
                ) AS g
                LEFT JOIN
                (
                    SELECT UUIDToNum(event_id) AS id, chatbot_id, groupArray(received_at) AS times
                    FROM events
                    WHERE UUIDToNum(event_id) IN (SELECT id FROM keys)
                      AND chatbot_id IN (SELECT chatbot_id FROM keys)
                      AND received_at >= (SELECT min(received_at) FROM keys) - INTERVAL 31 DAY
                      AND insert_key != (SELECT any(insert_key) FROM events_input_v2)
                      AND NOT is_bot
                    GROUP BY id, chatbot_id
                ) AS s ON s.id = g.id AND s.chatbot_id = g.chatbot_id
                WHERE length(g.times) > 1 OR notEmpty(s.times)
            )
            ARRAY JOIN in_block AS received_at
            SETTINGS join_use_nulls = 0
        )
    ) AS copies
SELECT * EXCEPT (prev_ms, prev_copy_at, token_id), fromUnixTimestamp64Milli(prev_ms, 'UTC') AS prev_copy_at,
    if(is_bot, toUInt64(0), token_id) AS token_id
FROM
(
    SELECT *,
        if(is_bot OR empty(copies.keys), toInt64(0),
           transform(concat(UUIDToNum(event_id), chatbot_id, reinterpretAsString(received_at)), copies.keys, copies.verdicts, toInt64(0))) AS prev_ms
    FROM events_input_v2
)
WHERE prev_ms >= 0
LIMIT 1 BY event_id, chatbot_id, received_at
