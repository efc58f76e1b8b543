-- Sealed hours: each complete hour of a chatbot's events pre-aggregated once, so that a
-- statistic over a month reads ~720 small rows and the few unsealed hours instead of every
-- event (a big shop's engagement funnel grouped 2M tokens out of 10M rows on every call).
-- Exact, not approximate: a token is a dense UInt32 id (token_ids), an hour's token sets are
-- roaring bitmaps of those ids, and a sealed hour is used only while it still describes the
-- hour's rows exactly (hour_rows below); any other hour is read from `events` as before.
-- Filled by the dashboard's sealer (packages/clickhouse/src/token-sets.ts), one at a time
-- under a PostgreSQL advisory lock; emptied by `npm run cli -- rollups:rebuild`
-- (clickhouse/README.md, "Sealed hours").

-- Rows and a checksum per (chatbot, hour) of `events`, kept by ClickHouse with each part, so
-- it always describes exactly the rows a query sees: a sealed hour whose rows or checksum
-- differ from it (rows added to the hour after it was sealed, an ALTER, a merge that dropped
-- an equal row) is not used. 'rebuild': `events` is a ReplacingMergeTree, whose merges may
-- drop rows, and rows may be deleted (DELETE FROM, a repair): the projection is recomputed
-- from the part that results (ClickHouse refuses both by default on a table with projections).
ALTER TABLE events MODIFY SETTING deduplicate_merge_projection_mode = 'rebuild', lightweight_mutation_projection_mode = 'rebuild';
ALTER TABLE events ADD PROJECTION IF NOT EXISTS hour_rows
(
    SELECT chatbot_id, toStartOfHour(received_at), count(), sum(cityHash64(event_id, received_at))
    GROUP BY chatbot_id, toStartOfHour(received_at)
);
ALTER TABLE events MATERIALIZE PROJECTION hour_rows SETTINGS mutations_sync = 2;

-- One id per (chatbot, non-bot token), 1, 2, 3… in order of first appearance: dense ids keep
-- the bitmaps small. Written only by the sealer, which holds the lock, so a token never gets
-- two ids and an id never names two tokens.
CREATE TABLE IF NOT EXISTS token_ids
(
    chatbot_id String,
    token      String,
    id         UInt32
)
ENGINE = ReplacingMergeTree
ORDER BY (chatbot_id, token);

-- One row per sealed (chatbot, hour); a reseal writes a newer row (sealed_at), read with FINAL.
-- The sets hold the ids of the hour's rows that count in EVERY window containing the whole
-- hour (the counts, those rows' numbers): non-bot rows without an earlier copy (prev_copy_at = 0). A copy whose earlier copy is
-- less than `lookback_s` before the hour's start never counts in such a window (retry rule,
-- queries/shared/window_events.sql); an hour holding an older copy, whose verdict depends on
-- the window, or a row whose token had no id yet, is `unsealable` and read from `events`.
CREATE TABLE IF NOT EXISTS token_hour_sets
(
    chatbot_id  String,
    hour        DateTime('UTC'),
    -- The retry look-back the sets were computed for: another one makes them unusable.
    lookback_s  UInt32,
    -- The hour's rows (all of them, bots included) and their checksum when sealed, as hour_rows.
    rows        UInt64,
    checksum    UInt64,
    unsealable  UInt64,
    visitors    AggregateFunction(groupBitmap, UInt32),
    approached  AggregateFunction(groupBitmap, UInt32),
    opened      AggregateFunction(groupBitmap, UInt32),
    chatted     AggregateFunction(groupBitmap, UInt32),
    -- The same rows counted (not sets): popup_displayed / popup_opened per popup version
    -- ('' as 'unknown'), convo_started per open_way, for popup-metrics.
    popup_displayed Map(String, UInt64),
    popup_opened    Map(String, UInt64),
    conversations   Map(String, UInt64),
    sealed_at   DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(sealed_at)
ORDER BY (chatbot_id, hour);
