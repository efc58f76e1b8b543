-- The event counts of the conversation-insights report (see the statistics definitions in services/dashboard/README.md): over W = [{from}, {to}],
-- total_click_throughs = click_through events, reactions = message_like / message_dislike
-- events of the chatbot. Each event_id counts once, at its earliest received_at.
-- Retried beacons of events that arrived before W do not count (shared/window_event_counts.sql).
SELECT
    sumIf(events, event = 'click_through') AS total_click_throughs,
    sumIf(events, event = 'message_like') AS likes,
    sumIf(events, event = 'message_dislike') AS dislikes
FROM {{> shared/window_event_counts kinds=('click_through', 'message_like', 'message_dislike')}}
