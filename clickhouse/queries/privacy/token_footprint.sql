-- What one visitor token of a chatbot left in the store (an erasure's first read,
-- packages/clickhouse/src/erase-token.ts), in one pass over the chatbot's rows: its token ids
-- (from its rows and from token_ids), the UTC hours and days of its counted rows (where the
-- aggregates hold its id) and the order numbers of its purchases (their first purchase is
-- computed again once its rows are gone), and the months its rows are in, bots' included (the
-- partitions an erasure's mutations visit one at a time).
SELECT
    arrayDistinct(arrayConcat(ids, (SELECT groupUniqArray(token_id) FROM token_ids WHERE chatbot_id = {chatbot_id:String} AND token = {token:String}))) AS ids,
    hours, days, orders, months, events
FROM
(
    SELECT
        groupUniqArrayIf(token_id, token_id != 0) AS ids,
        groupUniqArrayIf(toStartOfHour(received_at), NOT is_bot) AS hours,
        groupUniqArrayIf(toDate(received_at), NOT is_bot) AS days,
        groupUniqArrayIf(order_num, event = 'purchase' AND order_num != '') AS orders,
        groupUniqArray(toYYYYMM(received_at)) AS months,
        count() AS events
    FROM events
    WHERE chatbot_id = {chatbot_id:String} AND token = {token:String}
)
SETTINGS {{> shared/background_priority}}
