-- (chatbot_id, received_at, event_id) -> prev_copy_at, for joinGet in events_prev_copy_update.sql.
CREATE TABLE events_prev_copy_fill
(
    chatbot_id   String,
    received_at  DateTime64(3, 'UTC'),
    event_id     UUID,
    prev_copy_at DateTime64(3, 'UTC')
)
ENGINE = Join(ANY, LEFT, chatbot_id, received_at, event_id)
