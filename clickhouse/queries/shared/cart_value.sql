-- The EUR value of one event's items: Σ value × quantity × the item currency's rate, the rates
-- being the static table ingest converts purchases with (packages/events/src/currency.ts), bound
-- as {eur_currencies} and {eur_rates}. Unlike a purchase's total_value_base (NULL when any item's
-- currency is unknown), an item in a currency outside the table counts 0 and the rest still count:
-- an abandoned cart's value is an estimate of what was left, not a booked amount.
-- Aliases (`price`, `id`) and the default quantity 1 were resolved at ingest into `items`.
-- Use in an aggregate over rows of `events AS e`:
-- `sumIf({{> shared/cart_value}}, e.event = 'added_to_cart')`.
arraySum(
    item -> item.value * item.quantity * transform(toString(item.currency), {eur_currencies:Array(String)}, {eur_rates:Array(Float64)}, toFloat64(0)),
    e.items)
