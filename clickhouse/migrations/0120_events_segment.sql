-- Where a visitor came from and on what device (services/ingest/README.md, "Traffic source and
-- device"): derived at ingest from a `visitor` event's page URL (utm_* parameters), its
-- document.referrer and the User-Agent. The statistics take a token's segment from its
-- earliest `visitor` event in the window (queries/shared/segment_tokens.sql). Rows stored
-- before these columns existed read as '' (no segment; a filter never matches them).
-- `events_input` (migration 0040) has the columns of `events`: its view copies them by name.
ALTER TABLE events
    ADD COLUMN IF NOT EXISTS source LowCardinality(String) DEFAULT '' AFTER is_bot,
    ADD COLUMN IF NOT EXISTS utm_medium LowCardinality(String) DEFAULT '' AFTER source,
    ADD COLUMN IF NOT EXISTS utm_campaign LowCardinality(String) DEFAULT '' AFTER utm_medium,
    ADD COLUMN IF NOT EXISTS device LowCardinality(String) DEFAULT '' AFTER utm_campaign;
ALTER TABLE events_input
    ADD COLUMN IF NOT EXISTS source LowCardinality(String) DEFAULT '' AFTER is_bot,
    ADD COLUMN IF NOT EXISTS utm_medium LowCardinality(String) DEFAULT '' AFTER source,
    ADD COLUMN IF NOT EXISTS utm_campaign LowCardinality(String) DEFAULT '' AFTER utm_medium,
    ADD COLUMN IF NOT EXISTS device LowCardinality(String) DEFAULT '' AFTER utm_campaign;
