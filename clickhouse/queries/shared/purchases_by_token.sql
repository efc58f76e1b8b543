-- The WITH entry by_token of the *_sealed.sql and the cached purchases queries: one row per
-- purchasing token of V among the purchases of `counted` (shared/sealed_purchases.sql's columns),
-- as stats_purchases.sql's by_token. Needs, before it in the WITH list: shared/sealed_hours,
-- `sets` (shared/purchase_sets.sql's, or bitmaps holding at least the ids `counted` holds),
-- `counted` and the scalar `other_chats` (the conversations a purchase may follow that `counted`
-- does not know, as (ids, times)).
-- Use as a WITH entry: `{{> shared/purchases_by_token}}` (comma when more entries follow).
by_token AS
(
    -- One row per purchasing token of V, as stats_purchases.sql's by_token: a token with an
    -- id is in a set when its bit is.
    SELECT
        any(in_control) AS in_control,
        any(in_test) AS in_test,
        {{> shared/token_purchase_sums}}
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
