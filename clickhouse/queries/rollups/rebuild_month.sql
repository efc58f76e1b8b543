-- Rebuild of every table `events` feeds through a materialized view (migration 0130) for
-- one month ({partition}: a toYYYYMM(received_at) value, as events' PARTITION BY): each view's
-- SELECT over that month, inserted again. rollups.ts first drops the month of the tables whose
-- rows would otherwise be added twice (counts, narrow tables); the others keep a minimum per
-- key (orders), so inserting a row twice changes nothing and a row a view missed is added.
-- Token ids are not rebuilt: a row keeps its id, and token_ids is written by the writers
-- before their rows (migration 0160); `npm run cli -- verify` checks the two agree.
-- token_day_sets has no statement: its view (migration 0140) fills it from the token_hour_sets
-- insert below.

INSERT INTO order_first_purchases
SELECT chatbot_id, order_num,
    min(CAST((received_at, event_id, token_id, ifNull(total_value_base, 0)), 'Tuple(at DateTime64(3, \'UTC\'), event_id UUID, token_id UInt64, revenue Float64)')) AS first
FROM events
WHERE event = 'purchase' AND order_num != '' AND NOT is_bot AND toYYYYMM(received_at) = {partition:UInt32}
GROUP BY chatbot_id, order_num;

INSERT INTO token_hour_sets
SELECT chatbot_id, toStartOfHour(received_at) AS hour, kind, groupBitmapState(token_id) AS tokens
FROM events
ARRAY JOIN [toString(event), multiIf(ab_group = 'control', 'ab:control', ab_group = 'test', 'ab:test', '')] AS kind
WHERE NOT is_bot AND prev_copy_at = 0 AND kind != '' AND toYYYYMM(received_at) = {partition:UInt32}
GROUP BY chatbot_id, hour, kind;

INSERT INTO event_hour_counts
SELECT
    chatbot_id,
    toStartOfHour(received_at) AS hour,
    event,
    if(event IN ('popup_displayed', 'popup_opened'), popup_version, '') AS popup_version,
    if(event = 'convo_started', open_way, '') AS open_way,
    count() AS events
FROM events
WHERE NOT is_bot AND prev_copy_at = 0 AND toYYYYMM(received_at) = {partition:UInt32}
GROUP BY chatbot_id, hour, event, popup_version, open_way;

INSERT INTO event_copies
SELECT chatbot_id, received_at, event, token_id, ab_group, popup_version, open_way, prev_copy_at
FROM events
WHERE NOT is_bot AND prev_copy_at != 0 AND toYYYYMM(received_at) = {partition:UInt32};

INSERT INTO purchases
SELECT chatbot_id, received_at, event_id, token_id, order_num, ifNull(total_value_base, 0) AS revenue, prev_copy_at
FROM events
WHERE event = 'purchase' AND NOT is_bot AND toYYYYMM(received_at) = {partition:UInt32};

INSERT INTO conversation_starts
SELECT chatbot_id, received_at, token_id, prev_copy_at
FROM events
WHERE event = 'convo_started' AND NOT is_bot AND toYYYYMM(received_at) = {partition:UInt32};
