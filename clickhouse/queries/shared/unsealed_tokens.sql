-- The unsealed rows of W (shared/unsealed_rows.sql after shared/sealed_hours.sql) by token, for
-- the *_sealed.sql statistics, as two WITH-list entries: `raw`, a scalar (computed once per
-- query, where a CTE would be computed again at each use) holding one tuple per token:
-- (token, id (0: none yet), in V, chatted, first chat, in control, in test, purchased); and
-- `raw_tokens`, the same as rows, with `key` = the token when it has no id, '' otherwise (a
-- purchase or a token is identified by (id, key)). A token without an id is in no sealed hour.
-- Use inside a WITH list after shared/sealed_hours: `{{> shared/unsealed_tokens}},`.
(
    -- The unsealed rows' tokens, one tuple each: (token, id (0: none yet), in V, chatted,
    -- first chat, in control, in test, purchased).
    SELECT groupArray((r.token, joinGet('token_id_index', 'id', {chatbot_id:String}, r.token), r.is_v, r.chatted, r.first_chat_at, r.in_control, r.in_test, r.bought))
    -- Ids from token_id_index (migration 0080), a hash lookup per token; an id the index does
    -- not hold yet is in no sealed hour W reads (stats_sealed_hours.sql), so 0 is right for it.
    FROM
    (
        SELECT
            token,
            max(event = 'visitor') AS is_v,
            max(event = 'convo_started') AS chatted,
            minIf(received_at, event = 'convo_started') AS first_chat_at,
            max(ifNull(ab_group = 'control', false)) AS in_control,
            max(ifNull(ab_group = 'test', false)) AS in_test,
            max(event = 'purchase') AS bought
        FROM events
        WHERE {{> shared/window_events rows=(event IN ('visitor', 'convo_started', 'purchase') OR ab_group IN ('control', 'test'))}}
          AND {{> shared/unsealed_rows}}
        GROUP BY token
    ) AS r
) AS raw,
raw_tokens AS
(
    SELECT t.1 AS token, t.2 AS id, if(t.2 = 0, t.1, '') AS key, t.3 AS is_v, t.4 AS chatted, t.5 AS first_chat_at, t.6 AS in_control, t.7 AS in_test, t.8 AS bought
    FROM (SELECT arrayJoin(raw) AS t)
)
