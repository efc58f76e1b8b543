-- The WHERE condition of every statistic's read of the window: this chatbot's rows in
-- W = [{from}, {to}] of the kind `rows` selects, each event once, retried beacons removed.
-- Retry rule: an event counts at its EARLIEST received_at within [{dedup_lookback_from}, {to}],
-- where {dedup_lookback_from} = {from} - RETRY_LOOKBACK (1 day,
-- services/dashboard/src/stats/retry-lookback.ts). Per row that reads: a row counts iff no
-- earlier copy of its event was received in [{dedup_lookback_from}, the row's own time), i.e.
-- iff its prev_copy_at (the latest earlier copy's time, 0 for none: migration 0040) is before
-- {dedup_lookback_from}. A copy in W of an event received in the look-back day is a retried
-- beacon; a later copy inside W repeats one already counted; an original older than the
-- look-back is not looked for (a browser retries a beacon within minutes or hours). The rows
-- left are one per event (events_input's view stores no two equal rows), so the statistics
-- count rows (count(), not uniqExact(event_id)).
-- Reading: chatbot_id + received_at is the table's primary-key prefix, so the scan reads only
-- the chatbot's granules for W; `event` is LowCardinality and cheap to filter.
-- Bot rows (is_bot, classified at ingest) are left out, and no bot row is anyone's earlier
-- copy: no statistic sees them.
-- Use: `WHERE {{> shared/window_events rows=(event IN ('visitor', 'bot_open'))}}`.
chatbot_id = {chatbot_id:String}
  AND received_at >= {from:DateTime64(3, 'UTC')}
  AND received_at <= {to:DateTime64(3, 'UTC')}
  AND {{rows}}
  AND NOT is_bot
  AND prev_copy_at < {dedup_lookback_from:DateTime64(3, 'UTC')}
  AND {{> shared/segment_tokens}}
