-- Daily series of a chatbot with sealed hours: the same definitions and result columns as
-- stats_timeseries.sql (read it first), read as stats_purchases_sealed.sql reads purchases.
-- Per UTC day: visitors = the day's sealed hours' visitor bitmaps OR-ed with the day's unsealed
-- visitor rows' ids, plus its unsealed tokens without an id; conversations = the sealed hours'
-- counts plus the unsealed rows; purchases and revenue = the purchases the purchases statistic
-- counts (shared/sealed_purchases.sql, token in V over the whole window) by day.
WITH
    {{> shared/sealed_hours}},
    {{> shared/unsealed_tokens}},
    (
        -- V over W as a bitmap of ids: whose purchases count.
        SELECT groupBitmapOrState(v)
        FROM
        (
            SELECT visitors AS v
            FROM token_hour_sets FINAL
            WHERE {{> shared/in_sealed_hours}}
            UNION ALL
            SELECT groupBitmapStateIf(id, is_v)
            FROM raw_tokens
            WHERE id > 0
        )
    ) AS v_ids,
    {{> shared/sealed_purchases}},
    daily_visitors AS
    (
        SELECT day, bitmapCardinality(groupBitmapOrState(v)) + sum(idless) AS visitors
        FROM
        (
            SELECT toDate(hour) AS day, visitors AS v, toUInt64(0) AS idless
            FROM token_hour_sets FINAL
            WHERE {{> shared/in_sealed_hours}}
            UNION ALL
            SELECT r.day, groupBitmapStateIf(t.id, t.id > 0), uniqExactIf(r.token, t.id = 0)
            FROM
            (
                SELECT token, toDate(received_at) AS day
                FROM events
                WHERE {{> shared/window_events rows=(event = 'visitor')}}
                  AND {{> shared/unsealed_rows}}
            ) AS r
            INNER JOIN raw_tokens AS t ON t.token = r.token
            GROUP BY r.day
        )
        GROUP BY day
    )
SELECT toString(day) AS day,
       sum(visitors) AS visitors,
       sum(conversations) AS conversations,
       sum(purchases) AS purchases,
       sum(revenue) AS revenue
FROM
(
    SELECT day, visitors, toUInt64(0) AS conversations, toUInt64(0) AS purchases, toFloat64(0) AS revenue
    FROM daily_visitors
    UNION ALL
    SELECT toDate(hour), 0, arraySum(mapValues(conversations)), 0, 0
    FROM token_hour_sets FINAL
    WHERE {{> shared/in_sealed_hours}}
    UNION ALL
    SELECT toDate(received_at), 0, count(), 0, 0
    FROM events
    WHERE {{> shared/window_events rows=(event = 'convo_started')}}
      AND {{> shared/unsealed_rows}}
    GROUP BY toDate(received_at)
    UNION ALL
    -- A purchase counts when its token is in V (its bit, or its unsealed rows for a token without an id).
    SELECT toDate(p.at), 0, 0, count(), sum(p.revenue)
    FROM counted AS p
    LEFT JOIN raw_tokens AS r ON r.id = p.id AND r.key = p.key
    WHERE if(p.id > 0, bitmapContains(v_ids, p.id), r.is_v)
    GROUP BY toDate(p.at)
    SETTINGS join_use_nulls = 0
)
GROUP BY day
ORDER BY day ASC
