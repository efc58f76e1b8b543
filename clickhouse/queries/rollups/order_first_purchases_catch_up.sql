-- The rows stored while a rebuild ran went through the view into the live table, whose data the
-- rebuilt copy then replaced: put them back (min is idempotent, so an overlap counts once).
INSERT INTO order_first_purchases
{{> shared/order_first_purchases rows=(inserted_at >= {since:DateTime64(3, 'UTC')})}}
