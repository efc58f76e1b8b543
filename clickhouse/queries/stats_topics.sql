-- The ClickHouse half of revenue by topic (see "topics" in the statistics definitions,
-- services/dashboard/README.md): for the visitor tokens {tokens} of the conversations PostgreSQL
-- found (C), what they did in W = [{from}, {to}]. One row per token of {tokens} with a row in W:
--   in_v            a visitor event in W (the token is in V, engagement's visitor set);
--   added           an added_to_cart in W; cart_value = those events' items in EUR
--                   (shared/cart_value.sql), for the abandoned carts (A − B of "cart");
--   purchase_times_ms / purchase_revenues
--                   its counted purchases in W (shared/counted_purchases.sql: each purchase once,
--                   each order number once over all history), their times (epoch ms) and EUR
--                   revenue, element by element; the caller matches them with the conversations.
-- The caller sends the tokens in batches small enough for a bound parameter; every figure is a
-- token's own, so batches add up to the whole.
WITH
    by_token AS
    (
        SELECT
            e.token AS token,
            max(e.event = 'visitor') AS in_v,
            max(e.event = 'added_to_cart') AS added,
            sumIf({{> shared/cart_value}}, e.event = 'added_to_cart') AS cart_value,
            {{> shared/counted_purchases}} AS purchases
        FROM {{> shared/window_rows rows=(token IN {tokens:Array(String)} AND event IN ('visitor', 'purchase', 'added_to_cart'))}}
        GROUP BY e.token
    )
SELECT
    token,
    in_v,
    added,
    cart_value,
    arrayMap(p -> toUnixTimestamp64Milli(p.at), purchases) AS purchase_times_ms,
    arrayMap(p -> p.revenue, purchases) AS purchase_revenues
FROM by_token
