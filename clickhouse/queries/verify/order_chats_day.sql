-- order_chats (migration 0230) computed again for the orders of one chatbot placed in [{from},
-- {to}) (a repair's day, after clear_day.sql deleted their rows): its view's SELECT over those
-- orders, each reported state with a token id, and the chats stored now.
INSERT INTO order_chats
WITH orders AS (
    SELECT * FROM orders
    WHERE chatbot_id = {chatbot_id:String} AND placed_at >= {from:DateTime64(3, 'UTC')} AND placed_at < {to:DateTime64(3, 'UTC')}
)
{{> views/order_chats_orders_mv}}
