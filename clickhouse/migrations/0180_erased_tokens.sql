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
