-- Up to which id a chatbot's token ids are in token_id_index (migration 0080): the mark the
-- sealer writes after the ids (seal/mark_token_ids_indexed.sql) under the key ' indexed', which
-- no valid token is (seal/assign_token_ids.sql gives it no id); 0 when there is none.
-- Use: `{{> shared/token_ids_indexed_to chatbot=({chatbot_id:String})}}`.
joinGet('token_id_index', 'indexed_to', {{chatbot}}, ' indexed')
