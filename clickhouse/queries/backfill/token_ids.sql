-- Migration 0130's fill for one batch of chatbots ({chatbots}): the same three steps as the
-- migration's own statements (ids in slot 0, numbered per chatbot in the order of each token's
-- first row, then by token), bounded by the batch, each able to run again after a failure:
-- 1. ids for the batch's tokens that have rows without an id and no id yet, numbered after the
--    largest slot-0 id the chatbot already has. A token that got its id from an earlier run
--    keeps it, so a fill stopped between its steps numbers nothing twice;
-- 2. each chatbot's largest slot-0 id, where the next writer of slot 0 starts;
-- 3. the batch's rows given their token's id: only the parts holding the batch's rows are
--    rewritten, and the lookup arrays hold the batch's tokens, not the store's.
INSERT INTO token_ids
SELECT t.chatbot_id AS chatbot_id, t.token AS token,
    top.top + toUInt64(row_number() OVER (PARTITION BY t.chatbot_id ORDER BY t.first_at, t.token)) AS token_id
FROM
(
    SELECT chatbot_id, token, min(received_at) AS first_at
    FROM events
    WHERE chatbot_id IN {chatbots:Array(String)} AND NOT is_bot AND token_id = 0
    GROUP BY chatbot_id, token
) AS t
LEFT ANTI JOIN
(
    SELECT DISTINCT chatbot_id, token FROM token_ids WHERE chatbot_id IN {chatbots:Array(String)}
) AS known ON known.chatbot_id = t.chatbot_id AND known.token = t.token
LEFT JOIN
(
    SELECT chatbot_id, max(top) AS top FROM
    (
        SELECT chatbot_id, top FROM token_id_tops WHERE chatbot_id IN {chatbots:Array(String)} AND slot = 0
        UNION ALL
        SELECT chatbot_id, token_id AS top FROM token_ids
        WHERE chatbot_id IN {chatbots:Array(String)} AND bitShiftRight(token_id, 40) = 0
    )
    GROUP BY chatbot_id
) AS top ON top.chatbot_id = t.chatbot_id
SETTINGS join_use_nulls = 0;

INSERT INTO token_id_tops
SELECT chatbot_id, toUInt16(0) AS slot, max(token_id) AS top
FROM token_ids
WHERE chatbot_id IN {chatbots:Array(String)} AND bitShiftRight(token_id, 40) = 0
GROUP BY chatbot_id;

ALTER TABLE events
UPDATE token_id = transform(concat(toString(length(chatbot_id)), ':', chatbot_id, token),
    tupleElement((SELECT CAST((groupArray(key), groupArray(id)), 'Tuple(keys Array(String), ids Array(UInt64))') FROM (SELECT concat(toString(length(chatbot_id)), ':', chatbot_id, token) AS key, min(token_id) AS id FROM token_ids WHERE chatbot_id IN {chatbots:Array(String)} GROUP BY chatbot_id, token)), 'keys'),
    tupleElement((SELECT CAST((groupArray(key), groupArray(id)), 'Tuple(keys Array(String), ids Array(UInt64))') FROM (SELECT concat(toString(length(chatbot_id)), ':', chatbot_id, token) AS key, min(token_id) AS id FROM token_ids WHERE chatbot_id IN {chatbots:Array(String)} GROUP BY chatbot_id, token)), 'ids'),
    toUInt64(0))
WHERE chatbot_id IN {chatbots:Array(String)} AND NOT is_bot AND token_id = 0
SETTINGS mutations_sync = 2, allow_nondeterministic_mutations = 1;
