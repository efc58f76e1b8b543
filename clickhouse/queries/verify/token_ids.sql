-- The token ids of `events` against the rule (clickhouse/README.md, "Token ids") and against
-- `token_ids`: per chatbot, rows without an id, ids that name several tokens, tokens with several
-- ids, and tokens whose rows carry another id than token_ids keeps (or none). Over the scope's rows.
WITH scoped AS (SELECT chatbot_id, token, token_id FROM ({{> verify/scope_events}}) WHERE NOT is_bot)
SELECT check, chatbot_id, toDate(0) AS day, key, '' AS stored, '' AS expected
FROM
(
    SELECT 'rows_without_token_id' AS check, chatbot_id, token AS key FROM scoped WHERE token_id = 0
    UNION ALL
    SELECT 'id_names_several_tokens' AS check, chatbot_id, toString(token_id) AS key
    FROM scoped WHERE token_id != 0 GROUP BY chatbot_id, token_id HAVING uniqExact(token) > 1
    UNION ALL
    SELECT 'token_has_several_ids' AS check, chatbot_id, token AS key
    FROM scoped WHERE token_id != 0 GROUP BY chatbot_id, token HAVING uniqExact(token_id) > 1
    UNION ALL
    SELECT 'token_id_not_in_token_ids' AS check, r.chatbot_id AS chatbot_id, r.token AS key
    FROM (SELECT DISTINCT chatbot_id, token, token_id FROM scoped WHERE token_id != 0) AS r
    LEFT JOIN
    (
        SELECT chatbot_id, token, min(token_id) AS token_id
        FROM token_ids
        WHERE (chatbot_id, token) IN (SELECT chatbot_id, token FROM scoped)
        GROUP BY chatbot_id, token
    ) AS m ON m.chatbot_id = r.chatbot_id AND m.token = r.token
    WHERE m.token_id != r.token_id
)
SETTINGS join_use_nulls = 0
