-- The tokens of V in the requested segment (shared/segment_tokens.sql): what a filtered
-- overview, which PostgreSQL answers, restricts its conversations to (their visitor_token).
-- Read only when a segment filter is given.
SELECT DISTINCT token
FROM events
WHERE {{> shared/window_events rows=(event = 'visitor')}}
