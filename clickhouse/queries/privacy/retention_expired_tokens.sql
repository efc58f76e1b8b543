-- The chatbot's tokens of token_ids with no row left in events (after retention_delete.sql): their
-- id mappings are deleted too, so what the kept bitmaps hold names nobody.
SELECT token FROM token_ids
WHERE chatbot_id = {chatbot_id:String}
  AND token NOT IN (SELECT token FROM events WHERE chatbot_id = {chatbot_id:String})
SETTINGS {{> shared/background_priority}}
