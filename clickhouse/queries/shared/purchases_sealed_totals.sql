-- The end of the *_sealed.sql purchases queries (stats_purchases_sealed.sql says what they
-- compute): the last WITH entry, by_token (shared/purchases_by_token.sql: one row per purchasing token of V, as
-- stats_purchases.sql's by_token), and the final SELECT. Needs, before it in the WITH list:
-- shared/sealed_hours, shared/unsealed_tokens, shared/purchase_sets, `counted` (the purchases
-- that count in W: shared/sealed_purchases.sql's columns) and the scalar `other_chats` (the
-- conversations a purchase may follow that `counted` does not know, as (ids, times)).
-- Use as the last entry of a WITH list, ending the query: `{{> shared/purchases_sealed_totals}}`.
{{> shared/purchases_by_token}}

-- The unsealed rows' tokens without an id are in no bitmap: counted from `raw` on their own
-- (t.2: id, t.3: in V, t.4: chatted, t.6: control, t.7: test). Constant expressions, not a
-- subquery: each subquery scope costs the analyzer milliseconds.
SELECT
    bitmapCardinality(sets.1) + arrayCount(t -> t.2 = 0 AND t.3, raw) AS total_users,
    bitmapAndCardinality(sets.1, bitmapOr(sets.2, sets.6)) + arrayCount(t -> t.2 = 0 AND t.3 AND t.4, raw) AS total_users_chatted,
    bitmapAndCardinality(sets.1, sets.3) + arrayCount(t -> t.2 = 0 AND t.3 AND t.6, raw) AS control_visitors,
    bitmapAndCardinality(sets.1, sets.4) + arrayCount(t -> t.2 = 0 AND t.3 AND t.7, raw) AS test_visitors,
    {{> shared/purchase_totals}}
FROM by_token
