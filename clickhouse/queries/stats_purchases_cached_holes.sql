-- stats_purchases_cached.sql for a kept run with holes (hours inside it that are read as rows:
-- a late row not sealed yet, an hour holding an old copy): the other conversations a purchase
-- may follow also hold, for unsealed purchases in a hole, the first conversations the sealed
-- hours before the last hole hold (shared/unsealed_chats.sql), as stats_purchases_sealed_settled.sql
-- reads them.
WITH
    {{> shared/kept_purchases_head}},
    {{> shared/unsealed_chats}},
    (
        -- Earliest per token id, as (ids, times) for transform().
        SELECT (groupArray(id), groupArray(first_chat_at))
        FROM (SELECT id, min(at) AS first_chat_at FROM chats GROUP BY id)
    ) AS other_chats,
    {{> shared/kept_purchases_tail}}
