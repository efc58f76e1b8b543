-- The chatbots whose token ids are not all in token_id_index (migration 0080): largest id
-- assigned and largest indexed ({chatbot_id}: only that chatbot, '' for every chatbot that has
-- sealed hours; an index that lost rows is found through them, as their max_id exceeds it).
SELECT chatbot_id, toUInt32(max(id)) AS assigned, any({{> shared/token_ids_indexed_to chatbot=(chatbot_id)}}) AS indexed
FROM token_ids
WHERE {chatbot_id:String} = '' AND chatbot_id IN
    (
        SELECT chatbot_id
        FROM token_hour_sets
        GROUP BY chatbot_id
        HAVING max(max_id) > any({{> shared/token_ids_indexed_to chatbot=(chatbot_id)}})
    )
   OR chatbot_id = {chatbot_id:String}
GROUP BY chatbot_id
HAVING assigned > indexed
