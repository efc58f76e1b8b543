-- Less work per insert and per read for the statistics' aggregates (clickhouse/README.md, "The
-- statistics engine"); the same tables and rules as migration 0130.
--   - events_input_mv looks each block's tokens up in token_ids once (0130's looked twice: the
--     stored ids, then the tokens without one), and token_ids_mv stores only the tokens that got
--     their id in the insert (0130's wrote every token of every insert back into token_ids).
--   - token_day_sets is fed from token_hour_sets' inserted rows (a few per chatbot and hour)
--     instead of from every row of events a second time.
--   - the bitmaps are stored uncompressed: roaring bitmaps of token ids barely compress, and
--     reading skips the decompression (metadata only: parts written from now on).

-- True on the rows whose token got its id in this insert: token_ids_mv stores only those.
ALTER TABLE events ADD COLUMN IF NOT EXISTS token_id_new Bool DEFAULT false;

-- As in migration 0130 (its comments hold), with one lookup: each token of the block joined to
-- its stored id, the ones without numbered after their slot's top.
DROP VIEW IF EXISTS events_input_mv;

CREATE MATERIALIZED VIEW events_input_mv TO events AS
WITH
    keys AS
    (
        SELECT UUIDToNum(event_id) AS id, chatbot_id, received_at
        FROM events_input
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
                    WHERE UUIDToNum(event_id) IN (SELECT id FROM keys) AND NOT is_bot
                    GROUP BY id, chatbot_id
                ) AS s ON s.id = g.id AND s.chatbot_id = g.chatbot_id
                WHERE length(g.times) > 1 OR notEmpty(s.times)
            )
            ARRAY JOIN in_block AS received_at
            SETTINGS join_use_nulls = 0
        )
    ) AS copies,
    (
        -- Each (chatbot, token) of the block's non-bot rows: its stored id, else a new one (one
        -- lookup in token_ids; the new ones are numbered after the slot's top).
        SELECT CAST((groupArray(key), groupArray(id), groupArray(is_new)), 'Tuple(keys Array(String), ids Array(UInt64), new Array(UInt8))')
        FROM
        (
            SELECT
                block.key AS key,
                toUInt8(stored.id = 0) AS is_new,
                if(stored.id != 0, stored.id,
                   bitShiftLeft(toUInt64(block.slot), 40) + tops.top
                       + row_number() OVER (PARTITION BY block.chatbot_id, block.slot, stored.id = 0 ORDER BY block.first_at, block.key)) AS id
            FROM
            (
                SELECT concat(toString(length(chatbot_id)), ':', chatbot_id, token) AS key, chatbot_id,
                    min(id_slot) AS slot, min(received_at) AS first_at
                FROM events_input
                WHERE NOT is_bot
                GROUP BY chatbot_id, token
            ) AS block
            LEFT JOIN
            (
                SELECT concat(toString(length(chatbot_id)), ':', chatbot_id, token) AS key, min(token_id) AS id
                FROM token_ids
                WHERE (chatbot_id, token) IN (SELECT chatbot_id, token FROM events_input WHERE NOT is_bot)
                GROUP BY chatbot_id, token
            ) AS stored ON stored.key = block.key
            LEFT JOIN
            (
                SELECT chatbot_id, slot, max(top) AS top
                FROM token_id_tops
                WHERE chatbot_id IN (SELECT chatbot_id FROM events_input)
                GROUP BY chatbot_id, slot
            ) AS tops ON tops.chatbot_id = block.chatbot_id AND tops.slot = block.slot
            SETTINGS join_use_nulls = 0
        )
    ) AS ids
SELECT * EXCEPT (prev_ms, prev_copy_at, token_id, id_slot), fromUnixTimestamp64Milli(prev_ms, 'UTC') AS prev_copy_at,
    if(is_bot, toUInt64(0), transform(concat(toString(length(chatbot_id)), ':', chatbot_id, token), ids.keys, ids.ids, toUInt64(0))) AS token_id,
    NOT is_bot AND transform(concat(toString(length(chatbot_id)), ':', chatbot_id, token), ids.keys, ids.new, toUInt8(0)) = 1 AS token_id_new
FROM
(
    SELECT *,
        if(is_bot OR empty(copies.keys), toInt64(0),
           transform(concat(UUIDToNum(event_id), chatbot_id, reinterpretAsString(received_at)), copies.keys, copies.verdicts, toInt64(0))) AS prev_ms
    FROM events_input
)
WHERE prev_ms >= 0
LIMIT 1 BY event_id, chatbot_id, received_at;

-- The new tokens of each insert only. A rebuild (queries/rollups/rebuild_month.sql) still takes
-- every row's id: rows stored before this migration have token_id_new false.
DROP VIEW IF EXISTS token_ids_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS token_ids_mv TO token_ids AS
SELECT chatbot_id, token, min(id) AS token_id
FROM (SELECT chatbot_id, token, token_id AS id FROM events WHERE token_id_new AND id != 0)
GROUP BY chatbot_id, token;

-- Per day, the union of the day's hourly bitmaps as they are inserted (a view on the view's
-- table: it sees each insert into token_hour_sets, the rebuild's included).
DROP VIEW IF EXISTS token_day_sets_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS token_day_sets_mv TO token_day_sets AS
SELECT chatbot_id, toDate(hour) AS day, kind, groupBitmapMergeState(tokens) AS tokens
FROM token_hour_sets
GROUP BY chatbot_id, day, kind;

ALTER TABLE token_hour_sets MODIFY COLUMN tokens CODEC(NONE);
ALTER TABLE token_day_sets MODIFY COLUMN tokens CODEC(NONE);
