-- What a sealed purchase needs to know is decided when sealed (clickhouse/README.md "Sealed
-- hours"): the big shop's purchases statistic spent ~20 % of its time joining every sealed
-- purchase with order_first_purchases and ~20 % gathering the first conversations of its
-- buyers from every sealed hour, on each call. Both facts can change after the seal only by a
-- row arriving later: an earlier purchase row of the order, an earlier conversation of the token.
--   purchases_first: beside `purchases`, whether each was its order's first purchase row ever
--     (or had no order number) when sealed. A false stays false (an order's first only moves
--     earlier); a true ends when an earlier row of the order arrives.
--   purchases_chat: beside `purchases`, the latest conversation its token started before it
--     with no earlier copy (1970-01-01: none), ever, when sealed: its token chatted in W before
--     it if that is in W, or if a copy counting in W did (such a copy's hour is never a sealed
--     hour of W: shared/window_events.sql's rule makes it unsealable or an edge, read as rows).
--   sealed_hour_arrivals: every purchase row with an order number and every conversation as
--     they are stored, with the ClickHouse time they arrived. The sealer reads the rows that
--     arrived since its last check and seals again each sealed hour whose purchase one of them
--     precedes (seal/purchases_to_recheck.sql); a statistic looks up the rows that arrived since
--     then itself until the sealer has run.
--   sealed_purchases_checked: up to when the sealer has done that (its run's start minus a
--     margin for inserts under way). Rows arriving twice (a replayed batch) only repeat a check.
ALTER TABLE token_hour_sets
    ADD COLUMN IF NOT EXISTS purchases_first Array(Bool) AFTER purchases,
    ADD COLUMN IF NOT EXISTS purchases_chat Array(DateTime64(3, 'UTC')) AFTER purchases_first;

CREATE TABLE IF NOT EXISTS sealed_hour_arrivals
(
    chatbot_id  String,
    event       LowCardinality(String),
    token       String,
    order_num   String,
    received_at DateTime64(3, 'UTC'),
    event_id    UUID,
    arrived_at  DateTime64(3, 'UTC')
)
ENGINE = MergeTree
ORDER BY (arrived_at, chatbot_id);

CREATE MATERIALIZED VIEW IF NOT EXISTS sealed_hour_arrivals_mv TO sealed_hour_arrivals AS
SELECT chatbot_id, event, token, order_num, received_at, event_id, now64(3, 'UTC') AS arrived_at
FROM events
WHERE NOT is_bot AND ((event = 'purchase' AND order_num != '') OR event = 'convo_started');

CREATE TABLE IF NOT EXISTS sealed_purchases_checked
(
    checked_until DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(checked_until)
ORDER BY tuple();

-- Hours sealed before this migration lack these columns (they would read as "counts nothing"):
-- forget them, the sealer seals them again. Rows stored before the view existed are older than
-- any seal from now on, so every seal sees them.
TRUNCATE TABLE token_hour_sets;
