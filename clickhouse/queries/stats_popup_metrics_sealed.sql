-- popup-metrics (stats_popup_metrics.sql, whose header defines it) for a chatbot with sealed
-- hours (migration 0050): the counts of W's sealed hours (shared/sealed_hours.sql), summed per
-- key with the other rows' counts. The repository reads any other chatbot by stats_popup_metrics.sql.
WITH
    {{> shared/sealed_hours}}
SELECT
    is_conversation,
    key,
    sum(displayed) AS popup_displayed_count,
    sum(opened) AS popup_opened_count,
    sum(convos) AS conversations
FROM
(
    SELECT r.1 AS is_conversation, r.2 AS key, r.3 AS displayed, r.4 AS opened, r.5 AS convos
    FROM
    (
        SELECT arrayJoin(arrayConcat(
            arrayMap((k, n) -> (false, k, n, toUInt64(0), toUInt64(0)), mapKeys(d), mapValues(d)),
            arrayMap((k, n) -> (false, k, toUInt64(0), n, toUInt64(0)), mapKeys(o), mapValues(o)),
            arrayMap((k, n) -> (true, k, toUInt64(0), toUInt64(0), n), mapKeys(c), mapValues(c)))) AS r
        FROM
        (
            SELECT sumMap(popup_displayed) AS d, sumMap(popup_opened) AS o, sumMap(conversations) AS c
            FROM token_hour_sets FINAL
            WHERE {{> shared/in_sealed_hours}}
        )
    )
    UNION ALL
    {{> shared/popup_counts rows=({{> shared/unsealed_rows}})}}
)
GROUP BY is_conversation, key
ORDER BY is_conversation ASC, key ASC
