-- Seals one chatbot's hours {hours} (Unix seconds, within [{lo}, {hi})): per hour, its rows and
-- checksum as the projection hour_rows computes them, and the token sets and counts of the rows that count
-- in every window containing the whole hour (migrations 0050, 0060), and per purchase whether it is its
-- order's first purchase row ever and its token's conversations before it, as far as this seal sees
-- (0070), and the largest id among its tokens (0080). One SELECT, so the counts, the sets and the lookups come from the same parts. An hour with a row that has an older earlier copy (counted or
-- not depending on the window) or a token without an id (it arrived after assign_token_ids
-- ran) is marked unsealable.
INSERT INTO token_hour_sets (chatbot_id, hour, lookback_s, rows, checksum, unsealable, max_id, visitors, approached, opened, chatted,
    in_control, in_test, first_chats, buyers, purchases, purchases_first, purchases_chat, popup_displayed, popup_opened, conversations, event_counts)
WITH
    NOT e.is_bot AND e.prev_copy_at = 0 AS counted,
    -- One array for the purchases and what is known of them, so the columns stay aligned.
    groupArrayIf((t.id, e.received_at, e.event_id, e.order_num, ifNull(e.total_value_base, 0),
        e.order_num = '' OR o.first = (e.received_at, e.event_id),
        arrayMax(arrayMap(c -> if(c < e.received_at, c, toDateTime64(0, 3, 'UTC')), arrayPushBack(ch.chats, toDateTime64(0, 3, 'UTC'))))),
        counted AND e.event = 'purchase') AS bought
SELECT
    {chatbot_id:String},
    toStartOfHour(e.received_at) AS hour,
    {lookback_s:UInt32},
    count(),
    sum(cityHash64(e.event_id, e.received_at)),
    countIf(NOT e.is_bot AND ((e.prev_copy_at > 0 AND e.prev_copy_at < hour - toIntervalSecond({lookback_s:UInt32})) OR t.id = 0)),
    max(t.id),
    groupBitmapStateIf(t.id, counted AND e.event = 'visitor'),
    groupBitmapStateIf(t.id, counted AND e.event = 'popup_displayed'),
    groupBitmapStateIf(t.id, counted AND e.event = 'bot_open'),
    groupBitmapStateIf(t.id, counted AND e.event = 'convo_started'),
    groupBitmapStateIf(t.id, counted AND ifNull(e.ab_group = 'control', false)),
    groupBitmapStateIf(t.id, counted AND ifNull(e.ab_group = 'test', false)),
    minMapIf(map(t.id, e.received_at), counted AND e.event = 'convo_started'),
    groupBitmapStateIf(t.id, counted AND e.event = 'purchase'),
    arrayMap(p -> (p.1, p.2, p.3, p.4, p.5), bought),
    arrayMap(p -> p.6, bought),
    arrayMap(p -> p.7, bought),
    sumMapIf(map(if(e.popup_version = '', 'unknown', e.popup_version), toUInt64(1)), counted AND e.event = 'popup_displayed'),
    sumMapIf(map(if(e.popup_version = '', 'unknown', e.popup_version), toUInt64(1)), counted AND e.event = 'popup_opened'),
    sumMapIf(map(e.open_way, toUInt64(1)), counted AND e.event = 'convo_started'),
    sumMapIf(map(toString(e.event), toUInt64(1)), counted)
FROM events AS e
LEFT JOIN
(
    SELECT token, id
    FROM token_ids
    WHERE chatbot_id = {chatbot_id:String}
) AS t ON t.token = e.token
LEFT JOIN
(
    -- The first purchase row of each order purchased in these hours.
    {{> shared/order_firsts_of orders=(SELECT order_num FROM events WHERE chatbot_id = {chatbot_id:String} AND received_at >= {lo:DateTime64(3, 'UTC')} AND received_at < {hi:DateTime64(3, 'UTC')} AND event = 'purchase' AND order_num != '')}}
) AS o ON o.order_num = e.order_num
LEFT JOIN
(
    -- Every conversation without an earlier copy ever started (before these hours end) by each
    -- token purchasing in them.
    SELECT token, groupArray(received_at) AS chats
    FROM events
    WHERE chatbot_id = {chatbot_id:String} AND event = 'convo_started' AND NOT is_bot AND prev_copy_at = toDateTime64(0, 3, 'UTC')
      AND received_at < {hi:DateTime64(3, 'UTC')}
      AND token IN
      (
          SELECT token
          FROM events
          WHERE chatbot_id = {chatbot_id:String}
            AND received_at >= {lo:DateTime64(3, 'UTC')} AND received_at < {hi:DateTime64(3, 'UTC')}
            AND event = 'purchase'
      )
    GROUP BY token
) AS ch ON ch.token = e.token
WHERE e.chatbot_id = {chatbot_id:String}
  AND e.received_at >= {lo:DateTime64(3, 'UTC')} AND e.received_at < {hi:DateTime64(3, 'UTC')}
  AND has({hours:Array(UInt32)}, toUInt32(toStartOfHour(e.received_at)))
GROUP BY hour
SETTINGS join_use_nulls = 0
