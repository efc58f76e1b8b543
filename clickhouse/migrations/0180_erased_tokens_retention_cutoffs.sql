-- Personal data (README.md, "Personal data"): the erased visitors and each chatbot's retention horizon.
--
-- Visitors erased on request (README.md, "Personal data"): one row per (chatbot, token), the
-- token only as digest = hex SHA-256 of chatbot_id, a zero byte and the token, and prefilter =
-- the token's 32-bit FNV-1a hash, which lets the consumer skip the digest for nearly every
-- message. The consumer and a replay drop every message of a listed token
-- (services/consumer/src/erased-step.ts), so a replay of the bus never brings it back.
CREATE TABLE IF NOT EXISTS erased_tokens
(
    chatbot_id String,
    digest     String,
    prefilter  UInt32,
    erased_at  DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree
ORDER BY (chatbot_id, digest);

-- Each chatbot's retention horizon (README.md, "Personal data"): the UTC day before which its raw
-- rows were deleted by the dashboard's retention run. The aggregates of anonymous integers
-- (token_hour_sets, token_day_sets, event_hour_counts) are kept for those days, so `cli verify`
-- compares them only from this day on (packages/clickhouse/src/verify.ts).
CREATE TABLE IF NOT EXISTS retention_cutoffs
(
    chatbot_id String,
    cutoff     Date,
    set_at     DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(set_at)
ORDER BY chatbot_id;
