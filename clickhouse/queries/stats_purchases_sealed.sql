-- Purchase funnel and A/B block of a chatbot with sealed hours: the same definitions and result
-- columns as stats_purchases.sql (read it first), read as stats_engagement_sealed.sql reads
-- engagement. W's sealed hours (shared/sealed_hours.sql) give V, chatted and the A/B groups as
-- bitmaps of token ids, and their purchases with what the seal knew of each (its order's first
-- row? its token's conversations before it?: migration 0070), completed when read by the rows
-- that arrived since the sealer last checked; every other row of W (its edges, hours not
-- sealed) is read from `events`. A token of the unsealed rows without an id has no sealed row
-- anywhere: its rows say it all. ClickHouse evaluates a CTE at each use, so what two parts need
-- is a scalar (computed once): raw and sets; each CTE below is used once.
-- A window with no late arrival (none since the sealer last checked received before the sealed
-- run's end) is read by this query without the arrivals' completions,
-- stats_purchases_sealed_settled.sql (the repository picks it).
WITH
    {{> shared/sealed_hours}},
    {{> shared/unsealed_tokens}},
    {{> shared/purchase_sets}},
    {{> shared/sealed_purchases}},
    {{> shared/unsealed_chats}},
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
        --   shared/unsealed_chats.sql's (the unsealed rows', and the sealed hours' for purchases
        --   in holes); those arrived since the sealer last checked (the sealed purchases after
        --   them do not know them until it seals their hours again).
        SELECT (groupArray(id), groupArray(first_chat_at))
        FROM
        (
            SELECT id, min(at) AS first_chat_at
            FROM
            (
                SELECT id, at
                FROM chats
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
            )
            GROUP BY id
        )
    ) AS other_chats,
    {{> shared/purchases_sealed_totals}}
