-- The first purchase row ever (order_first_purchases, migration 0030) of each order number the
-- subquery `orders` gives, as (order_num, first): the IN filter runs on the rollup's rows before
-- they are merged (GROUP BY, as an AggregatingMergeTree needs), so only the wanted orders are
-- merged. With FINAL instead, the big-shop benchmark's kept purchases read spent ~27 ms merging
-- the chatbot's ~170k orders to find 110: a few order numbers spread over every granule of the
-- primary key (chatbot_id, order_num), so the key skips nothing either way.
-- Use as a join's right side: `LEFT JOIN ({{> shared/order_firsts_of orders=(SELECT order_num FROM …)}}) AS o ON …`.
SELECT order_num, min(first) AS first
FROM order_first_purchases
WHERE chatbot_id = {chatbot_id:String}
  AND order_num IN {{orders}}
GROUP BY order_num
