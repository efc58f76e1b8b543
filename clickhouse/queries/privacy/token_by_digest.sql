-- The token an erasure names by its digest (erased_tokens.digest: hex SHA-256 of chatbot_id, a
-- zero byte and the token): the erasure job holds no token in clear. token_ids first (one row
-- per visitor); a token with bot rows only is found in events.
SELECT token FROM
(
    SELECT token FROM token_ids WHERE chatbot_id = {chatbot_id:String}
        AND lower(hex(SHA256(concat(chatbot_id, '\0', token)))) = {digest:String}
    UNION ALL
    SELECT token FROM events WHERE chatbot_id = {chatbot_id:String}
        AND lower(hex(SHA256(concat(chatbot_id, '\0', token)))) = {digest:String}
)
LIMIT 1
