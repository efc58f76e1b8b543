-- The statistics' insert-time aggregates (clickhouse/README.md, "The statistics engine"):
-- a dense integer id per (chatbot, token), hourly token sets and event counts, and narrow
-- tables for the rules that span rows (an order's first purchase, a purchase after chat).
-- Every object here is fed by a materialized view as rows arrive, late rows included; nothing
-- is computed by a job or frozen.

-- The token's id: the same in every row of the token, so the hourly sets can be roaring
-- bitmaps of small integers instead of sets of strings. 0 on bot rows (no statistic reads them).
ALTER TABLE events ADD COLUMN IF NOT EXISTS token_id UInt64 DEFAULT 0;

-- Which allocator gives a new token its id: the bus partition + 1 the row came through (the
-- consumer sets it), 0 for writers outside the bus (import, demo). Ids are dense per
-- (chatbot, slot): slot << 40 | 1, 2, 3…; a slot has one writer at a time (a partition has one
-- consumer), so the next id of a slot is its largest so far + 1 without two writers racing.
ALTER TABLE events_input ADD COLUMN IF NOT EXISTS id_slot UInt16 DEFAULT 0;

-- One id per (chatbot, token): where events_input_mv looks up the ids of the tokens it has seen.
-- min: should a token get two ids after all (two writers inserting its first events at once),
-- every later row takes the smaller one.
CREATE TABLE IF NOT EXISTS token_ids
(
    chatbot_id String,
    token      String,
    token_id   SimpleAggregateFunction(min, UInt64)
)
ENGINE = AggregatingMergeTree
ORDER BY (chatbot_id, token)
-- Looked up with one batch's tokens at a time: small granules read few rows per token.
SETTINGS index_granularity = 1024;

CREATE MATERIALIZED VIEW IF NOT EXISTS token_ids_mv TO token_ids AS
SELECT chatbot_id, token, min(id) AS token_id
FROM (SELECT chatbot_id, token, token_id AS id FROM events WHERE id != 0)
GROUP BY chatbot_id, token;

-- The largest id given so far per (chatbot, slot), its low 40 bits: where the next one starts.
CREATE TABLE IF NOT EXISTS token_id_tops
(
    chatbot_id String,
    slot       UInt16,
    top        SimpleAggregateFunction(max, UInt64)
)
ENGINE = AggregatingMergeTree
ORDER BY (chatbot_id, slot);

CREATE MATERIALIZED VIEW IF NOT EXISTS token_id_tops_mv TO token_id_tops AS
SELECT chatbot_id, toUInt16(bitShiftRight(id, 40)) AS slot, max(bitAnd(id, 1099511627775)) AS top
FROM (SELECT chatbot_id, token_id AS id FROM events WHERE id != 0)
GROUP BY chatbot_id, slot;

-- events_input_mv as in migration 0040, and it gives each non-bot row its token's id: the id in
-- token_ids, or for a token not seen before the next free id of its (chatbot, slot), new tokens
-- numbered in the order of their first row in the insert (then by token), so a redelivered
-- batch gets the ids its first delivery would have. One insert is one block (the consumer's
-- inserts and the import's chunks are below max_insert_block_size), and the next insert of the
-- same slot starts after this one was acknowledged, so it sees these ids and tops.
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
        -- Each (chatbot, token) of the block's non-bot rows: its stored id, else a new one.
        SELECT CAST((groupArray(key), groupArray(id)), 'Tuple(keys Array(String), ids Array(UInt64))')
        FROM
        (
            SELECT concat(toString(length(chatbot_id)), ':', chatbot_id, token) AS key, min(token_id) AS id
            FROM token_ids
            WHERE (chatbot_id, token) IN (SELECT chatbot_id, token FROM events_input WHERE NOT is_bot)
            GROUP BY chatbot_id, token
            UNION ALL
            SELECT
                block.key AS key,
                bitShiftLeft(toUInt64(block.slot), 40) + tops.top
                    + row_number() OVER (PARTITION BY block.chatbot_id, block.slot ORDER BY block.first_at, block.key) AS id
            FROM
            (
                SELECT concat(toString(length(chatbot_id)), ':', chatbot_id, token) AS key, chatbot_id,
                    min(id_slot) AS slot, min(received_at) AS first_at
                FROM events_input
                WHERE NOT is_bot
                  AND (chatbot_id, token) NOT IN (SELECT chatbot_id, token FROM token_ids WHERE (chatbot_id, token) IN (SELECT chatbot_id, token FROM events_input))
                GROUP BY chatbot_id, token
            ) AS block
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
    if(is_bot, toUInt64(0), transform(concat(toString(length(chatbot_id)), ':', chatbot_id, token), ids.keys, ids.ids, toUInt64(0))) AS token_id
FROM
(
    SELECT *,
        if(is_bot OR empty(copies.keys), toInt64(0),
           transform(concat(UUIDToNum(event_id), chatbot_id, reinterpretAsString(received_at)), copies.keys, copies.verdicts, toInt64(0))) AS prev_ms
    FROM events_input
)
WHERE prev_ms >= 0
LIMIT 1 BY event_id, chatbot_id, received_at;

-- Per (chatbot, hour, kind) the ids of the tokens with such a row: kind is the event name, or
-- 'ab:control' / 'ab:test' for a row of that A/B group. Only rows that count in every window
-- (prev_copy_at = 0: no earlier copy of their event); the few copies are read from event_copies.
CREATE TABLE IF NOT EXISTS token_hour_sets
(
    chatbot_id String,
    hour       DateTime('UTC'),
    kind       LowCardinality(String),
    tokens     AggregateFunction(groupBitmap, UInt64)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (chatbot_id, kind, hour)
-- A window reads whole days from token_day_sets and only the hours around them from here: a
-- read deserializes every bitmap of the granules it touches, so small granules.
SETTINGS index_granularity = 128;

CREATE MATERIALIZED VIEW IF NOT EXISTS token_hour_sets_mv TO token_hour_sets AS
SELECT chatbot_id, toStartOfHour(received_at) AS hour, kind, groupBitmapState(token_id) AS tokens
FROM events
ARRAY JOIN [toString(event), multiIf(ab_group = 'control', 'ab:control', ab_group = 'test', 'ab:test', '')] AS kind
WHERE NOT is_bot AND prev_copy_at = 0 AND kind != ''
GROUP BY chatbot_id, hour, kind;

-- The same per (chatbot, kind, UTC day): a month's window merges 30 days' bitmaps, not 720 hours'.
CREATE TABLE IF NOT EXISTS token_day_sets
(
    chatbot_id String,
    day        Date,
    kind       LowCardinality(String),
    tokens     AggregateFunction(groupBitmap, UInt64)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (chatbot_id, kind, day)
-- A read deserializes every bitmap of the granules it touches: small granules hold few of
-- other chatbots' and kinds'.
SETTINGS index_granularity = 128;

CREATE MATERIALIZED VIEW IF NOT EXISTS token_day_sets_mv TO token_day_sets AS
SELECT chatbot_id, toDate(received_at) AS day, kind, groupBitmapState(token_id) AS tokens
FROM events
ARRAY JOIN [toString(event), multiIf(ab_group = 'control', 'ab:control', ab_group = 'test', 'ab:test', '')] AS kind
WHERE NOT is_bot AND prev_copy_at = 0 AND kind != ''
GROUP BY chatbot_id, day, kind;

-- Per (chatbot, hour, event, popup version / open way) the number of rows, under the same rule.
CREATE TABLE IF NOT EXISTS event_hour_counts
(
    chatbot_id    String,
    hour          DateTime('UTC'),
    event         LowCardinality(String),
    -- Set for the popup events only; open_way for convo_started only.
    popup_version String,
    open_way      LowCardinality(String),
    events        UInt64
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (chatbot_id, hour, event, popup_version, open_way);

CREATE MATERIALIZED VIEW IF NOT EXISTS event_hour_counts_mv TO event_hour_counts AS
SELECT
    chatbot_id,
    toStartOfHour(received_at) AS hour,
    event,
    if(event IN ('popup_displayed', 'popup_opened'), popup_version, '') AS popup_version,
    if(event = 'convo_started', open_way, '') AS open_way,
    count() AS events
FROM events
WHERE NOT is_bot AND prev_copy_at = 0
GROUP BY chatbot_id, hour, event, popup_version, open_way;

-- The rows with an earlier copy of their event (retried beacons): whether one counts depends on
-- the window (shared/window_events.sql), so they are kept apart, narrow, and judged at read time.
CREATE TABLE IF NOT EXISTS event_copies
(
    chatbot_id    String,
    received_at   DateTime64(3, 'UTC'),
    event         LowCardinality(String),
    token_id      UInt64,
    ab_group      LowCardinality(Nullable(String)),
    popup_version String,
    open_way      LowCardinality(String),
    prev_copy_at  DateTime64(3, 'UTC')
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (chatbot_id, received_at);

CREATE MATERIALIZED VIEW IF NOT EXISTS event_copies_mv TO event_copies AS
SELECT chatbot_id, received_at, event, token_id, ab_group, popup_version, open_way, prev_copy_at
FROM events
WHERE NOT is_bot AND prev_copy_at != 0;

-- Each order number's first purchase ever, now with the purchase's token id and EUR revenue
-- in the same minimum: the purchase statistics read an order's counted purchase from this one
-- row (counted in W iff its time is in W) instead of finding it among the window's purchases.
-- The table of migration 0030 is replaced; `migrate --backfill` (or rollups:rebuild) fills it.
DROP VIEW IF EXISTS order_first_purchases_mv;
DROP TABLE IF EXISTS order_first_purchases;

CREATE TABLE IF NOT EXISTS order_first_purchases
(
    chatbot_id String,
    order_num  String,
    -- The earliest non-bot purchase row with this order number: ties on time go to the smaller id.
    first      SimpleAggregateFunction(min, Tuple(at DateTime64(3, 'UTC'), event_id UUID, token_id UInt64, revenue Float64))
)
ENGINE = AggregatingMergeTree
ORDER BY (chatbot_id, order_num);

CREATE MATERIALIZED VIEW IF NOT EXISTS order_first_purchases_mv TO order_first_purchases AS
SELECT chatbot_id, order_num,
    min(CAST((received_at, event_id, token_id, ifNull(total_value_base, 0)), 'Tuple(at DateTime64(3, \'UTC\'), event_id UUID, token_id UInt64, revenue Float64)')) AS first
FROM events
WHERE event = 'purchase' AND order_num != '' AND NOT is_bot
GROUP BY chatbot_id, order_num;

-- Every purchase row (copies too, with prev_copy_at): the purchase statistics apply the retry
-- and order rules to these at read time.
CREATE TABLE IF NOT EXISTS purchases
(
    chatbot_id   String,
    received_at  DateTime64(3, 'UTC'),
    event_id     UUID,
    token_id     UInt64,
    order_num    String,
    -- total_value_base, 0 for an unknown currency.
    revenue      Float64,
    prev_copy_at DateTime64(3, 'UTC')
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (chatbot_id, received_at, event_id);

CREATE MATERIALIZED VIEW IF NOT EXISTS purchases_mv TO purchases AS
SELECT chatbot_id, received_at, event_id, token_id, order_num, ifNull(total_value_base, 0) AS revenue, prev_copy_at
FROM events
WHERE event = 'purchase' AND NOT is_bot;

-- Every convo_started row: when each purchasing token first chatted in the window.
CREATE TABLE IF NOT EXISTS conversation_starts
(
    chatbot_id   String,
    received_at  DateTime64(3, 'UTC'),
    token_id     UInt64,
    prev_copy_at DateTime64(3, 'UTC')
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (chatbot_id, received_at);

CREATE MATERIALIZED VIEW IF NOT EXISTS conversation_starts_mv TO conversation_starts AS
SELECT chatbot_id, received_at, token_id, prev_copy_at
FROM events
WHERE event = 'convo_started' AND NOT is_bot;

-- Rows stored before this migration: ids for their tokens. The three statements below are the
-- fill's whole-table form, run as written on a cluster (which starts empty). On one node the
-- runner runs them in batches of chatbots instead (the marker below names the fill:
-- packages/clickhouse/src/backfill-token-ids.ts): start-up only on an empty `events` (nothing to
-- fill); a store with rows runs `npm run cli -- migrate --backfill`, which then fills the
-- aggregates (clickhouse/README.md, "Rebuilding").
-- batched fill: token_ids
INSERT INTO token_ids
SELECT chatbot_id, token, toUInt64(row_number() OVER (PARTITION BY chatbot_id ORDER BY first_at, token)) AS token_id
FROM (SELECT chatbot_id, token, min(received_at) AS first_at FROM events WHERE NOT is_bot AND token_id = 0 GROUP BY chatbot_id, token);

-- batched fill: token_ids
INSERT INTO token_id_tops
SELECT chatbot_id, toUInt16(0) AS slot, max(token_id) AS top
FROM token_ids
GROUP BY chatbot_id;

-- batched fill: token_ids
ALTER TABLE events
UPDATE token_id = transform(concat(toString(length(chatbot_id)), ':', chatbot_id, token),
    tupleElement((SELECT CAST((groupArray(key), groupArray(id)), 'Tuple(keys Array(String), ids Array(UInt64))') FROM (SELECT concat(toString(length(chatbot_id)), ':', chatbot_id, token) AS key, min(token_id) AS id FROM token_ids GROUP BY chatbot_id, token)), 'keys'),
    tupleElement((SELECT CAST((groupArray(key), groupArray(id)), 'Tuple(keys Array(String), ids Array(UInt64))') FROM (SELECT concat(toString(length(chatbot_id)), ':', chatbot_id, token) AS key, min(token_id) AS id FROM token_ids GROUP BY chatbot_id, token)), 'ids'),
    toUInt64(0))
WHERE NOT is_bot AND token_id = 0
SETTINGS mutations_sync = 2, allow_nondeterministic_mutations = 1;
