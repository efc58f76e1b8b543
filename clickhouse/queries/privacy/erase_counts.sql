-- Takes one token's rows out of event_hour_counts before they are deleted: the view's own
-- SELECT over the token's rows, each count inserted as its negative modulo 2^64. The table
-- sums UInt64 (SummingMergeTree, and every reader sums), so the stored sum loses exactly those
-- rows, with no window in which a concurrent insert could be counted twice (a DELETE and a
-- recount would have one). The rows as stored, not FINAL: the counts were added per inserted row. Inserted with the erasure's deduplication token: a retried job
-- does not subtract twice.
INSERT INTO event_hour_counts (chatbot_id, hour, event, popup_version, open_way, events)
SELECT chatbot_id, hour, event, popup_version, open_way, toUInt64(0) - events
FROM
(
    WITH events AS (SELECT * FROM events WHERE chatbot_id = {chatbot_id:String} AND token = {token:String})
    {{> views/event_hour_counts_mv}}
)
