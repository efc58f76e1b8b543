-- The data team's queries through the read-only /clickhouse interface, written by the
-- interface itself (one row per request, refused ones included). `raw_query` is EPHEMERAL:
-- only the normalised text (literals replaced by ?) and its hash are stored, so values a
-- query filtered on do not end up in the log.
CREATE TABLE IF NOT EXISTS sql_query_log
(
    query_id String,
    key_name LowCardinality(String),
    raw_query String EPHEMERAL,
    query String DEFAULT normalizeQuery(raw_query),
    normalized_query_hash UInt64 DEFAULT normalizedQueryHash(raw_query),
    database LowCardinality(String),
    started_at DateTime64(3, 'UTC'),
    duration_ms UInt32,
    read_rows UInt64,
    read_bytes UInt64,
    result_bytes UInt64,
    peak_memory_usage Nullable(UInt64),
    status LowCardinality(String),
    error_code Int32
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(started_at)
ORDER BY (key_name, started_at)
TTL toDateTime(started_at) + INTERVAL 180 DAY
SETTINGS ttl_only_drop_parts = 1;
