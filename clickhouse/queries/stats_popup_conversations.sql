-- The `conversations` block of popup-metrics (CONTRACT §5): over W = [{from}, {to}],
-- total = convo_started events, split by open_way ('popup' / 'chat_button'; other or empty
-- open_way counts in total only). popup_ratio = from_popup / total × 100 is computed by the
-- caller (0 when total = 0).
-- Deduplication as everywhere: each event_id once, at its earliest received_at.
-- toUInt128(event_id) in the NOT IN: see stats_engagement.sql.
SELECT
    uniqExact(event_id) AS total,
    uniqExactIf(event_id, open_way = 'popup') AS from_popup,
    uniqExactIf(event_id, open_way = 'chat_button') AS from_chat_button
FROM events
WHERE chatbot_id = {chatbot_id:String}
  AND received_at >= {from:DateTime64(3, 'UTC')}
  AND received_at <= {to:DateTime64(3, 'UTC')}
  AND event = 'convo_started'
  AND toUInt128(event_id) NOT IN
  (
      SELECT toUInt128(event_id)
      FROM events
      WHERE chatbot_id = {chatbot_id:String}
        AND received_at < {from:DateTime64(3, 'UTC')}
        AND event = 'convo_started'
  )
