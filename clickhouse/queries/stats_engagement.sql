-- Engagement funnel of one chatbot over the window W = [{from}, {to}] (see the statistics definitions in services/dashboard/README.md, "engagement").
--   V = distinct tokens with a `visitor` event;
--   approached / opened / chatted = tokens of V that also have a popup_displayed / bot_open /
--   convo_started event in W. Ratios (count / |V| × 100, 2 decimals, 0 when |V| = 0) are
--   computed by the caller.
-- Deduplication (retry rule, services/dashboard/README.md): an event counts at its EARLIEST
-- received_at; retried beacons of events that arrived before W are removed by the shared
-- condition shared/window_events.sql, which explains the rule and what it reads.
-- Reading: every row of W. A chatbot with sealed hours (migration 0050) is read by
-- stats_engagement_sealed.sql instead, which answers the same from them.
SELECT
    countIf(bitAnd(kinds, 1) = 1) AS total_users,
    countIf(bitAnd(kinds, 3) = 3) AS total_users_approached,
    countIf(bitAnd(kinds, 5) = 5) AS total_users_opened,
    countIf(bitAnd(kinds, 9) = 9) AS total_users_chatted
FROM
(
    {{> shared/engagement_kinds rows=(true)}}
)
