-- Tracked events and rejected payloads. Column meanings: clickhouse/README.md.
-- One column per property of packages/events/src/stored-event.ts, so the consumer inserts
-- the bus message as a JSONEachRow row without reshaping it.
CREATE TABLE IF NOT EXISTS events
(
    event_id          UUID,
    event             LowCardinality(String),
    token             String,
    chatbot_id        String,
    received_at       DateTime64(3, 'UTC'),
    ab_test           Bool,
    ab_group          LowCardinality(Nullable(String)),
    popup_version     String,
    open_way          LowCardinality(String),
    order_num         String,
    currency          LowCardinality(String),
    total_value       Float64,
    total_value_base  Nullable(Float64),
    -- Array(Tuple(...)) rather than Nested: a JSONEachRow row can carry the items as the
    -- array of objects the bus already has ({"item_id":..,"value":..}), while Nested would
    -- need parallel arrays (items.item_id, items.value, ...).
    items             Array(Tuple(item_id String, value Float64, quantity UInt32, currency LowCardinality(String))),
    url               String CODEC(ZSTD(3)),
    user_agent        String CODEC(ZSTD(3)),
    client_hash       String,
    data              String CODEC(ZSTD(3)),
    inserted_at       DateTime64(3, 'UTC') DEFAULT now64(3),
    -- Statistics filter one chatbot's window by event type; a set index lets them skip
    -- granules holding none of the wanted types. 64 distinct values per block is well
    -- above the ~20 event types, so the index never overflows into "matches anything".
    INDEX idx_event event TYPE set(64) GRANULARITY 4,
    -- Order deduplication looks orders up across all time ("earliest purchase with this
    -- orderNum ever"); most granules hold none of a given order number.
    INDEX idx_order_num order_num TYPE bloom_filter(0.01) GRANULARITY 4
)
ENGINE = ReplacingMergeTree
-- Monthly partitions: statistics windows are days to months, so a window touches at most a
-- couple of partitions, and old months can be dropped or moved whole.
PARTITION BY toYYYYMM(received_at)
-- chatbot first: every statistic reads one chatbot's rows in a time window, which this
-- order keeps contiguous. event_id last makes the key unique per event, so a batch
-- replayed without its dedup token still collapses on merge (same id and same time).
ORDER BY (chatbot_id, received_at, event_id)
-- insert_deduplication_token only works on a non-replicated table when it keeps a window
-- of recent block hashes. A consumer crash replays at most the batches since its last
-- offset commit (a few), each making one block per month it spans; 1000 blocks covers that
-- with a wide margin (and a re-imported backfill file) at the cost of a small hash log.
SETTINGS non_replicated_deduplication_window = 1000;

CREATE TABLE IF NOT EXISTS events_rejected
(
    received_at  DateTime64(3, 'UTC'),
    -- A reason code (e.g. 'invalid_schema', 'invalid_json'): low cardinality by design.
    reason       LowCardinality(String),
    error        String,
    payload      String CODEC(ZSTD(3)),
    -- Where the payload came from: 'consumer' (failed re-validation), 'import', ...
    source       LowCardinality(String)
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (reason, received_at)
-- Rejections are for debugging, not history: 90 days is enough to notice and fix a broken
-- client. ttl_only_drop_parts drops whole expired parts instead of rewriting them, so a
-- month is kept until its last row is 90 days old.
TTL toDateTime(received_at) + INTERVAL 90 DAY
SETTINGS non_replicated_deduplication_window = 1000, ttl_only_drop_parts = 1;
