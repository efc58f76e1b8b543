-- The shop's orders placed in W = [{from}, {to}] (shared/window_orders.sql: each order once, in
-- its latest state, at its net EUR value, token_id 0 when it has no tracked token) with the
-- attribution rule (revenue source 'orders': services/dashboard/docs/statistics.md, "Revenue
-- source"), as a FROM clause of rows (token_id, at, revenue, after_chat, direct) like
-- shared/window_purchases_after_chat.sql:
--   after_chat = its token has a convo_started (its first copy) in [at − {window_days} days, at);
--   direct = after chat, and the token clicked in the chat (a click_through with data.item_id)
--   one of the order's items in that same span.
-- Use: `FROM {{> shared/window_orders_after_chat}}`.
(
    -- The ids of the tokens with an order placed in W (a superset of the orders' tokens in V):
    -- only their chats and clicks are read.
    WITH order_tokens AS
    (
        SELECT token_id FROM orders
        WHERE chatbot_id = {chatbot_id:String} AND token_id != 0
          AND placed_at >= {from:DateTime64(3, 'UTC')} AND placed_at <= {to:DateTime64(3, 'UTC')}
        UNION ALL
        SELECT token_id FROM {{> shared/late_order_token_ids}}
    )
    SELECT o.token_id AS token_id, o.at AS at, o.revenue AS revenue,
        o.token_id != 0 AND arrayExists(t -> t >= o.at - toIntervalDay({window_days:UInt16}) AND t < o.at, c.chat_ats) AS after_chat,
        after_chat AND arrayExists((t, item) -> has(o.item_ids, item) AND t >= o.at - toIntervalDay({window_days:UInt16}) AND t < o.at, c.click_ats, c.click_items) AS direct
    FROM {{> shared/window_orders}}
    LEFT JOIN
    (
        -- One row per token: its chats' times, its clicks' times and products (an order is
        -- joined to one row, not to every chat and click of its visitor).
        SELECT token_id,
            groupArrayIf(received_at, kind = 'chat') AS chat_ats,
            groupArrayIf(received_at, kind = 'click') AS click_ats,
            groupArrayIf(item_id, kind = 'click') AS click_items
        FROM
        (
        SELECT token_id, received_at, 'chat' AS kind, '' AS item_id
        FROM conversation_starts
        WHERE chatbot_id = {chatbot_id:String}
          AND received_at >= {from:DateTime64(3, 'UTC')} - toIntervalDay({window_days:UInt16})
          AND received_at <= {to:DateTime64(3, 'UTC')}
          AND token_id != 0
          -- A retried beacon's copy is not another start: each start at its first copy.
          AND prev_copy_at = toDateTime64(0, 3, 'UTC')
          AND token_id IN order_tokens
        UNION ALL
        -- Products clicked in the chat: click_through rows with data.item_id (text or number).
        SELECT token_id, received_at, 'click' AS kind,
            if(JSONType(data, 'item_id') = 'String', JSONExtractString(data, 'item_id'), JSONExtractRaw(data, 'item_id')) AS item_id
        FROM events
        WHERE chatbot_id = {chatbot_id:String}
          AND event = 'click_through'
          AND received_at >= {from:DateTime64(3, 'UTC')} - toIntervalDay({window_days:UInt16})
          AND received_at <= {to:DateTime64(3, 'UTC')}
          AND NOT is_bot
          AND token_id != 0
          AND prev_copy_at = toDateTime64(0, 3, 'UTC')
          AND token_id IN order_tokens
          AND JSONHas(data, 'item_id')
        )
        GROUP BY token_id
    ) AS c ON c.token_id = o.token_id
    -- use_index_for_in_with_subqueries = 0: the token set is not a key of those tables, and
    -- analysing their index with it costs more than the scan.
    SETTINGS join_use_nulls = 0, use_index_for_in_with_subqueries = 0
) AS purchases_after_chat
