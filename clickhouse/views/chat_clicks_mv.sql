-- Every non-bot click_through row naming a product (data.item_id, text or number): the clicks
-- that make an order direct under the revenue source 'orders' (shared/window_orders_after_chat.sql).
SELECT chatbot_id, received_at, token_id,
    if(JSONType(data, 'item_id') = 'String', JSONExtractString(data, 'item_id'), JSONExtractRaw(data, 'item_id')) AS item_id,
    prev_copy_at
FROM events
WHERE event = 'click_through' AND NOT is_bot AND JSONHas(data, 'item_id')
