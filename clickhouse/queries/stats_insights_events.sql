-- The event counts of the conversation-insights report (see the statistics definitions in services/dashboard/README.md): over W = [{from}, {to}],
-- total_click_throughs = click_through events, reactions = message_like / message_dislike
-- events of the chatbot. Each event_id counts once, at its earliest received_at.
-- Retry rule as in stats_engagement.sql: a copy in W of an event received in
-- [{dedup_lookback_from}, {from}) is a retried beacon and does not count.
-- toUInt128(event_id) in the NOT IN: see stats_engagement.sql.
SELECT
    uniqExactIf(event_id, event = 'click_through') AS total_click_throughs,
    uniqExactIf(event_id, event = 'message_like') AS likes,
    uniqExactIf(event_id, event = 'message_dislike') AS dislikes
FROM events
WHERE chatbot_id = {chatbot_id:String}
  AND received_at >= {from:DateTime64(3, 'UTC')}
  AND received_at <= {to:DateTime64(3, 'UTC')}
  AND event IN ('click_through', 'message_like', 'message_dislike')
  AND toUInt128(event_id) NOT IN
  (
      SELECT toUInt128(event_id)
      FROM events
      WHERE chatbot_id = {chatbot_id:String}
        AND received_at >= {dedup_lookback_from:DateTime64(3, 'UTC')}
        AND received_at < {from:DateTime64(3, 'UTC')}
        AND event IN ('click_through', 'message_like', 'message_dislike')
  )
