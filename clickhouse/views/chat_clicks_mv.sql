-- Every non-bot click_through row naming a product (data.item_id, text or number): the clicks
-- that make an order direct under the revenue source 'orders' (shared/window_orders_after_chat.sql).
-- The JSON is parsed only for the click rows: in one WHERE, the condition on `data` would be
-- computed for every row of the block.
SELECT chatbot_id, received_at, token_id,
    if(JSONType(data, 'item_id') = 'String', JSONExtractString(data, 'item_id'), JSONExtractRaw(data, 'item_id')) AS item_id,
    prev_copy_at
FROM (SELECT chatbot_id, received_at, token_id, data, prev_copy_at FROM events WHERE event = 'click_through' AND NOT is_bot)
WHERE JSONHas(data, 'item_id')
