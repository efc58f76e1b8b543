-- Per purchasing token: its counted purchases in W (shared/window_purchases.sql) and which of
-- them are after chat, as a FROM clause of rows (token_id, token_orders,
-- token_orders_after_chat, token_revenue, token_revenue_after_chat, token_revenue_other). A
-- purchase is after chat when its token has a convo_started in W (retry rule as in
-- shared/window_events.sql) and the purchase is strictly later than the earliest of them. One
-- pass over the window's counted purchases and conversation starts (narrow tables), grouped by
-- token.
-- The caller keeps the tokens of V.
-- Use: `FROM {{> shared/token_purchase_figures}}`.
(
    SELECT
        token_id,
        arrayFilter(p -> chatted AND p.at > first_chat_at, purchases) AS after_chat,
        length(purchases) AS token_orders,
        length(after_chat) AS token_orders_after_chat,
        arraySum(p -> p.revenue, purchases) AS token_revenue,
        arraySum(p -> p.revenue, after_chat) AS token_revenue_after_chat,
        arraySum(p -> p.revenue, arrayFilter(p -> NOT (chatted AND p.at > first_chat_at), purchases)) AS token_revenue_other
    FROM
    (
        SELECT
            token_id,
            max(is_chat) AS chatted,
            minIf(at, is_chat) AS first_chat_at,
            CAST(groupArrayIf((at, revenue), NOT is_chat), 'Array(Tuple(at DateTime64(3, \'UTC\'), revenue Float64))') AS purchases
        FROM
        (
            SELECT token_id, at, revenue, 0 AS is_chat
            FROM {{> shared/window_purchases}}
            UNION ALL
            SELECT token_id, received_at AS at, 0 AS revenue, 1 AS is_chat
            FROM conversation_starts
            WHERE chatbot_id = {chatbot_id:String}
              AND received_at >= {from:DateTime64(3, 'UTC')}
              AND received_at <= {to:DateTime64(3, 'UTC')}
              AND prev_copy_at < {dedup_lookback_from:DateTime64(3, 'UTC')}
        )
        GROUP BY token_id
        HAVING notEmpty(purchases)
    )
) AS per_token
