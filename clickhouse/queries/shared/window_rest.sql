-- The rows of W = [{from}, {to}] that count and that the hourly aggregates do not hold: the rows
-- of the partial hours at W's two ends, from `events` under the full rule
-- (shared/window_events.sql), and the rows with an earlier copy in W's whole hours
-- [{hours_from}, {hours_to}), from event_copies, under the retry rule. `rows` narrows both
-- (e.g. `(event IN ('visitor'))`, or `(true)`). A FROM clause of rows (received_at, token_id,
-- event, ab_group, popup_version, open_way, holdout); the aggregates' part of W is the caller's.
(
    WITH received_at < {hours_from:DateTime('UTC')} OR received_at >= {hours_to:DateTime('UTC')} AS in_partial_hour
    SELECT received_at, token_id, event, ab_group, popup_version, open_way, holdout
    FROM events
    WHERE {{> shared/window_events rows=(in_partial_hour AND {{rows}})}}
    UNION ALL
    SELECT received_at, token_id, event, ab_group, popup_version, open_way, holdout
    FROM event_copies
    WHERE chatbot_id = {chatbot_id:String}
      AND {{rows}}
      AND received_at >= {hours_from:DateTime('UTC')}
      AND received_at < {hours_to:DateTime('UTC')}
      AND prev_copy_at < {dedup_lookback_from:DateTime64(3, 'UTC')}
) AS rest
