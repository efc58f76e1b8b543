-- The shop's orders placed in W = [{from}, {to}] (shared/window_orders.sql: each order once, in
-- its latest state, at its net EUR value, token_id 0 when it has no tracked token) with the
-- attribution rule (revenue source 'orders': services/dashboard/docs/statistics.md, "Revenue
-- source"), as a FROM clause of rows (token_id, at, revenue, after_chat, direct) like
-- shared/window_purchases_after_chat.sql:
--   after_chat = its token has a convo_started (its first copy) in [at − {window_days} days, at);
--   direct = after chat, and the token clicked in the chat (a click_through with data.item_id:
--   the chat_clicks table) one of the order's items in that same span.
-- The token's latest chat before the order comes from order_chats (migration 0230: kept when the
-- order or the chat is stored, whichever is last) for an order stored with its token's id; for
-- one whose id was looked up late (stored without one: shared/late_order_token_ids.sql), from
-- that token's chats in the span, read here: few tokens.
-- Use: `FROM {{> shared/window_orders_after_chat}}`.
(
    WITH {{> shared/late_order_token_ids}} AS late_ids
    SELECT o.token_id AS token_id, o.at AS at, o.revenue AS revenue,
        o.token_id != 0 AND greatest(oc.latest_chat_at, c.chat_at) >= o.at - toIntervalDay({window_days:UInt16}) AS after_chat,
        after_chat AND arrayExists((t, item) -> has(o.item_ids, item) AND t >= o.at - toIntervalDay({window_days:UInt16}) AND t < o.at, k.click_ats, k.click_items) AS direct
    FROM {{> shared/window_orders}}
    LEFT JOIN
    (
        -- The row of the order's latest state (its time and stored token id): the rows of an
        -- earlier state with another time or token are not joined.
        SELECT order_id, placed_at, token_id, max(chat_at) AS latest_chat_at
        FROM order_chats
        WHERE chatbot_id = {chatbot_id:String}
          AND placed_at >= {from:DateTime64(3, 'UTC')} AND placed_at <= {to:DateTime64(3, 'UTC')}
        GROUP BY order_id, placed_at, token_id
    ) AS oc ON oc.order_id = o.order_id AND oc.placed_at = o.at AND oc.token_id = o.stored_token_id
    ASOF LEFT JOIN
    (
        -- The late-found tokens' chats: the latest before the order (ASOF: the greatest chat_at < at).
        SELECT token_id, received_at AS chat_at
        FROM conversation_starts
        WHERE chatbot_id = {chatbot_id:String}
          AND received_at >= {from:DateTime64(3, 'UTC')} - toIntervalDay({window_days:UInt16})
          AND received_at <= {to:DateTime64(3, 'UTC')}
          AND token_id != 0
          -- A retried beacon's copy is not another start: each start at its first copy.
          AND prev_copy_at = toDateTime64(0, 3, 'UTC')
          AND has(late_ids.2, token_id)
    ) AS c ON c.token_id = if(o.stored_token_id = 0, o.token_id, toUInt64(0)) AND o.at > c.chat_at
    LEFT JOIN
    (
        -- One row per token: the times and products of its clicks in the chat (chat_clicks:
        -- click_through rows with data.item_id), so an order is joined to one row. Every
        -- click of the span: the few clicks that name a product group for less than a filter
        -- by the ordering tokens costs.
        SELECT token_id, groupArray(received_at) AS click_ats, groupArray(item_id) AS click_items
        FROM chat_clicks
        WHERE chatbot_id = {chatbot_id:String}
          AND received_at >= {from:DateTime64(3, 'UTC')} - toIntervalDay({window_days:UInt16})
          AND received_at <= {to:DateTime64(3, 'UTC')}
          AND token_id != 0
          AND prev_copy_at = toDateTime64(0, 3, 'UTC')
        GROUP BY token_id
    ) AS k ON k.token_id = o.token_id
    SETTINGS join_use_nulls = 0
) AS purchases_after_chat
