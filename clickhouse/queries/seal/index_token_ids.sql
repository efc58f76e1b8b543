-- One chatbot's ids in ({indexed}, {assigned}] into token_id_index (migration 0080); the sealer
-- then records {assigned} as indexed (seal/mark_token_ids_indexed.sql), in a statement of its
-- own so that the mark never precedes the ids it covers.
INSERT INTO token_id_index (chatbot_id, token, id, indexed_to)
SELECT chatbot_id, token, id, 0
FROM token_ids
WHERE chatbot_id = {chatbot_id:String} AND id > {indexed:UInt32} AND id <= {assigned:UInt32}
