-- Migration 0130's fill, per batch of chatbots (packages/clickhouse/src/backfill-token-ids.ts):
-- the chatbots whose stored visitor rows have no token id yet, with how many such rows each, in
-- chatbot order. Empty once every stored row has its id: a fill that stopped half-way is resumed
-- by running `migrate --backfill` again, and it starts where this list says.
SELECT chatbot_id, count() AS rows
FROM events
WHERE NOT is_bot AND token_id = 0
GROUP BY chatbot_id
ORDER BY chatbot_id
