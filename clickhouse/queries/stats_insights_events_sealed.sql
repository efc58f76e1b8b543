-- The insights report's event counts (stats_insights_events.sql, whose header defines them) for
-- a chatbot with sealed hours: the event_counts of W's sealed hours (shared/sealed_hours.sql,
-- migration 0060) plus the other rows of W counted as that file counts them.
WITH
    {{> shared/sealed_hours}}
SELECT
    sum(clicks) AS total_click_throughs,
    sum(liked) AS likes,
    sum(disliked) AS dislikes
FROM
(
    SELECT
        sum(event_counts['click_through']) AS clicks,
        sum(event_counts['message_like']) AS liked,
        sum(event_counts['message_dislike']) AS disliked
    FROM token_hour_sets FINAL
    WHERE {{> shared/in_sealed_hours}}
    UNION ALL
    SELECT
        countIf(event = 'click_through'),
        countIf(event = 'message_like'),
        countIf(event = 'message_dislike')
    FROM events
    WHERE {{> shared/window_events rows=(event IN ('click_through', 'message_like', 'message_dislike'))}}
      AND {{> shared/unsealed_rows}}
)
