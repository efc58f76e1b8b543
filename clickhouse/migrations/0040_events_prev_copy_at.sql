-- The retry rule (clickhouse/README.md, "Deduplication rules", rule 3) as a column: every
-- statistic used to read the day before its window again to find the originals of retried
-- beacons, and to group its window by event_id to keep each event once. With prev_copy_at, the
-- time of the latest earlier copy of the row's event, a row counts iff
-- prev_copy_at < window start - 1 day: one comparison per row, no second read, no grouping
-- (queries/shared/window_events.sql).
-- prev_copy_at is computed at insert time, so writers insert into `events_input` (a Null table
-- with the columns of `events`) and its view stores the rows in `events`; the view also leaves
-- out a row that is already stored (a replay) or that arrives after a later copy of its event
-- was stored (so a stored row's prev_copy_at never changes), and keeps one of two equal rows.
-- Rebuilt with `npm run cli -- rollups:rebuild` (clickhouse/README.md, "Rollups").

-- 1970-01-01 (0) when the row is its event's first stored copy, so the rule is one comparison.
-- Bot rows keep 0: no statistic reads them, and no copy of theirs makes a visitor's a retry.
ALTER TABLE events ADD COLUMN IF NOT EXISTS prev_copy_at DateTime64(3, 'UTC') DEFAULT 0;

-- How the view below finds the stored copies of an inserted row without scanning `events`, whose
-- key starts with the chatbot and the time: each granule's smallest and largest event id, as
-- the UUID's 16 bytes in text order (UUIDToNum). For UUID v7 ids (the tracker's, and the
-- ingest's when the client sends none) that is time order, and a granule holds one stretch of
-- time, so a new event's id falls outside every older granule's range and its lookup skips
-- them; the UUID type itself sorts by its second half, which would give every granule the whole
-- range.
ALTER TABLE events ADD INDEX IF NOT EXISTS event_id_bytes UUIDToNum(event_id) TYPE minmax GRANULARITY 1;
ALTER TABLE events MATERIALIZE INDEX event_id_bytes SETTINGS mutations_sync = 2;

CREATE TABLE IF NOT EXISTS events_input AS events ENGINE = Null;

-- Inside the view `events_input` is the inserted block. Per non-bot row, against the stored
-- copies of its event (same chatbot and id; found through the index event_id_bytes)
-- and the other rows of the block with the same chatbot and id:
--   prev_copy_at = the latest of those copies before it (0 if none);
--   the row is left out when a copy at the same time or later is already stored: a replay of a
--   stored row, or a copy older than a stored one (storing it would change that copy's
--   prev_copy_at; the consumer leaves out an id it inserted recently, whatever its time).
-- Bot rows pass through with 0. LIMIT 1 BY keeps one of equal rows in the block.
-- How, cheaply: almost every row is its event's only copy. The verdicts of the few that are not
-- are computed once, from the block's keys alone (id, chatbot, time: no wide column goes
-- through a join), into one constant pair of arrays (a scalar subquery), which each row then
-- probes through transform()'s hash table. (A view re-evaluates an inlined CTE at each use, and
-- reads the table, not the block, in a UNION's later branches: neither is used here.)
CREATE MATERIALIZED VIEW IF NOT EXISTS events_input_mv TO events AS
WITH
    keys AS
    (
        SELECT UUIDToNum(event_id) AS id, chatbot_id, received_at
        FROM events_input
        WHERE NOT is_bot
    ),
    (
        SELECT (groupArray(key), groupArray(verdict))
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
    ) AS copies
SELECT * EXCEPT (prev_ms, prev_copy_at), fromUnixTimestamp64Milli(prev_ms, 'UTC') AS prev_copy_at
FROM
(
    SELECT *,
        if(is_bot OR empty(copies.1), toInt64(0),
           transform(concat(UUIDToNum(event_id), chatbot_id, reinterpretAsString(received_at)), copies.1, copies.2, toInt64(0))) AS prev_ms
    FROM events_input
)
WHERE prev_ms >= 0
LIMIT 1 BY event_id, chatbot_id, received_at;

-- The rows stored before: their prev_copy_at (the same statements as `rollups:rebuild`'s,
-- queries/rollups/events_prev_copy_*.sql).
CREATE TABLE IF NOT EXISTS events_prev_copy_fill
(
    chatbot_id   String,
    received_at  DateTime64(3, 'UTC'),
    event_id     UUID,
    prev_copy_at DateTime64(3, 'UTC')
)
ENGINE = Join(ANY, LEFT, chatbot_id, received_at, event_id);

INSERT INTO events_prev_copy_fill
SELECT chatbot_id, pair.1 AS received_at, event_id, pair.2 AS prev_copy_at
FROM
(
    SELECT event_id, chatbot_id, arraySort(groupUniqArray(received_at)) AS times
    FROM events
    WHERE NOT is_bot
    GROUP BY event_id, chatbot_id
    HAVING length(times) > 1
)
ARRAY JOIN arrayZip(arrayPopFront(times), arrayPopBack(times)) AS pair
SETTINGS max_bytes_before_external_group_by = 1000000000;

ALTER TABLE events
-- A mutation runs without the session's database: the Join table's name is qualified.
UPDATE prev_copy_at = joinGet(concat({database:String}, '.events_prev_copy_fill'), 'prev_copy_at', chatbot_id, received_at, event_id)
WHERE NOT is_bot
SETTINGS mutations_sync = 2;

DROP TABLE IF EXISTS events_prev_copy_fill;
