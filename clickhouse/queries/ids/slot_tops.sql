-- Per chatbot, the largest id given in one slot so far ({low} = slot << 40, {high} = the next
-- slot's first id): where the slot's writer goes on numbering (packages/clickhouse/src/token-ids.ts).
-- Read from token_ids itself, which holds every id before any row carries it.
SELECT chatbot_id, toString(max(token_id)) AS top
FROM token_ids
WHERE chatbot_id IN {chatbots:Array(String)}
  AND token_id >= {low:UInt64}
  AND token_id < {high:UInt64}
GROUP BY chatbot_id
