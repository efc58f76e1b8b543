-- Every stored non-bot row that has an earlier copy, with that copy's time (the latest one
-- before it): (chatbot_id, received_at, event_id, prev_copy_at), from `events` (one grouping of
-- its visitor rows by event; past 1 GB of groups it spills to disk). Use after an INSERT INTO.
SELECT chatbot_id, pair.1 AS received_at, event_id, pair.2 AS prev_copy_at
FROM
(
    SELECT event_id, chatbot_id, arraySort(groupUniqArray(received_at)) AS times
    FROM events
    WHERE NOT is_bot
    GROUP BY event_id, chatbot_id
    HAVING length(times) > 1
)
ARRAY JOIN arrayZip(arrayPopFront(times), arrayPopBack(times)) AS pair
SETTINGS max_bytes_before_external_group_by = 1000000000
