-- The stored id of each given (chatbot, token) that has one (packages/clickhouse/src/token-ids.ts):
-- the pairs travel as two arrays of equal length. min: should a token have two ids (see
-- clickhouse/README.md, "Token ids"), every writer takes the smaller one.
SELECT chatbot_id, token, toString(min(token_id)) AS token_id
FROM token_ids
WHERE (chatbot_id, token) IN
(
    SELECT chatbot, token
    FROM (SELECT {chatbots:Array(String)} AS chatbots, {tokens:Array(String)} AS tokens)
    ARRAY JOIN chatbots AS chatbot, tokens AS token
)
GROUP BY chatbot_id, token
