-- The statement each data-team query ran, as the engine printed it (its canonical text, with
-- its literals), or the text as received when the engine could not parse it: the log keeps
-- what a refused attack tried. A statement holding an encryption key keeps only its
-- normalised form (packages/clickhouse/src/http-bridge/plugin.ts). Rows from before read as ''.
ALTER TABLE sql_query_log ADD COLUMN IF NOT EXISTS statement String DEFAULT raw_query AFTER query;
