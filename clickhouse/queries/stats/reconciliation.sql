-- Reconciliation of one chatbot's revenue over W = [{from}, {to}] per UTC day (services/dashboard/
-- docs/statistics.md, "reconciliation"): the shop's orders against the tracker's purchases.
--   shop orders = each order once (its latest state) placed in W, any status;
--   tracker purchases = the purchases that count in W: with an order number, the order's first
--   purchase ever when it is in W (order_first_purchases); without one, every purchase in W
--   under the retry rule (it can match no order);
--   matched = shop orders whose order_id is a tracker purchase's order number (at any time),
--   counted on the order's day; shop_only = the other shop orders; tracker_only = tracker
--   purchases whose order number is no order of the shop (or empty), on the purchase's day.
-- Rows (day, matched, shop_only, tracker_only) for the days with any, in day order.
WITH
    shop_ids AS (SELECT DISTINCT order_id FROM orders WHERE chatbot_id = {chatbot_id:String}),
    tracker_nums AS (SELECT DISTINCT order_num FROM order_first_purchases WHERE chatbot_id = {chatbot_id:String})
SELECT day, sum(m) AS matched, sum(s) AS shop_only, sum(t) AS tracker_only
FROM
(
    SELECT toDate(at) AS day, toUInt64(order_id IN tracker_nums) AS m, toUInt64(order_id NOT IN tracker_nums) AS s, toUInt64(0) AS t
    FROM
    (
        SELECT order_id, argMax(placed_at, version) AS at
        FROM orders
        WHERE chatbot_id = {chatbot_id:String}
        GROUP BY order_id
        HAVING at >= {from:DateTime64(3, 'UTC')} AND at <= {to:DateTime64(3, 'UTC')}
    )
    UNION ALL
    SELECT toDate(first.at) AS day, 0, 0, toUInt64(order_num NOT IN shop_ids)
    FROM (SELECT order_num, min(first) AS first FROM order_first_purchases WHERE chatbot_id = {chatbot_id:String} GROUP BY order_num)
    WHERE first.at >= {from:DateTime64(3, 'UTC')} AND first.at <= {to:DateTime64(3, 'UTC')}
    UNION ALL
    SELECT toDate(received_at) AS day, 0, 0, toUInt64(1)
    FROM purchases
    WHERE chatbot_id = {chatbot_id:String}
      AND received_at >= {from:DateTime64(3, 'UTC')}
      AND received_at <= {to:DateTime64(3, 'UTC')}
      AND prev_copy_at < {dedup_lookback_from:DateTime64(3, 'UTC')}
      AND order_num = ''
)
GROUP BY day
HAVING matched + shop_only + tracker_only > 0
ORDER BY day
