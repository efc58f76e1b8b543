-- The shop's orders placed in W = [{from}, {to}] (revenue source 'orders': services/dashboard/
-- docs/statistics.md, "Revenue source"), as a FROM clause of rows (token_id, at, revenue,
-- after_chat) like shared/window_purchases_after_chat.sql:
--   each order once, in its latest state (the largest version: clickhouse/README.md, "orders");
--   at = its placed_at; revenue = its net in EUR: 0 when cancelled or refunded, else its gross
--   less the sum of its distinct refunds (each refund_id at its largest amount), never below 0,
--   at the static rates ({eur_currencies}, {eur_rates}; 0 for a currency without one);
--   token_id = the id of its token in token_ids, 0 when it has none (no token, or a token never
--   tracked): such an order is in no visitor set, so it counts in no funnel figure;
--   after_chat = its token has a convo_started (its first copy) in [at − {window_days} days, at).
-- Use: `FROM {{> shared/window_orders_after_chat}}`.
(
    SELECT o.token_id AS token_id, o.at AS at, o.revenue AS revenue,
        o.token_id != 0 AND countIf(c.received_at >= o.at - toIntervalDay({window_days:UInt16}) AND c.received_at < o.at) > 0 AS after_chat
    FROM
    (
        SELECT s.order_id AS order_id, s.at AS at, ids.token_id AS token_id,
            if(s.status = 'paid', greatest(0, s.gross - r.refunded), 0)
                * transform(s.currency, {eur_currencies:Array(String)}, {eur_rates:Array(Float64)}, toFloat64(0)) AS revenue
        FROM
        (
            SELECT order_id,
                argMax(token, version) AS token,
                argMax(placed_at, version) AS at,
                argMax(status, version) AS status,
                argMax(gross_value, version) AS gross,
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
        SELECT token_id, received_at
        FROM conversation_starts
        WHERE chatbot_id = {chatbot_id:String}
          AND received_at >= {from:DateTime64(3, 'UTC')} - toIntervalDay({window_days:UInt16})
          AND received_at <= {to:DateTime64(3, 'UTC')}
          AND token_id != 0
          -- A retried beacon's copy is not another start: each start at its first copy.
          AND prev_copy_at = toDateTime64(0, 3, 'UTC')
    ) AS c ON c.token_id = o.token_id
    GROUP BY o.order_id, o.token_id, o.at, o.revenue
    SETTINGS join_use_nulls = 0
) AS purchases_after_chat
