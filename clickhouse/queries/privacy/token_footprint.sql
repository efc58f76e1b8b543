-- What one visitor token of a chatbot left in the store (an erasure's first read,
-- packages/clickhouse/src/erase-token.ts): its token ids (from its rows and from token_ids), the
-- UTC hours and days of its counted rows (where the aggregates hold its id) and the order
-- numbers of its purchases (their first purchase is computed again once its rows are gone).
SELECT
    arrayDistinct(arrayConcat(
        (SELECT groupUniqArray(token_id) FROM events WHERE chatbot_id = {chatbot_id:String} AND token = {token:String} AND token_id != 0),
        (SELECT groupUniqArray(token_id) FROM token_ids WHERE chatbot_id = {chatbot_id:String} AND token = {token:String}))) AS ids,
    (SELECT groupUniqArray(toStartOfHour(received_at)) FROM events WHERE chatbot_id = {chatbot_id:String} AND token = {token:String} AND NOT is_bot) AS hours,
    (SELECT groupUniqArray(toDate(received_at)) FROM events WHERE chatbot_id = {chatbot_id:String} AND token = {token:String} AND NOT is_bot) AS days,
    (SELECT groupUniqArray(order_num) FROM events WHERE chatbot_id = {chatbot_id:String} AND token = {token:String} AND event = 'purchase' AND order_num != '') AS orders,
    (SELECT count() FROM events WHERE chatbot_id = {chatbot_id:String} AND token = {token:String}) AS events
