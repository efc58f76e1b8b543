-- The purchases counting in W for the *_sealed.sql statistics, as the CTE `counted` (id, key,
-- at, revenue): the sealed hours' purchase lists and the unsealed rows' purchases, each
-- purchase once at its earliest copy, then the order rule of shared/counted_purchases.sql,
-- applied when read (an earlier row of a sealed order may arrive after the seal).
-- Use inside a WITH list after shared/unsealed_tokens: `{{> shared/sealed_purchases}},`.
counted AS
(
    -- Each purchase counting in W, once, at its earliest copy: the sealed hours' lists (their
    -- rows count in any window holding the hour) and the unsealed rows; then the order rule
    -- (shared/counted_purchases.sql): one with an order number counts only as its order's
    -- first purchase row ever. `key` is the token when it has no id, '' otherwise.
    SELECT p.id AS id, p.key AS key, p.at AS at, p.revenue AS revenue
    FROM
    (
        SELECT p.id AS id, '' AS key, p.at AS at, p.event_id AS event_id, p.order_num AS order_num, p.revenue AS revenue
        FROM token_hour_sets FINAL
        ARRAY JOIN purchases AS p
        WHERE {{> shared/in_sealed_hours}}
        UNION ALL
        SELECT r.id, r.key, e.at, e.event_id, e.order_num, e.revenue
        FROM
        (
            SELECT token, received_at AS at, event_id, order_num, ifNull(total_value_base, 0) AS revenue
            FROM events
            WHERE {{> shared/window_events rows=(event = 'purchase')}}
              AND {{> shared/unsealed_rows}}
        ) AS e
        INNER JOIN raw_tokens AS r ON r.token = e.token
    ) AS p
    LEFT JOIN
    (
        -- FINAL merges each order's parts (cheaper than GROUP BY); the tuple split in two
        -- compares faster than as a tuple.
        SELECT order_num, first.1 AS first_at, first.2 AS first_id
        FROM order_first_purchases FINAL
        WHERE chatbot_id = {chatbot_id:String}
    ) AS o ON o.order_num = p.order_num
    WHERE p.order_num = '' OR (o.first_at = p.at AND o.first_id = p.event_id)
)
