-- Purchase funnel and A/B block of a chatbot with sealed hours: the same definitions and result
-- columns as stats_purchases.sql (read it first), read as stats_engagement_sealed.sql reads
-- engagement. W's sealed hours (shared/sealed_hours.sql) give V, chatted and the A/B groups as
-- bitmaps of token ids, each token's first conversation of the hour and the hour's purchases;
-- every other row of W (its edges, hours not sealed) is read from `events`. The order rule is
-- applied when read: an order's first purchase row may still change after its hour was sealed.
-- A token of the unsealed rows without an id has no sealed row anywhere: its rows say it all.
-- ClickHouse evaluates a CTE at each use, so what two parts need is a scalar (computed once):
-- raw, sets, buyer_ids; each CTE below is used once.
WITH
    {{> shared/sealed_hours}},
    (
        -- The unsealed rows' tokens, one tuple each: (token, id (0: none yet), in V, chatted,
        -- first chat, in control, in test, purchased).
        SELECT groupArray((r.token, t.id, r.is_v, r.chatted, r.first_chat_at, r.in_control, r.in_test, r.bought))
        FROM
        (
            -- Only these tokens' ids: the primary key skips the rest of the chatbot's (millions).
            SELECT token, id
            FROM token_ids
            WHERE chatbot_id = {chatbot_id:String}
              AND token IN (SELECT token FROM events WHERE {{> shared/window_events rows=(true)}} AND {{> shared/unsealed_rows}})
        ) AS t
        RIGHT JOIN
        (
            SELECT
                token,
                max(event = 'visitor') AS is_v,
                max(event = 'convo_started') AS chatted,
                minIf(received_at, event = 'convo_started') AS first_chat_at,
                max(ifNull(ab_group = 'control', false)) AS in_control,
                max(ifNull(ab_group = 'test', false)) AS in_test,
                max(event = 'purchase') AS bought
            FROM events
            WHERE {{> shared/window_events rows=(event IN ('visitor', 'convo_started', 'purchase') OR ab_group IN ('control', 'test'))}}
              AND {{> shared/unsealed_rows}}
            GROUP BY token
        ) AS r ON t.token = r.token
        SETTINGS join_use_nulls = 0
    ) AS raw,
    (
        -- V, chatted and the A/B groups over W as bitmaps of ids: the sealed hours' OR-ed with
        -- the unsealed rows' tokens that have an id.
        SELECT tuple(groupBitmapOrState(v), groupBitmapOrState(c), groupBitmapOrState(ct), groupBitmapOrState(te))
        FROM
        (
            SELECT visitors AS v, chatted AS c, in_control AS ct, in_test AS te
            FROM token_hour_sets FINAL
            WHERE chatbot_id = {chatbot_id:String} AND hour >= sealed_from AND hour < sealed_until AND has(sealed, hour)
            UNION ALL
            SELECT groupBitmapStateIf(t.2, t.3), groupBitmapStateIf(t.2, t.4), groupBitmapStateIf(t.2, t.6), groupBitmapStateIf(t.2, t.7)
            FROM (SELECT arrayJoin(raw) AS t)
            WHERE t.2 > 0
        )
    ) AS sets,
    (
        -- The ids of the purchasing tokens, sealed or not: whose first chats are looked up.
        SELECT groupBitmapOrState(b)
        FROM
        (
            SELECT buyers AS b
            FROM token_hour_sets FINAL
            WHERE chatbot_id = {chatbot_id:String} AND hour >= sealed_from AND hour < sealed_until AND has(sealed, hour)
            UNION ALL
            SELECT groupBitmapStateIf(t.2, t.8)
            FROM (SELECT arrayJoin(raw) AS t)
            WHERE t.2 > 0
        )
    ) AS buyer_ids,
    raw_tokens AS
    (
        SELECT t.1 AS token, t.2 AS id, if(t.2 = 0, t.1, '') AS key, t.3 AS is_v, t.4 AS chatted, t.5 AS first_chat_at, t.6 AS in_control, t.7 AS in_test
        FROM (SELECT arrayJoin(raw) AS t)
    ),
    counted AS
    (
        -- Each purchase counting in W, once, at its earliest copy: the sealed hours' lists (their
        -- rows count in any window holding the hour) and the unsealed rows; then the order rule
        -- (shared/counted_purchases.sql): one with an order number counts only as its order's
        -- first purchase row ever. `key` is the token when it has no id, '' otherwise.
        SELECT p.id AS id, p.key AS key, p.at AS at, p.revenue AS revenue
        FROM
        (
            SELECT p.id AS id, '' AS key, p.at AS at, p.event_id AS event_id, p.order_num AS order_num, p.revenue AS revenue
            FROM token_hour_sets FINAL
            ARRAY JOIN purchases AS p
            WHERE chatbot_id = {chatbot_id:String} AND hour >= sealed_from AND hour < sealed_until AND has(sealed, hour)
            UNION ALL
            SELECT r.id, r.key, e.at, e.event_id, e.order_num, e.revenue
            FROM
            (
                SELECT token, received_at AS at, event_id, order_num, ifNull(total_value_base, 0) AS revenue
                FROM events
                WHERE {{> shared/window_events rows=(event = 'purchase')}}
                  AND {{> shared/unsealed_rows}}
            ) AS e
            INNER JOIN raw_tokens AS r ON r.token = e.token
        ) AS p
        LEFT JOIN
        (
            -- FINAL merges each order's parts (cheaper than GROUP BY); the tuple split in two
            -- compares faster than as a tuple.
            SELECT order_num, first.1 AS first_at, first.2 AS first_id
            FROM order_first_purchases FINAL
            WHERE chatbot_id = {chatbot_id:String}
        ) AS o ON o.order_num = p.order_num
        WHERE p.order_num = '' OR (o.first_at = p.at AND o.first_id = p.event_id)
    ),
    first_chats AS
    (
        -- The sealed-hour purchasing tokens' earliest conversation in W's sealed hours.
        SELECT k AS id, min(at) AS first_chat_at
        FROM token_hour_sets FINAL
        ARRAY JOIN mapKeys(first_chats) AS k, mapValues(first_chats) AS at
        WHERE chatbot_id = {chatbot_id:String} AND hour >= sealed_from AND hour < sealed_until AND has(sealed, hour)
          AND bitmapContains(buyer_ids, k)
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
        SELECT
            countIf(token_orders > 0) AS users_purchased,
            countIf(token_orders_after_chat > 0) AS users_chatted_purchased,
            sum(token_revenue) AS revenue,
            sum(token_revenue_after_chat) AS revenue_after_chat,
            sum(token_revenue_other) AS revenue_other,
            sum(token_orders) AS orders,
            sum(token_orders_after_chat) AS orders_after_chat,
            sumIf(token_orders, in_control) AS control_orders,
            countIf(in_control) AS control_purchasers,
            sumIf(token_revenue, in_control) AS control_revenue,
            sumIf(token_orders, in_test) AS test_orders,
            countIf(in_test) AS test_purchasers,
            sumIf(token_revenue, in_test) AS test_revenue
        FROM by_token
    )
SELECT
    bitmapCardinality(sets.1) + x.v AS total_users,
    bitmapAndCardinality(sets.1, sets.2) + x.vc AS total_users_chatted,
    b.users_purchased AS total_users_purchased,
    b.users_chatted_purchased AS total_users_chatted_purchased,
    b.revenue AS total_revenue_purchased,
    b.revenue_after_chat AS total_revenue_chatted_purchased,
    b.revenue_other AS revenue_other,
    b.orders AS orders,
    b.orders_after_chat AS orders_after_chat,
    bitmapAndCardinality(sets.1, sets.3) + x.vct AS control_visitors,
    b.control_orders AS control_orders,
    b.control_purchasers AS control_purchasers,
    b.control_revenue AS control_revenue,
    bitmapAndCardinality(sets.1, sets.4) + x.vte AS test_visitors,
    b.test_orders AS test_orders,
    b.test_purchasers AS test_purchasers,
    b.test_revenue AS test_revenue
FROM idless AS x
CROSS JOIN purchasers AS b
