-- token_id_index: token_ids (migration 0050) as an in-memory hash table, so that a statistic
-- finds the ids of its unsealed rows' tokens with joinGet() instead of streaming the chatbot's
-- every id past them. On the big-shop benchmark (1.95M ids, ~14,000 tokens in the unsealed
-- rows) the lookup took 10 ms instead of ~40; engagement's CPU per call 180 → 78 ms
-- (clickhouse/README.md, "Sealed hours"). Cost: RAM, ~56 bytes per id (108 MB for 1.95M),
-- kept by ClickHouse (a Join table is held in memory and reloaded from its files at start-up).
--
-- Written only by the sealer, under its lock: the ids it has just assigned (indexed_to 0), then
-- the mark (chatbot_id, ' indexed', id 0, indexed_to N) saying that every id up to N is in
-- (join_any_take_last_row lets N move). The ingest's token pattern has no space; a stored row
-- that got past it with the token ' indexed' gets no id (seal/assign_token_ids.sql: its hour is
-- unsealable) and looks up as id 0, no id, as it should. A sealed hour records
-- the largest id among its tokens (max_id) and is used only while N covers it, so an index that
-- lags or lost rows (a server that could not reload it, a TRUNCATE) makes the statistics read
-- those hours as rows, exact and slower, until the sealer has indexed the ids again.
CREATE TABLE IF NOT EXISTS token_id_index
(
    chatbot_id String,
    token      String,
    id         UInt32,
    indexed_to UInt32
)
ENGINE = Join(ANY, LEFT, chatbot_id, token)
SETTINGS join_any_take_last_row = 1;

ALTER TABLE token_hour_sets ADD COLUMN IF NOT EXISTS max_id UInt32 AFTER unsealable;

-- Hours sealed before this migration have no max_id: forget them, the sealer seals them again.
TRUNCATE TABLE token_hour_sets;
