-- The purchase funnel of stats_purchases.sql without its A/B block: the same definitions, for a
-- chatbot without abTestEnabled, whose page shows no A/B block. Leaving out the A/B-marked rows,
-- the two group flags and their eight sums made this query cheaper than stats_purchases.sql.
WITH
    by_token AS
    (
        -- One row per token of V.
        SELECT
            {{> shared/token_purchases}}
        FROM {{> shared/window_rows rows=(event IN ('visitor', 'convo_started', 'purchase'))}}
        GROUP BY e.token
        HAVING max(e.event = 'visitor')
    ),
    per_token AS
    (
        SELECT
            chatted,
            {{> shared/token_purchase_figures}}
        FROM by_token
    )
SELECT
    count() AS total_users,
    countIf(chatted) AS total_users_chatted,
    {{> shared/funnel_totals}}
FROM per_token
