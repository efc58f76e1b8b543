-- The window's event counts: a FROM clause of rows (day, event, popup_version, open_way,
-- events), the number of this chatbot's rows of each of the `kinds` events that count in
-- W = [{from}, {to}] on each UTC day (shared/window_events.sql: each event once, retried
-- beacons and bots removed). popup_version is set for the popup events only, open_way for
-- convo_started only ('' otherwise), as event_hour_counts holds them (views/event_hour_counts_mv.sql).
-- Read in two parts, as shared/window_token_sets.sql: the whole hours from event_hour_counts,
-- the rest of W from shared/window_rest.sql.
-- Use: `FROM {{> shared/window_event_counts kinds=('popup_displayed', 'convo_started')}}`,
-- summing `events` over the days (or grouping by `day` for a series).
(
    SELECT day, event, popup_version, open_way, sum(n) AS events
    FROM
    (
        SELECT toDate(hour) AS day, event, popup_version, open_way, events AS n
        FROM event_hour_counts
        WHERE chatbot_id = {chatbot_id:String}
          AND event IN {{kinds}}
          AND hour >= {hours_from:DateTime('UTC')}
          AND hour < {hours_to:DateTime('UTC')}
        UNION ALL
        SELECT
            toDate(received_at) AS day,
            event,
            if(event IN ('popup_displayed', 'popup_opened'), popup_version, '') AS popup_version,
            if(event = 'convo_started', open_way, '') AS open_way,
            count() AS n
        FROM {{> shared/window_rest rows=(event IN {{kinds}})}}
        GROUP BY day, event, popup_version, open_way
    )
    GROUP BY day, event, popup_version, open_way
) AS counts
