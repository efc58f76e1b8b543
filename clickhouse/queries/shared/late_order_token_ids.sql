-- The ids of the tokens of the chatbot's orders stored without one (token_id 0: the writer did not
-- know it yet; migration 0200), looked up in token_ids now: a subquery of rows (token, token_id),
-- min as every writer takes it (clickhouse/README.md, "Token ids"). Few, so the index finds them.
-- Use: `LEFT JOIN {{> shared/late_order_token_ids}} AS ids ON ids.token = …`.
(
    SELECT token, min(token_id) AS token_id
    FROM token_ids
    WHERE chatbot_id = {chatbot_id:String}
      AND token IN (SELECT token FROM orders WHERE chatbot_id = {chatbot_id:String} AND token != '' AND token_id = 0)
    GROUP BY token
)
