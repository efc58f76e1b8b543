-- The aggregate rows of one chatbot's day ([{from}, {to}): a UTC day) that a repair deletes
-- before each view's SELECT is run again over the day's rows (verify.ts, repairDays): every table
-- whose rows a second insert would add again (views.ts, CLEARED_TABLES). Run only where nothing
-- inserts into that chatbot's day meanwhile (verify.ts checks that no row of it was stored in
-- the last minutes): an insert between the DELETE and the INSERT would be counted twice.
DELETE FROM event_hour_counts WHERE chatbot_id = {chatbot_id:String} AND hour >= {from:DateTime64(3, 'UTC')} AND hour < {to:DateTime64(3, 'UTC')};
DELETE FROM token_hour_sets WHERE chatbot_id = {chatbot_id:String} AND hour >= {from:DateTime64(3, 'UTC')} AND hour < {to:DateTime64(3, 'UTC')};
DELETE FROM token_day_sets WHERE chatbot_id = {chatbot_id:String} AND day = toDate({from:DateTime64(3, 'UTC')});
DELETE FROM event_copies WHERE chatbot_id = {chatbot_id:String} AND received_at >= {from:DateTime64(3, 'UTC')} AND received_at < {to:DateTime64(3, 'UTC')};
DELETE FROM purchases WHERE chatbot_id = {chatbot_id:String} AND received_at >= {from:DateTime64(3, 'UTC')} AND received_at < {to:DateTime64(3, 'UTC')};
DELETE FROM conversation_starts WHERE chatbot_id = {chatbot_id:String} AND received_at >= {from:DateTime64(3, 'UTC')} AND received_at < {to:DateTime64(3, 'UTC')};
DELETE FROM chat_clicks WHERE chatbot_id = {chatbot_id:String} AND received_at >= {from:DateTime64(3, 'UTC')} AND received_at < {to:DateTime64(3, 'UTC')};
