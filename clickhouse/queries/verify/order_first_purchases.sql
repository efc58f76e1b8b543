-- order_first_purchases against its view's SELECT (views/order_first_purchases_mv) over all the
-- chatbot's purchase rows, whatever the scope's time (an order's first purchase may be earlier):
-- compared for the orders whose stored or expected first purchase is in the scope.
SELECT 'order_first_purchases' AS check, chatbot_id, toDate(if(e.order_num != '', e.first.at, s.first.at)) AS day, order_num AS key,
    if(s.order_num = '', '', toString(s.first)) AS stored, if(e.order_num = '', '', toString(e.first)) AS expected
FROM
(
    SELECT chatbot_id, order_num, min(first) AS first
    FROM order_first_purchases
    WHERE ({chatbot_id:String} = '' OR chatbot_id = {chatbot_id:String})
    GROUP BY chatbot_id, order_num
    HAVING first.at >= {from:DateTime64(3, 'UTC')} AND first.at < {to:DateTime64(3, 'UTC')}
) AS s
FULL OUTER JOIN
(
    SELECT chatbot_id, order_num, min(first) AS first
    FROM
    (
        WITH events AS (SELECT * FROM events WHERE {chatbot_id:String} = '' OR chatbot_id = {chatbot_id:String})
        {{> views/order_first_purchases_mv}}
    )
    GROUP BY chatbot_id, order_num
    HAVING first.at >= {from:DateTime64(3, 'UTC')} AND first.at < {to:DateTime64(3, 'UTC')}
) AS e USING (chatbot_id, order_num)
WHERE s.order_num = '' OR e.order_num = '' OR s.first != e.first
SETTINGS join_use_nulls = 0
