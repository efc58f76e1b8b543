-- The shop's orders that name one visitor token of a chatbot (services/ingest/README.md,
-- "Orders"), each order in its latest state, oldest first: part of the visitor's export.
SELECT
    order_id, toString(placed_at) AS placed_at, currency, item_ids, item_quantities, item_values, status,
    refund_ids, arrayMap(x -> toString(x), refund_ats) AS refund_ats, refund_amounts,
    gross_value, refunded_value, net_value, net_value_base, source
FROM orders FINAL
WHERE chatbot_id = {chatbot_id:String} AND token = {token:String}
ORDER BY placed_at, order_id
