-- Engagement funnel of one chatbot over the window W = [{from}, {to}] (see the statistics definitions in services/dashboard/README.md, "engagement").
--   V = distinct tokens with a `visitor` event;
--   approached / opened / chatted = tokens of V that also have a popup_displayed / bot_open /
--   convo_started event in W. Ratios (count / |V| × 100, 2 decimals, 0 when |V| = 0) are
--   computed by the caller.
-- Each event counts once, at its earliest received_at; retried beacons and bots are left out
-- (shared/window_events.sql).
WITH
    per_token AS
    (
        -- One row per token with an engagement event in W: which of the four kinds it has.
        SELECT
            token,
            max(event = 'visitor') AS is_visitor,
            max(event = 'popup_displayed') AS approached,
            max(event = 'bot_open') AS opened,
            max(event = 'convo_started') AS chatted
        FROM events
        WHERE {{> shared/window_events rows=(event IN ('visitor', 'popup_displayed', 'bot_open', 'convo_started'))}}
        GROUP BY token
    )
SELECT
    countIf(is_visitor) AS total_users,
    countIf(is_visitor AND approached) AS total_users_approached,
    countIf(is_visitor AND opened) AS total_users_opened,
    countIf(is_visitor AND chatted) AS total_users_chatted
FROM per_token
