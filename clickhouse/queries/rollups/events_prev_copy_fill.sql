-- The lookup table the rebuild of events.prev_copy_at reads (a Join table: joinGet in a mutation),
-- filled from `events`.
INSERT INTO events_prev_copy_fill
{{> shared/prev_copy_pairs}}
