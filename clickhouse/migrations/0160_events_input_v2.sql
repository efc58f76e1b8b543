-- Writers number tokens themselves and every insert depends only on its own rows
-- (clickhouse/README.md, "Token ids" and "Every row counted once").
--   - A row arrives with its token_id: the writer that owns the row's bus partition gives it
--     (packages/clickhouse/src/token-ids.ts) and stores the new (chatbot, token, id) in
--     `token_ids` before the row. The view no longer looks ids up or numbers tokens.
--   - A row arrives with its insert's insert_key (a number per insert, never 0): the view's
--     look-up of earlier copies leaves out rows of the same insert, so an insert retried after
--     it was partly applied computes the very same rows, and every table it feeds takes only
--     what it is missing (each keeps a window of inserted block tokens:
--     non_replicated_deduplication_window below; deduplicate_blocks_in_dependent_materialized_views
--     on the writer's insert).
--   - Earlier copies are looked for among this chatbot's rows of the last 31 days only: the
--     look-up reads two monthly partitions, not the whole history.

ALTER TABLE events ADD COLUMN IF NOT EXISTS insert_key UInt64 DEFAULT 0;

-- The columns of `events` (the view copies them by name); writers send the event's columns,
-- token_id and insert_key.
CREATE TABLE IF NOT EXISTS events_input_v2 AS events ENGINE = Null;

-- Its view, events_input_v2_mv (clickhouse/views/events_input_v2_mv.sql), is made after the
-- migrations, as every view is (clickhouse/README.md, "Views").

-- Every table the views feed keeps the tokens of its last inserted blocks, as `events` does:
-- an insert retried with the same token adds to each table only a block it does not have yet.
ALTER TABLE token_ids MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE token_hour_sets MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE token_day_sets MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE event_hour_counts MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE event_copies MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE purchases MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE conversation_starts MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE order_first_purchases MODIFY SETTING non_replicated_deduplication_window = 1000;

-- The old input numbered tokens inside its view: retired. Dropping the input table first makes
-- an insert into it fail (and be retried by its writer) instead of being taken by a Null table
-- with no view left to store it.
DROP TABLE IF EXISTS events_input;
DROP VIEW IF EXISTS events_input_mv;

-- token_ids is written by the writers themselves; the highest id of a slot is read from it.
DROP VIEW IF EXISTS token_ids_mv;
DROP VIEW IF EXISTS token_id_tops_mv;
DROP TABLE IF EXISTS token_id_tops;

-- Which numbering slot each writer run outside the bus took (a replay): a run takes the slot
-- after the latest one and keeps it if, once every claim made at the same time is visible, its
-- claim is the first of that slot (packages/clickhouse/src/token-ids.ts, claimRunSlot).
CREATE TABLE IF NOT EXISTS id_slot_claims
(
    slot       UInt16,
    run        String,
    claimed_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = MergeTree
ORDER BY (slot, claimed_at)
TTL toDateTime(claimed_at) + INTERVAL 30 DAY;
