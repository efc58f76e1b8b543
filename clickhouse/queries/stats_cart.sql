-- The cart statistic of one chatbot over W = [{from}, {to}] (see "cart" in the statistics
-- definitions, services/dashboard/README.md), one row per half of V: `chatted` = the tokens with a
-- convo_started in W, and the others; the caller adds the halves up for the whole of V.
--   V (visitor tokens in W); A = tokens of V with an added_to_cart in W; G = with a go_to_cart;
--   B = with a counted purchase in W (shared/window_purchases.sql: the purchases statistic's P).
--   abandoned_value = Σ over the added_to_cart events in W of the tokens in A − B of their items'
--   EUR value (shared/cart_value.sql: an item in an unknown currency counts 0).
-- The sets are the window's bitmaps (shared/window_token_sets.sql); only the added_to_cart rows
-- are read from `events`, for their items.
WITH
    sets AS
    (
        SELECT
            anyIf(tokens, kind = 'visitor') AS visitors,
            anyIf(tokens, kind = 'convo_started') AS chatters,
            anyIf(tokens, kind = 'added_to_cart') AS adders,
            anyIf(tokens, kind = 'go_to_cart') AS goers
        FROM {{> shared/window_token_sets kinds=('visitor', 'convo_started', 'added_to_cart', 'go_to_cart')}}
    ),
    buyers AS
    (
        SELECT groupBitmapState(token_id) AS buyer_tokens
        FROM {{> shared/window_purchases visitors=(visitors)}}
    ),
    cart_values AS
    (
        -- Per token of V that added to its cart: the EUR value of its added_to_cart events.
        SELECT token_id, sum({{> shared/cart_value}}) AS cart_value
        FROM events AS e
        WHERE {{> shared/window_events rows=(event = 'added_to_cart')}}
        GROUP BY token_id
    ),
    halves AS
    (
        SELECT 1 AS chatted, bitmapAnd(visitors, chatters) AS half FROM sets
        UNION ALL
        SELECT 0 AS chatted, bitmapAndnot(visitors, chatters) AS half FROM sets
    ),
    abandoned AS
    (
        -- The abandoned value of each half: tokens of V in A and not in B.
        SELECT
            bitmapContains((SELECT chatters FROM sets), token_id) AS half_chatted,
            sum(cart_value) AS half_abandoned_value
        FROM cart_values
        WHERE bitmapContains((SELECT visitors FROM sets), token_id)
          AND NOT bitmapContains((SELECT buyer_tokens FROM buyers), token_id)
        GROUP BY half_chatted
    )
SELECT
    halves.chatted AS chatted,
    bitmapCardinality(half) AS users,
    bitmapAndCardinality(half, adders) AS users_added_to_cart,
    bitmapAndCardinality(half, goers) AS users_went_to_cart,
    bitmapAndCardinality(half, buyer_tokens) AS users_purchased,
    bitmapCardinality(bitmapAnd(bitmapAnd(half, adders), buyer_tokens)) AS users_added_and_purchased,
    bitmapCardinality(bitmapAndnot(bitmapAnd(half, adders), buyer_tokens)) AS users_abandoned,
    ifNull(abandoned.half_abandoned_value, 0) AS abandoned_value
FROM halves
CROSS JOIN sets
CROSS JOIN buyers
LEFT JOIN abandoned ON abandoned.half_chatted = halves.chatted
SETTINGS join_use_nulls = 1
