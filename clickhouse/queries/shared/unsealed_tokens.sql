-- The unsealed rows of W (shared/unsealed_rows.sql after shared/sealed_hours.sql) by token, for
-- the *_sealed.sql statistics, as the WITH-list entry `raw_tokens`: one row per token with
-- (token, id (0: none yet), key = the token when it has no id, '' otherwise (a purchase or a
-- token is identified by (id, key)), in V, chatted, first chat, in control, in test,
-- purchased). A token without an id is in no sealed hour.
-- MATERIALIZED (the query ends with `SETTINGS enable_materialized_cte = 1`): computed once
-- into a temporary table that each use reads. A plain CTE is computed again at each use, and a
-- scalar subquery holding it is analysed again in every subquery that names it (measured on
-- the demo: ~10 ms each time, several times per statistic).
-- Use inside a WITH list after shared/sealed_hours: `{{> shared/unsealed_tokens}},`.
raw_tokens AS MATERIALIZED
(
    SELECT r.token AS token, t.id AS id, if(t.id = 0, r.token, '') AS key, r.is_v AS is_v, r.chatted AS chatted,
        r.first_chat_at AS first_chat_at, r.in_control AS in_control, r.in_test AS in_test, r.bought AS bought
    -- The rows' tokens on the build side (few), the chatbot's ids streamed past them, as in
    -- stats_engagement_sealed.sql (measured: filtering token_ids by an IN set of them was slower).
    FROM (SELECT token, id FROM token_ids WHERE chatbot_id = {chatbot_id:String}) AS t
    RIGHT JOIN
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
    ) AS r ON t.token = r.token
    -- Unmatched ids read 0 (none yet), not NULL, whatever the server's default.
    SETTINGS join_use_nulls = 0
)
