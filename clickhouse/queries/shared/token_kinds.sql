-- The kinds a row is counted under in the token sets (token_hour_sets, token_day_sets and the
-- window's partial hours): its event name, 'ab:control' / 'ab:test' for a row of that A/B
-- group, and 'holdout:exposed' / 'holdout:holdout' for a row of that holdout arm ('' otherwise:
-- filter `kind != ''`). An ARRAY JOIN clause of a FROM over rows with `event`, `ab_group` and
-- `holdout`.
ARRAY JOIN [toString(event), multiIf(ab_group = 'control', 'ab:control', ab_group = 'test', 'ab:test', ''),
    multiIf(holdout = 'exposed', 'holdout:exposed', holdout = 'holdout', 'holdout:holdout', '')] AS kind
