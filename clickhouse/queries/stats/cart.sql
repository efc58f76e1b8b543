-- The cart statistic of one chatbot over W = [{from}, {to}] (see "cart" in the statistics
-- definitions, services/dashboard/README.md), one row per half of V: `chatted` = the tokens with a
-- convo_started in W, and the others; the caller adds the halves up for the whole of V.
--   V (visitor tokens in W); A = tokens of V with an added_to_cart in W; G = with a go_to_cart;
--   B = with a counted purchase in W (shared/window_purchases.sql: the purchases statistic's P).
--   abandoned_value = Σ over the added_to_cart events in W of the tokens in A − B of their items'
--   EUR value (shared/cart_value.sql: an item in an unknown currency counts 0).
-- The sets are the window's bitmaps (shared/window_token_sets.sql), read once; only the
-- added_to_cart rows are read from `events`, for their items.
WITH
    sets AS
    (
        SELECT
            groupBitmapMergeStateIf(tokens, kind = 'visitor') AS visitors,
            groupBitmapMergeStateIf(tokens, kind = 'convo_started') AS chatters,
            groupBitmapMergeStateIf(tokens, kind = 'added_to_cart') AS adders,
            groupBitmapMergeStateIf(tokens, kind = 'go_to_cart') AS goers
        FROM {{> shared/window_token_sets kinds=('visitor', 'convo_started', 'added_to_cart', 'go_to_cart')}}
    ),
    buyers AS
    (
        -- Tokens with a counted purchase in W; intersected with V's halves below, they are B.
        SELECT groupBitmapState(token_id) AS buyer_tokens
        FROM {{> shared/window_purchases}}
    ),
    carts AS
    (
        -- The EUR value of each token's added_to_cart events in W, as parallel arrays (one row).
        SELECT groupArray(token_id) AS cart_ids, groupArray(cart_value) AS cart_values
        FROM
        (
            SELECT token_id, sum({{> shared/cart_value}}) AS cart_value
            FROM events AS e
            WHERE {{> shared/window_events rows=(event = 'added_to_cart')}}
            GROUP BY token_id
        )
    ),
    halves AS
    (
        -- V's two halves, one row each, from the one row of `sets` (a CTE read twice is computed twice).
        SELECT
            chatted,
            if(chatted = 1, bitmapAnd(visitors, chatters), bitmapAndnot(visitors, chatters)) AS half,
            adders,
            goers
        FROM sets
        ARRAY JOIN [toUInt8(1), toUInt8(0)] AS chatted
    )
SELECT
    chatted,
    bitmapCardinality(half) AS users,
    bitmapAndCardinality(half, adders) AS users_added_to_cart,
    bitmapAndCardinality(half, goers) AS users_went_to_cart,
    bitmapAndCardinality(half, buyer_tokens) AS users_purchased,
    bitmapCardinality(bitmapAnd(bitmapAnd(half, adders), buyer_tokens)) AS users_added_and_purchased,
    bitmapCardinality(bitmapAndnot(bitmapAnd(half, adders), buyer_tokens)) AS users_abandoned,
    arraySum((id, v) -> if(bitmapContains(bitmapAndnot(bitmapAnd(half, adders), buyer_tokens), id), v, 0), cart_ids, cart_values) AS abandoned_value
FROM halves
CROSS JOIN buyers
CROSS JOIN carts
