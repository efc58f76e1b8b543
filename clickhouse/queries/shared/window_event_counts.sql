-- The window's event counts: a FROM clause of rows (event, popup_version, open_way, events), the
-- number of this chatbot's rows of each of the `kinds` events that count in W = [{from}, {to}]
-- (shared/window_events.sql: each event once, retried beacons and bots removed). popup_version
-- is set for the popup events only, open_way for convo_started only ('' otherwise).
-- Read in three parts, as shared/window_token_sets.sql: the whole hours from event_hour_counts
-- (migration 0130), their rows with an earlier copy from event_copies under the retry rule,
-- and the partial hours at W's ends from `events`.
-- Use: `FROM {{> shared/window_event_counts kinds=('popup_displayed', 'convo_started')}}`.
(
    SELECT event, popup_version, open_way, sum(n) AS events
    FROM
    (
        SELECT event, popup_version, open_way, events AS n
        FROM event_hour_counts
        WHERE chatbot_id = {chatbot_id:String}
          AND event IN {{kinds}}
          AND hour >= {hours_from:DateTime('UTC')}
          AND hour < {hours_to:DateTime('UTC')}
        UNION ALL
        SELECT
            event,
            if(event IN ('popup_displayed', 'popup_opened'), popup_version, '') AS popup_version,
            if(event = 'convo_started', open_way, '') AS open_way,
            count() AS n
        FROM
        (
            WITH received_at < {hours_from:DateTime('UTC')} OR received_at >= {hours_to:DateTime('UTC')} AS in_partial_hour
            SELECT event, popup_version, open_way
            FROM events
            WHERE {{> shared/window_events rows=(in_partial_hour AND event IN {{kinds}})}}
            UNION ALL
            SELECT event, popup_version, open_way
            FROM event_copies
            WHERE chatbot_id = {chatbot_id:String}
              AND event IN {{kinds}}
              AND received_at >= {hours_from:DateTime('UTC')}
              AND received_at < {hours_to:DateTime('UTC')}
              AND prev_copy_at < {dedup_lookback_from:DateTime64(3, 'UTC')}
        )
        GROUP BY event, popup_version, open_way
    )
    GROUP BY event, popup_version, open_way
) AS counts
