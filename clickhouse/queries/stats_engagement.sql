-- Engagement funnel of one chatbot over the window W = [{from}, {to}] (see the statistics definitions in services/dashboard/README.md, "engagement").
--   V = distinct tokens with a `visitor` event;
--   approached / opened / chatted = tokens of V that also have a popup_displayed / bot_open /
--   convo_started event in W. Ratios (count / |V| × 100, 2 decimals, 0 when |V| = 0) are
--   computed by the caller.
-- Deduplication (retry rule, services/dashboard/README.md): an event counts at its EARLIEST
-- received_at; retried beacons of events that arrived before W are removed by the shared
-- condition shared/window_events.sql, which explains the rule and what it reads.
SELECT
    countIf(visited) AS total_users,
    countIf(visited AND approached) AS total_users_approached,
    countIf(visited AND opened) AS total_users_opened,
    countIf(visited AND chatted) AS total_users_chatted
FROM
(
    SELECT
        token,
        max(event = 'visitor') AS visited,
        max(event = 'popup_displayed') AS approached,
        max(event = 'bot_open') AS opened,
        max(event = 'convo_started') AS chatted
    FROM events
    WHERE {{> shared/window_events rows=(event IN ('visitor', 'popup_displayed', 'bot_open', 'convo_started'))}}
    GROUP BY token
)
