-- Engagement funnel of one chatbot over the window W = [{from}, {to}] (see the statistics definitions in services/dashboard/README.md, "engagement").
--   V = distinct tokens with a `visitor` event;
--   approached / opened / chatted = tokens of V that also have a popup_displayed / bot_open /
--   convo_started event in W. Ratios (count / |V| × 100, 2 decimals, 0 when |V| = 0) are
--   computed by the caller.
-- Deduplication (retry rule, services/dashboard/README.md): an event counts at its EARLIEST received_at within
-- [{dedup_lookback_from}, {to}], where {dedup_lookback_from} = {from} - RETRY_LOOKBACK (1 day,
-- services/dashboard/src/stats/retry-lookback.ts). Inside W a repeated event_id cannot change a
-- set of tokens, so only a copy whose original arrived in the lookback before W needs removing:
-- the NOT IN below. An original older than the lookback is not looked for (a browser retries a
-- beacon within minutes or hours), which bounds that read to one day of this chatbot's rows
-- instead of its whole history.
-- It compares toUInt128(event_id), not event_id: event_id is in the primary key, and a bare
-- `event_id IN (subquery)` makes ClickHouse build the set first and use it for primary-key
-- analysis, which measured several times slower than the plain hash-set probe (same values).
-- Reading: chatbot_id + received_at is the table's primary-key prefix, so both scans read only
-- this chatbot's granules for the time range; `event` is LowCardinality and cheap to filter.
SELECT
    countIf(visited) AS total_users,
    countIf(visited AND approached) AS total_users_approached,
    countIf(visited AND opened) AS total_users_opened,
    countIf(visited AND chatted) AS total_users_chatted
FROM
(
    SELECT
        token,
        max(event = 'visitor') AS visited,
        max(event = 'popup_displayed') AS approached,
        max(event = 'bot_open') AS opened,
        max(event = 'convo_started') AS chatted
    FROM events
    WHERE chatbot_id = {chatbot_id:String}
      AND received_at >= {from:DateTime64(3, 'UTC')}
      AND received_at <= {to:DateTime64(3, 'UTC')}
      AND event IN ('visitor', 'popup_displayed', 'bot_open', 'convo_started')
      AND toUInt128(event_id) NOT IN
      (
          SELECT toUInt128(event_id)
          FROM events
          WHERE chatbot_id = {chatbot_id:String}
            AND received_at >= {dedup_lookback_from:DateTime64(3, 'UTC')}
            AND received_at < {from:DateTime64(3, 'UTC')}
            AND event IN ('visitor', 'popup_displayed', 'bot_open', 'convo_started')
      )
    GROUP BY token
)
