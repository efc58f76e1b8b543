-- Purchase funnel and A/B block of a chatbot with sealed hours: the same definitions and result
-- columns as stats_purchases.sql (read it first), read as stats_engagement_sealed.sql reads
-- engagement. W's sealed hours (shared/sealed_hours.sql) give V, chatted and the A/B groups as
-- bitmaps of token ids, each token's first conversation of the hour and the hour's purchases;
-- every other row of W (its edges, hours not sealed) is read from `events`. The order rule is
-- applied when read: an order's first purchase row may still change after its hour was sealed.
-- A token of the unsealed rows without an id has no sealed row anywhere: its rows say it all.
-- ClickHouse evaluates a CTE at each use, so what two parts need is a scalar (computed once):
-- raw and sets; each CTE below is used once.
WITH
    {{> shared/sealed_hours}},
    {{> shared/unsealed_tokens}},
    (
        -- V, chatted, the A/B groups and the purchasing tokens (whose first chats are looked up)
        -- over W as bitmaps of ids: the sealed hours' OR-ed with the unsealed rows' tokens that
        -- have an id. One scalar: one pass over the sealed hours.
        SELECT tuple(groupBitmapOrState(v), groupBitmapOrState(c), groupBitmapOrState(ct), groupBitmapOrState(te), groupBitmapOrState(b))
        FROM
        (
            SELECT visitors AS v, chatted AS c, in_control AS ct, in_test AS te, buyers AS b
            FROM token_hour_sets FINAL
            WHERE {{> shared/in_sealed_hours}}
            UNION ALL
            SELECT groupBitmapStateIf(id, is_v), groupBitmapStateIf(id, chatted), groupBitmapStateIf(id, in_control), groupBitmapStateIf(id, in_test),
                   groupBitmapStateIf(id, bought)
            FROM raw_tokens
            WHERE id > 0
        )
    ) AS sets,
    {{> shared/sealed_purchases}},
    first_chats AS
    (
        -- The sealed-hour purchasing tokens' earliest conversation in W's sealed hours.
        SELECT k AS id, min(at) AS first_chat_at
        FROM token_hour_sets FINAL
        ARRAY JOIN mapKeys(first_chats) AS k, mapValues(first_chats) AS at
        WHERE {{> shared/in_sealed_hours}}
          AND bitmapContains(sets.5, k)
        GROUP BY k
    ),
    by_token AS
    (
        -- One row per purchasing token of V, as stats_purchases.sql's by_token: a token with an
        -- id is in a set when its bit is, and first chatted at its earliest sealed or unsealed chat.
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
                if(p.id > 0, bitmapContains(sets.1, p.id), r.is_v) AS in_v,
                if(p.id > 0, bitmapContains(sets.3, p.id), r.in_control) AS in_control,
                if(p.id > 0, bitmapContains(sets.4, p.id), r.in_test) AS in_test,
                -- After chat: strictly later than the token's first chat in W (none: never).
                p.at > least(if(f.id > 0, f.first_chat_at, toDateTime64('2299-12-31 00:00:00', 3, 'UTC')),
                             if(r.chatted, r.first_chat_at, toDateTime64('2299-12-31 00:00:00', 3, 'UTC'))) AS after_chat
            FROM counted AS p
            LEFT JOIN raw_tokens AS r ON r.id = p.id AND r.key = p.key
            LEFT JOIN first_chats AS f ON f.id = p.id
            SETTINGS join_use_nulls = 0
        )
        WHERE in_v
        GROUP BY id, key
    ),
    idless AS
    (
        -- The unsealed rows' tokens without an id: in no bitmap, counted on their own.
        SELECT countIf(is_v) AS v, countIf(is_v AND chatted) AS vc, countIf(is_v AND in_control) AS vct, countIf(is_v AND in_test) AS vte
        FROM raw_tokens
        WHERE id = 0
    ),
    purchasers AS
    (
        SELECT {{> shared/purchase_totals}}
        FROM by_token
    )
SELECT
    bitmapCardinality(sets.1) + x.v AS total_users,
    bitmapAndCardinality(sets.1, sets.2) + x.vc AS total_users_chatted,
    bitmapAndCardinality(sets.1, sets.3) + x.vct AS control_visitors,
    bitmapAndCardinality(sets.1, sets.4) + x.vte AS test_visitors,
    b.*
FROM idless AS x
CROSS JOIN purchasers AS b
