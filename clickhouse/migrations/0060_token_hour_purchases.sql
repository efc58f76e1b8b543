-- Sealed hours for the purchase funnel, its A/B block and the daily series (migration 0050,
-- clickhouse/README.md "Sealed hours"): a big shop's purchases statistic grouped 2M tokens and
-- read the token of every purchase row (~1.7 s); with these columns it reads the sealed hours'
-- sets and purchase lists and only the unsealed rows. Same rows as the other sets: those that
-- count in every window containing the whole hour.
--   in_control / in_test: ids of tokens with an event marked with that A/B group;
--   first_chats: each token's earliest convo_started in the hour (id -> received_at);
--   buyers: ids of tokens with a purchase (whose first chats a read looks up);
--   purchases: every purchase row, with what the order rule (queries/shared/counted_purchases.sql)
--     needs at read time: whether it is its order's first purchase row ever can change after
--     sealing (an earlier row of the order may still arrive), so that is looked up when read;
--   event_counts: the counting rows per event name (the insights report's click-throughs and
--     reactions, and for the data team the hour's volume of each kind).
ALTER TABLE token_hour_sets
    ADD COLUMN IF NOT EXISTS in_control AggregateFunction(groupBitmap, UInt32) AFTER chatted,
    ADD COLUMN IF NOT EXISTS in_test AggregateFunction(groupBitmap, UInt32) AFTER in_control,
    ADD COLUMN IF NOT EXISTS first_chats Map(UInt32, DateTime64(3, 'UTC')) AFTER in_test,
    ADD COLUMN IF NOT EXISTS buyers AggregateFunction(groupBitmap, UInt32) AFTER first_chats,
    ADD COLUMN IF NOT EXISTS purchases Array(Tuple(id UInt32, at DateTime64(3, 'UTC'), event_id UUID, order_num String, revenue Float64)) AFTER buyers,
    ADD COLUMN IF NOT EXISTS event_counts Map(String, UInt64) AFTER conversations;

-- Hours sealed before this migration lack the new columns (their defaults would read as "no
-- purchases"): forget them, the sealer seals them again (a big shop's month in ~6 s).
TRUNCATE TABLE token_hour_sets;
