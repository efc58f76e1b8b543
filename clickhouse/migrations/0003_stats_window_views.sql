-- The counted events of one chatbot's window, defined once for every statistic
-- (clickhouse/queries/stats_*.sql) as parameterized views over the rollups of 0002.
-- Parameters: chatbot_id; the window [from, to] (both ends inclusive); its whole hours
-- [hour_lo, hour_hi) read from the hourly rollups (hour_lo >= hour_hi: none); and
-- dedup_lookback_from = from - the retry look-back (one day).
-- An event counts in the window at its first copy in [dedup_lookback_from, to], when that
-- copy is inside the window. For a copy with previous copy prev_at that means: prev_at IS
-- NULL (its first copy), or prev_at < dedup_lookback_from (only a late copy, received more
-- than a day after the one before it, can qualify: stats_late_copies).

-- Counted rows that the hourly rollups do not hold: first copies in the ragged ends of the
-- window, and late copies anywhere in it.
CREATE VIEW IF NOT EXISTS stats_window_rows AS
SELECT event, token_id, ab_group, key, received_at
FROM stats_events
WHERE chatbot_id = {chatbot_id:String}
  AND received_at >= {from:DateTime64(3, 'UTC')} AND received_at <= {to:DateTime64(3, 'UTC')}
  AND (received_at < {hour_lo:DateTime64(3, 'UTC')} OR received_at >= {hour_hi:DateTime64(3, 'UTC')})
  AND prev_at IS NULL
UNION ALL
SELECT event, token_id, ab_group, key, received_at
FROM stats_late_copies
WHERE chatbot_id = {chatbot_id:String}
  AND received_at >= {from:DateTime64(3, 'UTC')} AND received_at <= {to:DateTime64(3, 'UTC')}
  AND prev_at < {dedup_lookback_from:DateTime64(3, 'UTC')};

-- Token bitmaps of the window per UTC day of the counted event: 'visitor', 'popup_displayed',
-- 'bot_open', 'convo_started' (tokens with such a counted event) and 'ab:control' / 'ab:test'
-- (tokens with a counted event of that A/B group). A set without tokens has no row; the
-- window's set is the union (groupBitmapMergeState) of its days.
CREATE VIEW IF NOT EXISTS stats_window_token_sets AS
SELECT day, set_name, groupBitmapMergeState(tokens) AS tokens
FROM
(
    SELECT toDate(hour) AS day, set_name, tokens
    FROM stats_hourly_tokens
    WHERE chatbot_id = {chatbot_id:String}
      AND hour >= {hour_lo:DateTime64(3, 'UTC')} AND hour < {hour_hi:DateTime64(3, 'UTC')}
    UNION ALL
    SELECT toDate(received_at) AS day, set_name, groupBitmapState(token_id) AS tokens
    FROM stats_window_rows(chatbot_id = {chatbot_id:String}, from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')},
                           hour_lo = {hour_lo:DateTime64(3, 'UTC')}, hour_hi = {hour_hi:DateTime64(3, 'UTC')},
                           dedup_lookback_from = {dedup_lookback_from:DateTime64(3, 'UTC')})
    ARRAY JOIN arrayConcat(if(event IN ('visitor', 'popup_displayed', 'bot_open', 'convo_started'), [toString(event)], []),
                           if(ab_group IS NULL, [], [concat('ab:', assumeNotNull(ab_group))])) AS set_name
    GROUP BY day, set_name
)
GROUP BY day, set_name;

-- Counted events of the window per (UTC day, event, key): popup_displayed / popup_opened per
-- popup version ('unknown' for none), convo_started per open_way, click_through,
-- message_like, message_dislike (key '').
CREATE VIEW IF NOT EXISTS stats_window_counts AS
SELECT day, event, key, sum(n) AS n
FROM
(
    SELECT toDate(hour) AS day, toString(event) AS event, key, n
    FROM stats_hourly_counts
    WHERE chatbot_id = {chatbot_id:String}
      AND hour >= {hour_lo:DateTime64(3, 'UTC')} AND hour < {hour_hi:DateTime64(3, 'UTC')}
      AND event != 'purchase'
    UNION ALL
    SELECT toDate(received_at) AS day, toString(event) AS event, key, count() AS n
    FROM stats_window_rows(chatbot_id = {chatbot_id:String}, from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')},
                           hour_lo = {hour_lo:DateTime64(3, 'UTC')}, hour_hi = {hour_hi:DateTime64(3, 'UTC')},
                           dedup_lookback_from = {dedup_lookback_from:DateTime64(3, 'UTC')})
    WHERE event IN ('popup_displayed', 'popup_opened', 'convo_started', 'click_through', 'message_like', 'message_dislike')
    GROUP BY day, event, key
)
GROUP BY day, event, key;

-- Counted purchases of the window (retry rule and order rule applied; every token, the
-- caller keeps those of visitors). after_chat: the token has a counted convo_started in the
-- window strictly before the purchase (its last first-copy chat before it is in the window,
-- or a late copy of a chat counts in the window before it).
CREATE VIEW IF NOT EXISTS stats_window_purchases AS
SELECT p.received_at AS received_at, p.token_id AS token_id, p.revenue AS revenue,
       ifNull(p.last_chat_at >= {from:DateTime64(3, 'UTC')}, false) OR ifNull(l.first_chat < p.received_at, false) AS after_chat
FROM stats_purchases AS p
LEFT JOIN
(
    SELECT token_id, toNullable(min(received_at)) AS first_chat
    FROM stats_late_copies
    WHERE chatbot_id = {chatbot_id:String} AND event = 'convo_started'
      AND received_at >= {from:DateTime64(3, 'UTC')} AND received_at <= {to:DateTime64(3, 'UTC')}
      AND prev_at < {dedup_lookback_from:DateTime64(3, 'UTC')}
    GROUP BY token_id
) AS l ON l.token_id = p.token_id
WHERE p.chatbot_id = {chatbot_id:String}
  AND p.received_at >= {from:DateTime64(3, 'UTC')} AND p.received_at <= {to:DateTime64(3, 'UTC')}
  AND (p.prev_at IS NULL OR p.prev_at < {dedup_lookback_from:DateTime64(3, 'UTC')});
