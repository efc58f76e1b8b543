-- Purchases the ingest set aside (implausible, or unverified when the chatbot requires signed
-- purchases; clickhouse/README.md, "events_rejected") are rows of events_rejected with
-- source 'ingest'. The app counts them per chatbot and window: the chatbot and the event id
-- are columns so that count reads neither the payload nor another chatbot's rows, and counts a
-- retried beacon once. '' for the consumer's own rejections (poison has no trusted chatbot).
ALTER TABLE events_rejected ADD COLUMN IF NOT EXISTS chatbot_id String DEFAULT '';
ALTER TABLE events_rejected ADD COLUMN IF NOT EXISTS event_id String DEFAULT '';
ALTER TABLE events_rejected ADD INDEX IF NOT EXISTS idx_chatbot_id chatbot_id TYPE bloom_filter(0.01) GRANULARITY 1;
