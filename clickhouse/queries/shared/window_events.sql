-- The WHERE condition of every statistic's read of the window: this chatbot's rows in
-- W = [{from}, {to}] of the kind `rows` selects, retried beacons removed.
-- Retry rule: an event counts at its EARLIEST received_at within [{dedup_lookback_from}, {to}],
-- where {dedup_lookback_from} = {from} - RETRY_LOOKBACK (1 day,
-- services/dashboard/src/stats/retry-lookback.ts). A copy in W of an event received in
-- [{dedup_lookback_from}, {from}) is a retried beacon and does not count. Inside W a repeated event_id cannot change a set of
-- tokens, and the counts use uniqExact(event_id), so only this copy needs removing. An original
-- older than the lookback is not looked for (a browser retries a beacon within minutes or
-- hours), which bounds this read to one day of the chatbot's rows instead of its whole history.
-- It compares toUInt128(event_id), not event_id: event_id is in the primary key, and a bare
-- `event_id IN (subquery)` makes ClickHouse build the set first and use it for primary-key
-- analysis, which measured several times slower than the plain hash-set probe (same values).
-- Reading: chatbot_id + received_at is the table's primary-key prefix, so both scans read only
-- the chatbot's granules for their time range; `event` is LowCardinality and cheap to filter.
-- Bot rows (is_bot, classified at ingest) are left out of both reads: no statistic sees them.
-- Use: `WHERE {{> shared/window_events rows=(event IN ('visitor', 'bot_open'))}}`; the same
-- `rows` filters both reads, so the lookback looks only at the kinds of event the window counts.
chatbot_id = {chatbot_id:String}
  AND received_at >= {from:DateTime64(3, 'UTC')}
  AND received_at <= {to:DateTime64(3, 'UTC')}
  AND {{rows}}
  AND NOT is_bot
  AND toUInt128(event_id) NOT IN
  (
      SELECT toUInt128(event_id)
      FROM events
      WHERE chatbot_id = {chatbot_id:String}
        AND received_at >= {dedup_lookback_from:DateTime64(3, 'UTC')}
        AND received_at < {from:DateTime64(3, 'UTC')}
        AND {{rows}}
        AND NOT is_bot
  )
