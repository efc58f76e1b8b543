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
    WITH {{> shared/late_order_token_ids}} AS late_ids
    SELECT s.order_id AS order_id, s.at AS at, s.item_ids AS item_ids,
        -- The lookup runs only where the writer stored no id (if is evaluated short-circuit).
        if(s.token_id != 0, s.token_id, transform(s.token, late_ids.1, late_ids.2, toUInt64(0))) AS token_id,
        if(s.status = 'paid', greatest(0, s.gross - r.refunded), 0)
            * transform(s.currency, {eur_currencies:Array(String)}, {eur_rates:Array(Float64)}, toFloat64(0)) AS revenue
    FROM
    (
        -- FINAL: each order's row of the largest version (the same content when two share it),
        -- merged before the time is tested outside on that row, so an order whose latest state
        -- is outside W is left out even when an older report of it is inside.
        SELECT * FROM
        (
            SELECT order_id, token, token_id, placed_at AS at, status, gross_value AS gross, item_ids, toString(currency) AS currency
            FROM orders FINAL
            WHERE chatbot_id = {chatbot_id:String}
        )
        WHERE at >= {from:DateTime64(3, 'UTC')} AND at <= {to:DateTime64(3, 'UTC')}
    ) AS s
    LEFT JOIN
    (
        SELECT order_id, sum(amount) AS refunded
        FROM (SELECT order_id, refund_id, max(amount) AS amount FROM order_refunds WHERE chatbot_id = {chatbot_id:String} GROUP BY order_id, refund_id)
        GROUP BY order_id
    ) AS r ON r.order_id = s.order_id
    -- join_algorithm 'hash': the refunds (the smaller side) always build the table. Left to
    -- choose, the planner took parallel_hash once the orders' part had been mutated (an erasure's
    -- UPDATE), and the join cost five times as much.
    SETTINGS join_algorithm = 'hash', join_use_nulls = 0
) AS o
