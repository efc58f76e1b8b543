-- Popup metrics rows of one chatbot over W = [{from}, {to}] (CONTRACT §5 "popup-metrics").
-- One row (`version`, the two counts) per popup_version seen on popup_displayed or popup_opened events in W; a missing or
-- empty version (stored as '') is grouped as 'unknown'. Sorted by version in byte order
-- (ClickHouse compares String bytes, which is what CONTRACT §5 asks for). open_rate =
-- opened / displayed × 100 is computed by the caller (0 when displayed = 0).
-- Deduplication: each event_id counts once (uniqExact), at its earliest received_at: an
-- event_id whose original arrived before W is a retry of an earlier event and is excluded.
-- toUInt128(event_id) in the NOT IN: see stats_engagement.sql.
SELECT
    if(popup_version = '', 'unknown', popup_version) AS version,
    uniqExactIf(event_id, event = 'popup_displayed') AS popup_displayed_count,
    uniqExactIf(event_id, event = 'popup_opened') AS popup_opened_count
FROM events
WHERE chatbot_id = {chatbot_id:String}
  AND received_at >= {from:DateTime64(3, 'UTC')}
  AND received_at <= {to:DateTime64(3, 'UTC')}
  AND event IN ('popup_displayed', 'popup_opened')
  AND toUInt128(event_id) NOT IN
  (
      SELECT toUInt128(event_id)
      FROM events
      WHERE chatbot_id = {chatbot_id:String}
        AND received_at < {from:DateTime64(3, 'UTC')}
        AND event IN ('popup_displayed', 'popup_opened')
  )
GROUP BY version
ORDER BY version ASC
