-- The holdout arm of each event (services/ingest/README.md, "Holdout"; the `lift` statistic):
-- 'exposed' or 'holdout' when the chatbot runs a holdout, '' otherwise. The ingest computes it
-- from the token and the chatbot's settings; rows stored before the column read as '' (in no
-- arm). events_input_v2 (migration 0160) has the columns of `events`, and its view copies them
-- by name; event_copies keeps the arm of a retried row for the token sets' partial reads.
-- Safe under a rolling deploy: a writer that does not send the column stores ''.
ALTER TABLE events ADD COLUMN IF NOT EXISTS holdout LowCardinality(String) DEFAULT '' AFTER device;
ALTER TABLE events_input_v2 ADD COLUMN IF NOT EXISTS holdout LowCardinality(String) DEFAULT '' AFTER device;
ALTER TABLE event_copies ADD COLUMN IF NOT EXISTS holdout LowCardinality(String) DEFAULT '' AFTER open_way;
