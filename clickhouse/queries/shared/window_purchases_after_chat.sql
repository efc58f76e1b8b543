-- The purchases that count in W (shared/window_purchases.sql), each with after_chat: its token
-- has a convo_started in W that counts (retry rule as in shared/window_events.sql) strictly
-- earlier than the purchase. A FROM clause of rows (token_id, at, revenue, after_chat).
-- The earliest conversation start in W is looked up only for the tokens with a purchase row in W
-- (the narrow `purchases` table: a superset of the purchasing tokens, cheap to read).
-- Its settings are its own (a SETTINGS clause of a subquery holds inside it): join_use_nulls = 0
-- (a purchase without a chat gets first_chat_at 0) and use_index_for_in_with_subqueries = 0 (the
-- token set of the IN is not a key of conversation_starts, and analysing the index with it
-- costs ten times the scan).
-- Use: `FROM {{> shared/window_purchases_after_chat}}`.
(
    SELECT p.token_id AS token_id, p.at AS at, p.revenue AS revenue,
        c.first_chat_at != 0 AND p.at > c.first_chat_at AS after_chat
    FROM {{> shared/window_purchases}}
    LEFT JOIN
    (
        SELECT token_id, min(received_at) AS first_chat_at
        FROM conversation_starts
        WHERE chatbot_id = {chatbot_id:String}
          AND received_at >= {from:DateTime64(3, 'UTC')}
          AND received_at <= {to:DateTime64(3, 'UTC')}
          AND prev_copy_at < {dedup_lookback_from:DateTime64(3, 'UTC')}
          AND token_id IN
          (
              SELECT token_id
              FROM purchases
              WHERE chatbot_id = {chatbot_id:String}
                AND received_at >= {from:DateTime64(3, 'UTC')}
                AND received_at <= {to:DateTime64(3, 'UTC')}
          )
        GROUP BY token_id
    ) AS c ON c.token_id = p.token_id
    SETTINGS join_use_nulls = 0, use_index_for_in_with_subqueries = 0
) AS purchases_after_chat
