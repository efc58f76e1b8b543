-- The cart statistic of one chatbot over W = [{from}, {to}] (see "cart" in the statistics
-- definitions, services/dashboard/README.md), one row per half of V: `chatted` = the tokens with a
-- convo_started in W, and the others; the caller adds the halves up for the whole of V.
--   V (visitor tokens in W); A = tokens of V with an added_to_cart in W; G = with a go_to_cart;
--   B = with a counted purchase in W (shared/counted_purchases.sql: the purchases statistic's P).
--   abandoned_value = Σ over the added_to_cart events in W of the tokens in A − B of their items'
--   EUR value (shared/cart_value.sql: an item in an unknown currency counts 0).
-- One read of the window (shared/window_rows.sql): retried beacons and bots removed; the order
-- rule is applied to each token's purchases.
WITH
    by_token AS
    (
        -- One row per token of V.
        SELECT
            {{> shared/token_purchases}},
            max(e.event = 'added_to_cart') AS added,
            max(e.event = 'go_to_cart') AS went,
            sumIf({{> shared/cart_value}}, e.event = 'added_to_cart') AS cart_value
        FROM {{> shared/window_rows rows=(event IN ('visitor', 'convo_started', 'purchase', 'added_to_cart', 'go_to_cart'))}}
        GROUP BY e.token
        HAVING max(e.event = 'visitor')
    ),
    per_token AS
    (
        SELECT chatted, added, went, notEmpty(purchases) AS purchased, cart_value
        FROM by_token
    )
SELECT
    chatted,
    count() AS users,
    countIf(added) AS users_added_to_cart,
    countIf(went) AS users_went_to_cart,
    countIf(purchased) AS users_purchased,
    countIf(added AND purchased) AS users_added_and_purchased,
    countIf(added AND NOT purchased) AS users_abandoned,
    sumIf(cart_value, added AND NOT purchased) AS abandoned_value
FROM per_token
GROUP BY chatted
