-- Every non-bot convo_started row: when each purchasing visitor first chatted in a window.
SELECT chatbot_id, received_at, token_id, prev_copy_at
FROM events
WHERE event = 'convo_started' AND NOT is_bot
