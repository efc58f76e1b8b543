-- Events whose user_agent is a known bot's (classified at ingest, packages/events
-- bot-filter.ts). Every statistic leaves them out (queries/shared/); the data team sees them.
-- Rows stored before this column existed read as false. AFTER data keeps the columns in the
-- order of StoredEvent's properties, which the consumer's RowBinary insert follows.
ALTER TABLE events ADD COLUMN IF NOT EXISTS is_bot Bool DEFAULT false AFTER data;
