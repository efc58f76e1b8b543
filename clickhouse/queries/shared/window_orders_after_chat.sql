-- The shop's orders placed in W = [{from}, {to}] (shared/window_orders.sql: each order once, in
-- its latest state, at its net EUR value, token_id 0 when it has no tracked token) with the
-- attribution rule (revenue source 'orders': services/dashboard/docs/statistics.md, "Revenue
-- source"), as a FROM clause of rows (token_id, at, revenue, after_chat, direct) like
-- shared/window_purchases_after_chat.sql:
--   after_chat = its token has a convo_started (its first copy) in [at − {window_days} days, at);
--   direct = after chat, and the token clicked in the chat (a click_through with data.item_id:
--   the chat_clicks table) one of the order's items in that same span.
-- Use: `FROM {{> shared/window_orders_after_chat}}`.
(
    -- The ids of the tokens with an order placed in W (a superset of the orders' tokens in V):
    -- only their chats are read.
    WITH order_tokens AS
    (
        SELECT token_id FROM orders
        WHERE chatbot_id = {chatbot_id:String} AND token_id != 0
          AND placed_at >= {from:DateTime64(3, 'UTC')} AND placed_at <= {to:DateTime64(3, 'UTC')}
        UNION ALL
        SELECT arrayJoin({{> shared/late_order_token_ids}}.2)
    )
    SELECT o.token_id AS token_id, o.at AS at, o.revenue AS revenue,
        -- The token's latest chat before the order (ASOF: the greatest chat_at < at), within the span.
        o.token_id != 0 AND c.chat_at >= o.at - toIntervalDay({window_days:UInt16}) AS after_chat,
        after_chat AND arrayExists((t, item) -> has(o.item_ids, item) AND t >= o.at - toIntervalDay({window_days:UInt16}) AND t < o.at, k.click_ats, k.click_items) AS direct
    FROM {{> shared/window_orders}}
    ASOF LEFT JOIN
    (
        SELECT token_id, received_at AS chat_at
        FROM conversation_starts
        WHERE chatbot_id = {chatbot_id:String}
          AND received_at >= {from:DateTime64(3, 'UTC')} - toIntervalDay({window_days:UInt16})
          AND received_at <= {to:DateTime64(3, 'UTC')}
          AND token_id != 0
          -- A retried beacon's copy is not another start: each start at its first copy.
          AND prev_copy_at = toDateTime64(0, 3, 'UTC')
          AND token_id IN order_tokens
    ) AS c ON c.token_id = o.token_id AND o.at > c.chat_at
    LEFT JOIN
    (
        -- One row per token: the times and products of its clicks in the chat (chat_clicks:
        -- click_through rows with data.item_id), so an order is joined to one row. Every
        -- click of the span, not only the ordering tokens': testing them against order_tokens
        -- would compute that set a second time (a CTE is computed where it is used), which
        -- costs more than grouping the few clicks that name a product.
        SELECT token_id, groupArray(received_at) AS click_ats, groupArray(item_id) AS click_items
        FROM chat_clicks
        WHERE chatbot_id = {chatbot_id:String}
          AND received_at >= {from:DateTime64(3, 'UTC')} - toIntervalDay({window_days:UInt16})
          AND received_at <= {to:DateTime64(3, 'UTC')}
          AND token_id != 0
          AND prev_copy_at = toDateTime64(0, 3, 'UTC')
        GROUP BY token_id
    ) AS k ON k.token_id = o.token_id
    -- use_index_for_in_with_subqueries = 0: the token set is not a key of conversation_starts,
    -- and analysing its index with it costs more than the scan.
    SETTINGS join_use_nulls = 0, use_index_for_in_with_subqueries = 0
) AS purchases_after_chat
