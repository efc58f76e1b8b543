-- The window's token sets: a FROM clause of rows (day, kind, tokens), tokens a roaring bitmap of
-- token ids of this chatbot's rows of that kind in W = [{from}, {to}] that count
-- (shared/window_events.sql: each event once, retried beacons and bots removed). kind is an
-- event name, or 'ab:control' / 'ab:test' for rows of that A/B group (shared/token_kinds.sql), as
-- in token_day_sets and token_hour_sets. A kind has several rows (its days, hours and the rest); the
-- union of its bitmaps is its set.
-- Read in four parts, whose union is exactly the rows of W that count:
--   the whole days of W, [{days_from}, {days_to}), from token_day_sets, and the other whole
--   hours, [{hours_from}, {hours_to}) outside them, from token_hour_sets (rows without an
--   earlier copy, which count in any window);
--   the rest of W (shared/window_rest.sql): the rows with an earlier copy in those whole
--   hours, and the partial hours at W's two ends from `events` itself.
-- Use: `FROM {{> shared/window_token_sets kinds=('visitor', 'convo_started')}}`, merging each
-- kind in one pass: groupBitmapMergeStateIf(tokens, kind = 'visitor') (an empty bitmap when it
-- has no row). `day` is the UTC day the rows are of: a series by day groups by it.
(
    SELECT day, kind, tokens
    FROM token_day_sets
    WHERE chatbot_id = {chatbot_id:String}
      AND kind IN {{kinds}}
      AND day >= toDate({days_from:DateTime('UTC')})
      AND day < toDate({days_to:DateTime('UTC')})
    UNION ALL
    SELECT toDate(hour) AS day, kind, tokens
    FROM token_hour_sets
    WHERE chatbot_id = {chatbot_id:String}
      AND kind IN {{kinds}}
      AND hour >= {hours_from:DateTime('UTC')}
      AND hour < {hours_to:DateTime('UTC')}
      AND (hour < {days_from:DateTime('UTC')} OR hour >= {days_to:DateTime('UTC')})
    UNION ALL
    SELECT toDate(received_at) AS day, kind, groupBitmapState(token_id) AS tokens
    FROM {{> shared/window_rest rows=(true)}}
    {{> shared/token_kinds}}
    WHERE kind IN {{kinds}}
    GROUP BY day, kind
) AS sets
