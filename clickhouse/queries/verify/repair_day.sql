-- The aggregates of one chatbot's day ([{from}, {to}): a UTC day) computed again from its rows
-- in `events` (each stored row once: verify/scope_events.sql), after the day's aggregate rows are
-- deleted. Run only where nothing inserts into that chatbot's day meanwhile (verify.ts checks
-- that no row of it was stored in the last minutes): an insert between the DELETE and the
-- INSERT would be counted twice. token_day_sets is filled again by its view, from the hours.
DELETE FROM event_hour_counts WHERE chatbot_id = {chatbot_id:String} AND hour >= {from:DateTime64(3, 'UTC')} AND hour < {to:DateTime64(3, 'UTC')};
DELETE FROM token_hour_sets WHERE chatbot_id = {chatbot_id:String} AND hour >= {from:DateTime64(3, 'UTC')} AND hour < {to:DateTime64(3, 'UTC')};
DELETE FROM token_day_sets WHERE chatbot_id = {chatbot_id:String} AND day = toDate({from:DateTime64(3, 'UTC')});
DELETE FROM event_copies WHERE chatbot_id = {chatbot_id:String} AND received_at >= {from:DateTime64(3, 'UTC')} AND received_at < {to:DateTime64(3, 'UTC')};
DELETE FROM purchases WHERE chatbot_id = {chatbot_id:String} AND received_at >= {from:DateTime64(3, 'UTC')} AND received_at < {to:DateTime64(3, 'UTC')};
DELETE FROM conversation_starts WHERE chatbot_id = {chatbot_id:String} AND received_at >= {from:DateTime64(3, 'UTC')} AND received_at < {to:DateTime64(3, 'UTC')};

INSERT INTO token_hour_sets
SELECT chatbot_id, toStartOfHour(received_at) AS hour, kind, groupBitmapState(token_id) AS tokens
FROM ({{> verify/scope_events}})
ARRAY JOIN [toString(event), multiIf(ab_group = 'control', 'ab:control', ab_group = 'test', 'ab:test', '')] AS kind
WHERE NOT is_bot AND prev_copy_at = 0 AND kind != ''
GROUP BY chatbot_id, hour, kind;

INSERT INTO event_hour_counts
SELECT chatbot_id, toStartOfHour(received_at) AS hour, event,
    if(event IN ('popup_displayed', 'popup_opened'), popup_version, '') AS popup_version,
    if(event = 'convo_started', open_way, '') AS open_way,
    count() AS events
FROM ({{> verify/scope_events}})
WHERE NOT is_bot AND prev_copy_at = 0
GROUP BY chatbot_id, hour, event, popup_version, open_way;

INSERT INTO event_copies
SELECT chatbot_id, received_at, event, token_id, ab_group, popup_version, open_way, prev_copy_at
FROM ({{> verify/scope_events}})
WHERE NOT is_bot AND prev_copy_at != 0;

INSERT INTO purchases
SELECT chatbot_id, received_at, event_id, token_id, order_num, ifNull(total_value_base, 0) AS revenue, prev_copy_at
FROM ({{> verify/scope_events}})
WHERE event = 'purchase' AND NOT is_bot;

INSERT INTO conversation_starts
SELECT chatbot_id, received_at, token_id, prev_copy_at
FROM ({{> verify/scope_events}})
WHERE event = 'convo_started' AND NOT is_bot;

INSERT INTO order_first_purchases
SELECT chatbot_id, order_num,
    min(CAST((received_at, event_id, token_id, ifNull(total_value_base, 0)), 'Tuple(at DateTime64(3, \'UTC\'), event_id UUID, token_id UInt64, revenue Float64)')) AS first
FROM ({{> verify/scope_events}})
WHERE event = 'purchase' AND order_num != '' AND NOT is_bot
GROUP BY chatbot_id, order_num;
