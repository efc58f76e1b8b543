-- The ClickHouse half of revenue by topic (see "topics" in the statistics definitions,
-- services/dashboard/README.md): for the visitor tokens {tokens} of the conversations PostgreSQL
-- found (C), what they did in W = [{from}, {to}]. One row per token of {tokens} with a visitor,
-- added_to_cart or counted purchase in W:
--   in_v            a visitor event in W (the token is in V, engagement's visitor set);
--   added           an added_to_cart in W; cart_value = those events' items in EUR
--                   (shared/cart_value.sql), for the abandoned carts (A − B of "cart");
--   purchases       its counted purchases in W (shared/window_purchases.sql: each purchase once,
--                   each order number once over all history), each (at_ms: epoch ms, revenue:
--                   EUR); the caller matches them with the conversations.
-- The tokens' ids come from token_ids; the caller sends the tokens in batches small enough for
-- a bound parameter; every figure is a token's own, so batches add up to the whole.
WITH
    ids AS
    (
        SELECT token, min(token_id) AS token_id
        FROM token_ids
        WHERE chatbot_id = {chatbot_id:String} AND token IN {tokens:Array(String)}
        GROUP BY token
    ),
    sets AS
    (
        SELECT groupBitmapMergeStateIf(tokens, kind = 'visitor') AS visitors
        FROM {{> shared/window_token_sets kinds=('visitor')}}
    ),
    bought AS
    (
        SELECT
            token_id,
            groupArray(CAST((toUnixTimestamp64Milli(at), revenue), 'Tuple(at_ms Int64, revenue Float64)')) AS purchases
        FROM {{> shared/window_purchases}}
        WHERE token_id IN (SELECT token_id FROM ids)
        GROUP BY token_id
    ),
    carts AS
    (
        SELECT token_id, 1 AS added, sum({{> shared/cart_value}}) AS cart_value
        FROM events AS e
        WHERE {{> shared/window_events rows=(event = 'added_to_cart' AND token_id IN (SELECT token_id FROM ids))}}
        GROUP BY token_id
    )
SELECT
    ids.token AS token,
    bitmapContains((SELECT visitors FROM sets), ids.token_id) AS in_v,
    ifNull(carts.added, 0) AS added,
    ifNull(carts.cart_value, 0) AS cart_value,
    bought.purchases AS purchases
FROM ids
LEFT JOIN carts ON carts.token_id = ids.token_id
LEFT JOIN bought ON bought.token_id = ids.token_id
WHERE in_v OR added = 1 OR notEmpty(purchases)
SETTINGS join_use_nulls = 0
