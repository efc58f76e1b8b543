-- The shop's orders placed in W = [{from}, {to}] (revenue source 'orders': services/dashboard/
-- docs/statistics.md, "Revenue source"), as a FROM clause of rows (token_id, at, revenue,
-- after_chat, direct) like shared/window_purchases_after_chat.sql:
--   each order once, in its latest state (the largest version: clickhouse/README.md, "orders");
--   at = its placed_at; revenue = its net in EUR: 0 when cancelled or refunded, else its gross
--   less the sum of its distinct refunds (each refund_id at its largest amount), never below 0,
--   at the static rates ({eur_currencies}, {eur_rates}; 0 for a currency without one);
--   token_id = the id of its token in token_ids, 0 when it has none (no token, or a token never
--   tracked): such an order is in no visitor set, so it counts in no funnel figure;
--   after_chat = its token has a convo_started (its first copy) in [at − {window_days} days, at);
--   direct = after chat, and the token clicked in the chat (a click_through with data.item_id)
--   one of the order's items in that same span.
-- Use: `FROM {{> shared/window_orders_after_chat}}`.
(
    SELECT o.token_id AS token_id, o.at AS at, o.revenue AS revenue,
        o.token_id != 0 AND countIf(c.kind = 'chat' AND c.received_at >= o.at - toIntervalDay({window_days:UInt16}) AND c.received_at < o.at) > 0 AS after_chat,
        after_chat AND countIf(c.kind = 'click' AND has(o.item_ids, c.item_id) AND c.received_at >= o.at - toIntervalDay({window_days:UInt16}) AND c.received_at < o.at) > 0 AS direct
    FROM
    (
        SELECT s.order_id AS order_id, s.at AS at, s.item_ids AS item_ids, ids.token_id AS token_id,
            if(s.status = 'paid', greatest(0, s.gross - r.refunded), 0)
                * transform(s.currency, {eur_currencies:Array(String)}, {eur_rates:Array(Float64)}, toFloat64(0)) AS revenue
        FROM
        (
            SELECT order_id,
                argMax(token, version) AS token,
                argMax(placed_at, version) AS at,
                argMax(status, version) AS status,
                argMax(gross_value, version) AS gross,
                argMax(item_ids, version) AS item_ids,
                toString(argMax(currency, version)) AS currency
            FROM orders
            WHERE chatbot_id = {chatbot_id:String}
            GROUP BY order_id
            HAVING at >= {from:DateTime64(3, 'UTC')} AND at <= {to:DateTime64(3, 'UTC')}
        ) AS s
        LEFT JOIN
        (
            SELECT order_id, sum(amount) AS refunded
            FROM (SELECT order_id, refund_id, max(amount) AS amount FROM order_refunds WHERE chatbot_id = {chatbot_id:String} GROUP BY order_id, refund_id)
            GROUP BY order_id
        ) AS r ON r.order_id = s.order_id
        LEFT JOIN
        (
            SELECT token, min(token_id) AS token_id
            FROM token_ids
            WHERE chatbot_id = {chatbot_id:String}
              AND token IN (SELECT token FROM orders WHERE chatbot_id = {chatbot_id:String} AND token != '')
            GROUP BY token
        ) AS ids ON ids.token = s.token
    ) AS o
    LEFT JOIN
    (
        SELECT token_id, received_at, 'chat' AS kind, '' AS item_id
        FROM conversation_starts
        WHERE chatbot_id = {chatbot_id:String}
          AND received_at >= {from:DateTime64(3, 'UTC')} - toIntervalDay({window_days:UInt16})
          AND received_at <= {to:DateTime64(3, 'UTC')}
          AND token_id != 0
          -- A retried beacon's copy is not another start: each start at its first copy.
          AND prev_copy_at = toDateTime64(0, 3, 'UTC')
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
          AND JSONHas(data, 'item_id')
          AND prev_copy_at = toDateTime64(0, 3, 'UTC')
    ) AS c ON c.token_id = o.token_id
    GROUP BY o.order_id, o.token_id, o.at, o.revenue, o.item_ids
    SETTINGS join_use_nulls = 0
) AS purchases_after_chat
