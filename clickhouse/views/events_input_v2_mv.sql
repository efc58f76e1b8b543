-- The rows a writer inserts into events_input_v2, stored in `events`: each non-bot row with the
-- time of its event's latest earlier copy (prev_copy_at, 0 for none), a row with a stored copy
-- at or after its own time dropped, a bot's row without a token id. Earlier copies are looked
-- for among this chatbot's rows of the last 31 days, leaving out the rows of the same insert
-- (insert_key), so an insert repeated after it was partly applied computes the same rows
-- (clickhouse/README.md, "Every row counted once").
-- Nearly every row of a block is its event's only copy. So the block's ids that can have a copy
-- (held twice by the block, or by a stored row of another insert) are found first, by a sort
-- and one indexed look-up; only their rows are grouped, judged and deduplicated. Every other
-- row is stored as it came, with prev_copy_at 0.
WITH
    (
        SELECT groupArray((event_id, chatbot_id, received_at))
        FROM events
        WHERE UUIDToNum(event_id) IN (SELECT UUIDToNum(event_id) FROM events_input_v2 WHERE NOT is_bot)
          AND chatbot_id IN (SELECT chatbot_id FROM events_input_v2 WHERE NOT is_bot)
          AND received_at >= (SELECT min(received_at) FROM events_input_v2 WHERE NOT is_bot) - INTERVAL 31 DAY
          AND insert_key != (SELECT any(insert_key) FROM events_input_v2)
          AND NOT is_bot
    ) AS stored,
    (
        SELECT arrayMap(n -> reinterpretAsUUID(n), arrayFilter((x, y) -> x = y, arrayPopBack(ids), arrayPopFront(ids)))
        FROM (SELECT arraySort(groupArray(reinterpretAsUInt128(event_id))) AS ids FROM events_input_v2)
    ) AS repeated,
    arrayConcat(repeated, arrayMap(s -> s.1, stored)) AS candidates,
    (
        SELECT CAST((groupArray(key), groupArray(verdict)), 'Tuple(keys Array(String), verdicts Array(Int64))')
        FROM
        (
            SELECT
                concat(UUIDToNum(event_id), chatbot_id, reinterpretAsString(received_at)) AS key,
                if(arrayExists(x -> x >= received_at, stored_times), -1,
                   toUnixTimestamp64Milli(arrayMax(arrayFilter(x -> x < received_at, arrayConcat(stored_times, in_block, [toDateTime64(0, 3, 'UTC')]))))) AS verdict
            FROM
            (
                SELECT event_id, chatbot_id, groupArrayIf(received_at, from_block) AS in_block, groupArrayIf(received_at, NOT from_block) AS stored_times
                FROM
                (
                    SELECT event_id, chatbot_id, received_at, true AS from_block
                    FROM events_input_v2
                    WHERE NOT is_bot AND event_id IN (SELECT arrayJoin(candidates))
                    UNION ALL
                    SELECT s.1 AS event_id, s.2 AS chatbot_id, s.3 AS received_at, false AS from_block
                    FROM (SELECT arrayJoin(stored) AS s)
                )
                GROUP BY event_id, chatbot_id
                HAVING notEmpty(in_block) AND (length(in_block) > 1 OR notEmpty(stored_times))
            )
            ARRAY JOIN in_block AS received_at
        )
    ) AS copies
SELECT * EXCEPT (candidate, prev_ms, prev_copy_at, token_id), fromUnixTimestamp64Milli(prev_ms, 'UTC') AS prev_copy_at,
    if(is_bot, toUInt64(0), token_id) AS token_id
FROM
(
    SELECT *,
        event_id IN (SELECT arrayJoin(candidates)) AS candidate,
        if(is_bot OR NOT candidate OR empty(copies.keys), toInt64(0),
           transform(concat(UUIDToNum(event_id), chatbot_id, reinterpretAsString(received_at)), copies.keys, copies.verdicts, toInt64(0))) AS prev_ms
    FROM events_input_v2
)
WHERE prev_ms >= 0
-- Only a candidate's id can be held twice by the block: every other row is alone with its id.
LIMIT 1 BY event_id, if(candidate, chatbot_id, ''), if(candidate, received_at, toDateTime64(0, 3, 'UTC'))
