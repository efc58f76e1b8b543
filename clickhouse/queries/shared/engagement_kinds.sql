-- One row per token with an engagement event in W: (token, kinds), one bit per kind of event it
-- has (visitor 1, popup_displayed 2, bot_open 4, convo_started 8; one aggregate state instead
-- of four), over the rows of shared/window_events.sql that `rows` also selects.
-- Use as a subquery: `FROM ({{> shared/engagement_kinds rows=(true)}})`.
SELECT
    token,
    groupBitOr(multiIf(event = 'visitor', 1, event = 'popup_displayed', 2, event = 'bot_open', 4, event = 'convo_started', 8, 0)) AS kinds
FROM events
WHERE {{> shared/window_events rows=(event IN ('visitor', 'popup_displayed', 'bot_open', 'convo_started'))}}
  AND {{rows}}
GROUP BY token
