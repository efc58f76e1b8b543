-- Every row's prev_copy_at again (0 for an event's first copy, joinGet's default, and for bot
-- rows), for the rows stored before {before}: a row stored since got its value from the view
-- at insert time, and its copies may not be in the lookup table (filled a moment ago).
ALTER TABLE events
-- A mutation runs without the session's database: the Join table's name is qualified.
UPDATE prev_copy_at = if(is_bot, toDateTime64(0, 3, 'UTC'),
    joinGet(concat({database:String}, '.events_prev_copy_fill'), 'prev_copy_at', chatbot_id, received_at, event_id))
WHERE inserted_at < {before:DateTime64(3, 'UTC')}
SETTINGS mutations_sync = 2
