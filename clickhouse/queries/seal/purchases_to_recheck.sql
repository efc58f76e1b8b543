-- The sealed hours whose purchases' facts (migration 0070) a row arriving at or after {since}
-- (the previous check's sealed_purchases_checked) changes: an earlier purchase row of the
-- order of a purchase sealed as its order's first, or a conversation of a purchase's token
-- before it that its seal did not know. (chatbot_id, hour as Unix seconds); the sealer seals
-- them again, after which those rows change nothing. Only hours from the earliest such row's
-- hour on can hold a later purchase, and only the chatbots with such rows: usually a few recent
-- hours or none.
WITH
    arrived AS
    (
        SELECT chatbot_id, event, token, order_num, received_at, event_id
        FROM sealed_hour_arrivals
        WHERE arrived_at >= {since:DateTime64(3, 'UTC')}
    ),
    (SELECT toStartOfHour(min(received_at)) FROM arrived) AS earliest_hour,
    sealed AS
    (
        SELECT chatbot_id, hour, p.id AS id, p.order_num AS order_num, (p.at, p.event_id) AS purchase, first, chat
        FROM token_hour_sets FINAL
        ARRAY JOIN purchases AS p, purchases_first AS first, purchases_chat AS chat
        WHERE hour >= earliest_hour AND chatbot_id IN (SELECT chatbot_id FROM arrived)
    )
SELECT DISTINCT s.chatbot_id AS chatbot_id, toUInt32(s.hour) AS hour
FROM
(
    SELECT chatbot_id, order_num, min((received_at, event_id)) AS first
    FROM arrived
    WHERE event = 'purchase'
    GROUP BY chatbot_id, order_num
) AS a
INNER JOIN sealed AS s ON s.chatbot_id = a.chatbot_id AND s.order_num = a.order_num
WHERE s.first AND a.first < s.purchase
UNION DISTINCT
SELECT DISTINCT s.chatbot_id AS chatbot_id, toUInt32(s.hour) AS hour
FROM
(
    -- The conversations without an earlier copy as stored (a copy that counts somewhere is read
    -- as a row: migration 0070). Tokens looked up by the primary key of token_ids.
    SELECT e.chatbot_id AS chatbot_id, t.id AS id, e.received_at AS at
    FROM
    (
        SELECT chatbot_id, token, received_at
        FROM events
        WHERE (chatbot_id, received_at, event_id) IN (SELECT chatbot_id, received_at, event_id FROM arrived WHERE event = 'convo_started')
          AND event = 'convo_started' AND NOT is_bot
          AND prev_copy_at = toDateTime64(0, 3, 'UTC')
    ) AS e
    INNER JOIN
    (
        SELECT chatbot_id, token, id
        FROM token_ids
        WHERE (chatbot_id, token) IN (SELECT chatbot_id, token FROM arrived WHERE event = 'convo_started')
    ) AS t ON t.chatbot_id = e.chatbot_id AND t.token = e.token
) AS c
INNER JOIN sealed AS s ON s.chatbot_id = c.chatbot_id AND s.id = c.id
-- Before the purchase and not known to its seal (later than the latest one it knew).
WHERE c.at < s.purchase.1 AND c.at > s.chat
