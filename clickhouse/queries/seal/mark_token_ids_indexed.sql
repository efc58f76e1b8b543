-- Every id of the chatbot up to {assigned} is in token_id_index (migration 0080); read by
-- shared/token_ids_indexed_to.sql.
INSERT INTO token_id_index (chatbot_id, token, id, indexed_to) VALUES ({chatbot_id:String}, ' indexed', 0, {assigned:UInt32})
