-- The kinds a row is counted under in the token sets (token_hour_sets, token_day_sets and the
-- window's partial hours): its event name, and 'ab:control' / 'ab:test' for a row of that A/B
-- group ('' otherwise: filter `kind != ''`). An ARRAY JOIN clause of a FROM over rows with
-- `event` and `ab_group`.
ARRAY JOIN [toString(event), multiIf(ab_group = 'control', 'ab:control', ab_group = 'test', 'ab:test', '')] AS kind
