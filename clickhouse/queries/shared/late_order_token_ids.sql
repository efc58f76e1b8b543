-- The ids of the tokens of the chatbot's orders stored without one (token_id 0: the writer did not
-- know it yet; migration 0200), looked up in token_ids now, min as every writer takes it
-- (clickhouse/README.md, "Token ids"): a scalar subquery, one tuple (tokens, ids) of two arrays in
-- the same order. Few, so the index finds them. A scalar: ClickHouse computes a query's identical
-- scalar subqueries once, so window_orders.sql and window_orders_after_chat.sql share one lookup
-- where a joined subquery would run once per use.
-- Use: `WITH {{> shared/late_order_token_ids}} AS late_ids … transform(token, late_ids.1, late_ids.2, toUInt64(0))`.
(
    SELECT (groupArray(token), groupArray(token_id))
    FROM
    (
        SELECT token, min(token_id) AS token_id
        FROM token_ids
        WHERE chatbot_id = {chatbot_id:String}
          AND token IN (SELECT token FROM orders WHERE chatbot_id = {chatbot_id:String} AND token != '' AND token_id = 0)
        GROUP BY token
    )
)
