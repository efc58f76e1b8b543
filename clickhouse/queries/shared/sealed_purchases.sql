-- The purchases counting in W for the *_sealed.sql statistics, as the CTE `counted`: the sealed
-- hours' purchase lists and the unsealed rows' purchases, each purchase once at its earliest
-- copy, under the order rule of shared/counted_purchases.sql. Columns: id, key (the token when
-- it has no id, '' otherwise), at, revenue; from_seal (from a sealed hour); chatted_before (sealed
-- only: its token started a conversation counting in W before it, as far as the seal saw);
-- is_v, in_control, in_test, raw_chat (unsealed only: its token's flags and first conversation
-- in the unsealed rows).
-- Use inside a WITH list after shared/unsealed_tokens: `{{> shared/sealed_purchases}},`.
counted AS
(
    -- A sealed purchase counts if it was its order's first row when sealed (purchases_first,
    -- migration 0070) and no earlier row of the order arrived since the sealer last checked:
    -- the sealer seals an hour again once such a row arrived before its check.
    SELECT p.id AS id, '' AS key, p.at AS at, p.revenue AS revenue, true AS from_seal,
        -- Its token's latest conversation before it without an earlier copy is in W (a copy
        -- counting in W is in the unsealed rows: migration 0070).
        p.chat >= {from:DateTime64(3, 'UTC')} AS chatted_before,
        false AS is_v, false AS in_control, false AS in_test, toDateTime64('2299-12-31 00:00:00', 3, 'UTC') AS raw_chat
    FROM
    (
        SELECT p.id AS id, p.at AS at, p.event_id AS event_id, p.order_num AS order_num, p.revenue AS revenue, chat
        FROM token_hour_sets FINAL
        ARRAY JOIN purchases AS p, purchases_first AS first, purchases_chat AS chat
        WHERE {{> shared/in_sealed_hours}} AND first
    ) AS p
    LEFT JOIN
    (
        SELECT order_num, min((received_at, event_id)) AS first
        FROM sealed_hour_arrivals
        WHERE arrived_at >= (SELECT max(checked_until) FROM sealed_purchases_checked)
          AND chatbot_id = {chatbot_id:String} AND event = 'purchase'
        GROUP BY order_num
    ) AS a ON a.order_num = p.order_num
    WHERE a.order_num = '' OR a.first >= (p.at, p.event_id)
    UNION ALL
    {{> shared/unsealed_purchases}}
)
