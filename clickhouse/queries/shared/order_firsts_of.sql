-- The first purchase row ever (order_first_purchases, migration 0030) of each order number the
-- subquery `orders` gives, as (order_num, first): the primary key (chatbot_id, order_num) finds
-- them without reading the chatbot's other orders.
-- Use as a join's right side: `LEFT JOIN ({{> shared/order_firsts_of orders=(SELECT order_num FROM …)}}) AS o ON …`.
SELECT order_num, first
FROM order_first_purchases FINAL
WHERE chatbot_id = {chatbot_id:String}
  AND order_num IN {{orders}}
