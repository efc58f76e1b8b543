-- The window's token sets: a FROM clause of rows (kind, tokens), tokens a roaring bitmap of
-- token ids of this chatbot's rows of that kind in W = [{from}, {to}] that count
-- (shared/window_events.sql: each event once, retried beacons and bots removed). kind is an
-- event name, or 'ab:control' / 'ab:test' for rows of that A/B group (shared/token_kinds.sql), as
-- in token_day_sets and token_hour_sets. A kind has several rows (its days, hours and the rest); the
-- union of its bitmaps is its set.
-- Read in four parts, whose union is exactly the rows of W that count:
--   the whole days of W, [{days_from}, {days_to}), from token_day_sets, and the other whole
--   hours, [{hours_from}, {hours_to}) outside them, from token_hour_sets (rows without an
--   earlier copy, which count in any window);
--   the rows with an earlier copy in those whole hours, from event_copies, under the retry rule;
--   the partial hours at W's two ends from `events` itself, under the full rule.
-- Use: `FROM {{> shared/window_token_sets kinds=('visitor', 'convo_started')}}`, merging each
-- kind in one pass: groupBitmapMergeStateIf(tokens, kind = 'visitor') (an empty bitmap when it
-- has no row).
(
    SELECT kind, tokens
    FROM token_day_sets
    WHERE chatbot_id = {chatbot_id:String}
      AND kind IN {{kinds}}
      AND day >= toDate({days_from:DateTime('UTC')})
      AND day < toDate({days_to:DateTime('UTC')})
    UNION ALL
    SELECT kind, tokens
    FROM token_hour_sets
    WHERE chatbot_id = {chatbot_id:String}
      AND kind IN {{kinds}}
      AND hour >= {hours_from:DateTime('UTC')}
      AND hour < {hours_to:DateTime('UTC')}
      AND (hour < {days_from:DateTime('UTC')} OR hour >= {days_to:DateTime('UTC')})
    UNION ALL
    SELECT kind, groupBitmapState(token_id) AS tokens
    FROM
    (
        WITH received_at < {hours_from:DateTime('UTC')} OR received_at >= {hours_to:DateTime('UTC')} AS in_partial_hour
        SELECT token_id, event, ab_group
        FROM events
        WHERE {{> shared/window_events rows=(in_partial_hour)}}
        UNION ALL
        SELECT token_id, event, ab_group
        FROM event_copies
        WHERE chatbot_id = {chatbot_id:String}
          AND received_at >= {hours_from:DateTime('UTC')}
          AND received_at < {hours_to:DateTime('UTC')}
          AND prev_copy_at < {dedup_lookback_from:DateTime64(3, 'UTC')}
    )
    {{> shared/token_kinds}}
    WHERE kind IN {{kinds}}
    GROUP BY kind
) AS sets
