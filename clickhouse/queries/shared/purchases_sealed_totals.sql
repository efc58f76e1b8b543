-- The end of the *_sealed.sql purchases queries (stats_purchases_sealed.sql says what they
-- compute): the last WITH entry, by_token (one row per purchasing token of V, as
-- stats_purchases.sql's by_token), and the final SELECT. Needs, before it in the WITH list:
-- shared/sealed_hours, shared/unsealed_tokens, shared/purchase_sets, `counted` (the purchases
-- that count in W: shared/sealed_purchases.sql's columns) and the scalar `other_chats` (the
-- conversations a purchase may follow that `counted` does not know, as (ids, times)).
-- Use as the last entry of a WITH list, ending the query: `{{> shared/purchases_sealed_totals}}`.
by_token AS
(
    -- One row per purchasing token of V, as stats_purchases.sql's by_token: a token with an
    -- id is in a set when its bit is.
    SELECT
        any(in_control) AS in_control,
        any(in_test) AS in_test,
        count() AS token_orders,
        countIf(after_chat) AS token_orders_after_chat,
        sum(revenue) AS token_revenue,
        sumIf(revenue, after_chat) AS token_revenue_after_chat,
        sumIf(revenue, NOT after_chat) AS token_revenue_other
    FROM
    (
        -- Per purchase; a token's flags are the same on each of its purchases.
        SELECT
            p.id AS id, p.key AS key, p.revenue AS revenue,
            if(p.id > 0, bitmapContains(sets.1, p.id), p.is_v) AS in_v,
            if(p.id > 0, bitmapContains(sets.3, p.id), p.in_control) AS in_control,
            if(p.id > 0, bitmapContains(sets.4, p.id), p.in_test) AS in_test,
            -- After chat: its token chatted in W before it. Sealed: as the seal saw it;
            -- either: one of the other conversations; unsealed: in the unsealed rows, or in
            -- the sealed hours when it lies after them.
            p.chatted_before
                OR p.at > transform(p.id, other_chats.1, other_chats.2, toDateTime64('2299-12-31 00:00:00', 3, 'UTC'))
                OR (NOT p.from_seal AND (p.at > p.raw_chat OR (p.id > 0 AND p.at >= sealed_until AND bitmapContains(sets.2, p.id)))) AS after_chat
        FROM counted AS p
    )
    WHERE in_v
    GROUP BY id, key
)

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
