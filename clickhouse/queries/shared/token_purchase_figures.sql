-- Per purchasing token of V: its counted purchases in W (shared/window_purchases.sql) and which
-- of them are after chat, as a FROM clause of rows (token_id, token_orders,
-- token_orders_after_chat, token_revenue, token_revenue_after_chat, token_revenue_other). A
-- purchase is after chat when its token has a convo_started in W (retry rule as in
-- shared/window_events.sql) and the purchase is strictly later than the earliest of them; only
-- the purchasing tokens' chats are read, from the narrow conversation_starts table.
-- Needs the query's CTE `sets` with the bitmap column `visitors` (V).
-- Use: `FROM {{> shared/token_purchase_figures}}`.
(
    WITH
        counted AS
        (
            SELECT token_id, at, revenue
            FROM {{> shared/window_purchases visitors=(visitors)}}
        ),
        first_chats AS
        (
            SELECT token_id, min(received_at) AS first_chat_at, 1 AS chatted
            FROM conversation_starts
            WHERE chatbot_id = {chatbot_id:String}
              AND received_at >= {from:DateTime64(3, 'UTC')}
              AND received_at <= {to:DateTime64(3, 'UTC')}
              AND prev_copy_at < {dedup_lookback_from:DateTime64(3, 'UTC')}
              AND token_id IN (SELECT token_id FROM counted)
            GROUP BY token_id
        )
    SELECT
        c.token_id AS token_id,
        count() AS token_orders,
        countIf(f.chatted = 1 AND c.at > f.first_chat_at) AS token_orders_after_chat,
        sum(c.revenue) AS token_revenue,
        sumIf(c.revenue, f.chatted = 1 AND c.at > f.first_chat_at) AS token_revenue_after_chat,
        sumIf(c.revenue, NOT (f.chatted = 1 AND c.at > f.first_chat_at)) AS token_revenue_other
    FROM counted AS c
    LEFT JOIN first_chats AS f ON f.token_id = c.token_id
    GROUP BY c.token_id
) AS per_token
