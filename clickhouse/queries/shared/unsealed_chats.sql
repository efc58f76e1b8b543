-- For the *_sealed.sql purchases queries, the WITH entry `chats`: conversations counting in W
-- that a purchase may follow and `counted` does not know, as (id, at) rows, more than one per
-- token id at times: the unsealed rows' (each token's first, from raw_tokens; a sealed purchase
-- does not know them, or not yet) and, for unsealed purchases in holes (hours inside the sealed
-- run read as rows), the first conversations the sealed hours before the last hole hold of the
-- tokens that purchased in the unsealed rows (sets.5). An unsealed purchase after the sealed run
-- follows every sealed conversation (sets.2), one before it none, so the second part reads
-- nothing without a hole, the usual case.
-- Use inside a WITH list after shared/purchase_sets: `{{> shared/unsealed_chats}},`.
chats AS
(
    SELECT id, first_chat_at AS at
    FROM raw_tokens
    WHERE id > 0 AND chatted
    UNION ALL
    SELECT k, at
    FROM token_hour_sets FINAL
    ARRAY JOIN mapKeys(first_chats) AS k, mapValues(first_chats) AS at
    WHERE {{> shared/in_sealed_hours}} AND hour < arrayMax(holes)
      AND bitmapContains(sets.5, k)
)
