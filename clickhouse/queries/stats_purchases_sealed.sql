-- Purchase funnel and A/B block of a chatbot with sealed hours: the same definitions and result
-- columns as stats_purchases.sql (read it first), read as stats_engagement_sealed.sql reads
-- engagement. W's sealed hours (shared/sealed_hours.sql) give V, chatted and the A/B groups as
-- bitmaps of token ids, and their purchases with what the seal knew of each (its order's first
-- row? its token's conversations before it?: migration 0070), completed when read by the rows
-- that arrived since the sealer last checked; every other row of W (its edges, hours not
-- sealed) is read from `events`. A token of the unsealed rows without an id has no sealed row
-- anywhere: its rows say it all. ClickHouse evaluates a CTE at each use, so what two parts need
-- is a scalar (computed once): raw and sets; each CTE below is used once.
WITH
    {{> shared/sealed_hours}},
    {{> shared/unsealed_tokens}},
    (
        -- Over W as bitmaps of ids, the sealed hours' OR-ed with the unsealed rows' tokens that
        -- have an id: V, chatted in the sealed hours, the A/B groups; purchased and chatted in
        -- the unsealed rows. One scalar: one pass over the sealed hours.
        SELECT tuple(groupBitmapOrState(v), groupBitmapOrState(c), groupBitmapOrState(ct), groupBitmapOrState(te), groupBitmapOrState(b), groupBitmapOrState(rc))
        FROM
        (
            SELECT visitors AS v, chatted AS c, in_control AS ct, in_test AS te, bitmapBuild(emptyArrayUInt32()) AS b, bitmapBuild(emptyArrayUInt32()) AS rc
            FROM token_hour_sets FINAL
            WHERE {{> shared/in_sealed_hours}}
            UNION ALL
            SELECT groupBitmapStateIf(id, is_v), groupBitmapStateIf(id, false), groupBitmapStateIf(id, in_control), groupBitmapStateIf(id, in_test),
                   groupBitmapStateIf(id, bought), groupBitmapStateIf(id, chatted)
            FROM raw_tokens
            WHERE id > 0
        )
    ) AS sets,
    {{> shared/sealed_purchases}},
    arrived AS
    (
        SELECT token, received_at, event_id
        FROM sealed_hour_arrivals
        WHERE arrived_at >= (SELECT max(checked_until) FROM sealed_purchases_checked)
          AND chatbot_id = {chatbot_id:String} AND event = 'convo_started'
    ),
    (
        -- The other conversations counting in W a purchase may follow, earliest per token id, as
        -- (ids, times) for transform() (a hash lookup; a join of every purchase cost more):
        --   the unsealed rows' (a sealed purchase does not know them, or not yet);
        --   those arrived since the sealer last checked (the sealed purchases after them do not
        --   know them until it seals their hours again);
        --   for unsealed purchases in holes (hours inside the sealed run read as rows): the
        --   sealed hours' before the last hole. Reads nothing when there is no hole, the usual
        --   case: an unsealed purchase after the sealed hours follows every sealed conversation
        --   (sets.2), one before them none.
        SELECT (groupArray(id), groupArray(first_chat_at))
        FROM
        (
            SELECT id, min(at) AS first_chat_at
            FROM
            (
                SELECT id, first_chat_at AS at
                FROM raw_tokens
                WHERE id > 0 AND chatted
                UNION ALL
                SELECT t.id, e.received_at
                FROM events AS e
                INNER JOIN
                (
                    SELECT token, id
                    FROM token_ids
                    WHERE chatbot_id = {chatbot_id:String} AND token IN (SELECT token FROM arrived)
                ) AS t ON t.token = e.token
                WHERE {{> shared/window_events rows=(event = 'convo_started')}}
                  AND (received_at, event_id) IN (SELECT received_at, event_id FROM arrived)
                UNION ALL
                SELECT k, at
                FROM token_hour_sets FINAL
                ARRAY JOIN mapKeys(first_chats) AS k, mapValues(first_chats) AS at
                WHERE {{> shared/in_sealed_hours}} AND hour < arrayMax(holes)
                  AND bitmapContains(sets.5, k)
            )
            GROUP BY id
        )
    ) AS other_chats,
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
                -- unsealed: in the unsealed rows, or in the sealed hours when it lies after
                -- them; either: one of the other conversations.
                p.chatted_before
                    OR p.at > p.raw_chat
                    OR (NOT p.from_seal AND p.id > 0 AND p.at >= sealed_until AND bitmapContains(sets.2, p.id))
                    OR p.at > transform(p.id, other_chats.1, other_chats.2, toDateTime64('2299-12-31 00:00:00', 3, 'UTC')) AS after_chat
            FROM counted AS p
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
    bitmapAndCardinality(sets.1, bitmapOr(sets.2, sets.6)) + x.vc AS total_users_chatted,
    bitmapAndCardinality(sets.1, sets.3) + x.vct AS control_visitors,
    bitmapAndCardinality(sets.1, sets.4) + x.vte AS test_visitors,
    b.*
FROM idless AS x
CROSS JOIN purchasers AS b
