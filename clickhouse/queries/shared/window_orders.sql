-- The shop's orders placed in W = [{from}, {to}] (revenue source 'orders': services/dashboard/
-- docs/statistics.md, "Revenue source"), as a FROM clause of rows (order_id, token_id, at,
-- item_ids, revenue), before any attribution:
--   each order once, in its latest state (the largest version: clickhouse/README.md, "orders");
--   at = its placed_at; revenue = its net in EUR: 0 when cancelled or refunded, else its gross
--   less the sum of its distinct refunds (each refund_id at its largest amount), never below 0,
--   at the static rates ({eur_currencies}, {eur_rates}; 0 for a currency without one);
--   token_id = the id of its token: the one its writer stored with it (migration 0200), else
--   (0: unknown when stored) looked up now (shared/late_order_token_ids.sql); 0 when
--   it has none (no token, or a token never tracked): such an order is in no visitor set, so it
--   counts in no funnel figure.
-- Use: `FROM {{> shared/window_orders}}`; shared/window_orders_after_chat.sql adds the rule.
(
    SELECT s.order_id AS order_id, s.at AS at, s.item_ids AS item_ids, if(s.token_id != 0, s.token_id, ids.token_id) AS token_id,
        if(s.status = 'paid', greatest(0, s.gross - r.refunded), 0)
            * transform(s.currency, {eur_currencies:Array(String)}, {eur_rates:Array(Float64)}, toFloat64(0)) AS revenue
    FROM
    (
        SELECT order_id,
            argMax(token, version) AS token,
            argMax(token_id, version) AS token_id,
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
    LEFT JOIN {{> shared/late_order_token_ids}} AS ids ON ids.token = s.token
    SETTINGS join_use_nulls = 0
) AS o
