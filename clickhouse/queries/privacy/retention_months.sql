-- The months (toYYYYMM, the partition key of every table below) in which a chatbot holds raw
-- rows received before its retention horizon ({cutoff}): the partitions retention_delete.sql
-- visits one at a time. Taken from every table it deletes from, not from `events` alone: a run
-- that failed after the `events` DELETE must still find the narrow tables' rows when retried.
SELECT arraySort(arrayDistinct(arrayConcat(
    (SELECT groupUniqArray(toYYYYMM(received_at)) FROM events WHERE chatbot_id = {chatbot_id:String} AND received_at < {cutoff:DateTime64(3, 'UTC')}),
    (SELECT groupUniqArray(toYYYYMM(received_at)) FROM event_copies WHERE chatbot_id = {chatbot_id:String} AND received_at < {cutoff:DateTime64(3, 'UTC')}),
    (SELECT groupUniqArray(toYYYYMM(received_at)) FROM purchases WHERE chatbot_id = {chatbot_id:String} AND received_at < {cutoff:DateTime64(3, 'UTC')}),
    (SELECT groupUniqArray(toYYYYMM(received_at)) FROM conversation_starts WHERE chatbot_id = {chatbot_id:String} AND received_at < {cutoff:DateTime64(3, 'UTC')}),
    (SELECT groupUniqArray(toYYYYMM(received_at)) FROM chat_clicks WHERE chatbot_id = {chatbot_id:String} AND received_at < {cutoff:DateTime64(3, 'UTC')}),
    (SELECT groupUniqArray(toYYYYMM(received_at)) FROM events_rejected WHERE chatbot_id = {chatbot_id:String} AND received_at < {cutoff:DateTime64(3, 'UTC')})
))) AS months
SETTINGS {{> shared/background_priority}}
