-- Engagement funnel of one chatbot over the window W = [{from}, {to}] (see the statistics definitions in services/dashboard/README.md, "engagement").
--   V = distinct tokens with a `visitor` event;
--   approached / opened / chatted = tokens of V that also have a popup_displayed / bot_open /
--   convo_started event in W. Ratios (count / |V| × 100, 2 decimals, 0 when |V| = 0) are
--   computed by the caller.
-- Deduplication (retry rule, services/dashboard/README.md): an event counts at its EARLIEST
-- received_at; retried beacons of events that arrived before W are removed by the shared
-- condition shared/window_events.sql, which explains the rule and what it reads.
-- Reading: the sealed hours of W (shared/sealed_hours.sql) as bitmaps of token ids, OR-ed per
-- kind of event; the other rows of W (its edges, the hours not sealed yet) grouped by token
-- as before, each token's id looked up in token_id_index. A token of those rows with an id joins
-- the bitmaps; one without (or whose id the index does not hold yet) is in no sealed hour W
-- reads, so it is counted on its own.
-- The repository reads a chatbot with sealed hours this way, any other by stats_engagement.sql:
-- the lookups cost a chatbot of small hours more than its rows do.
WITH
    {{> shared/sealed_hours}}
SELECT
    bitmapCardinality(v) + new_v AS total_users,
    bitmapAndCardinality(v, a) + new_va AS total_users_approached,
    bitmapAndCardinality(v, o) + new_vo AS total_users_opened,
    bitmapAndCardinality(v, c) + new_vc AS total_users_chatted
FROM
(
    SELECT
        groupBitmapOrState(v) AS v, groupBitmapOrState(a) AS a, groupBitmapOrState(o) AS o, groupBitmapOrState(c) AS c,
        sum(nv) AS new_v, sum(nva) AS new_va, sum(nvo) AS new_vo, sum(nvc) AS new_vc
    FROM
    (
        SELECT visitors AS v, approached AS a, opened AS o, chatted AS c, 0 AS nv, 0 AS nva, 0 AS nvo, 0 AS nvc
        FROM token_hour_sets FINAL
        WHERE {{> shared/in_sealed_hours}}
        UNION ALL
        SELECT
            groupBitmapStateIf(id, id > 0 AND bitAnd(kinds, 1) = 1),
            groupBitmapStateIf(id, id > 0 AND bitAnd(kinds, 2) = 2),
            groupBitmapStateIf(id, id > 0 AND bitAnd(kinds, 4) = 4),
            groupBitmapStateIf(id, id > 0 AND bitAnd(kinds, 8) = 8),
            countIf(id = 0 AND bitAnd(kinds, 1) = 1),
            countIf(id = 0 AND bitAnd(kinds, 3) = 3),
            countIf(id = 0 AND bitAnd(kinds, 5) = 5),
            countIf(id = 0 AND bitAnd(kinds, 9) = 9)
        FROM
        (
            -- Ids from token_id_index (shared/unsealed_tokens.sql says why 0, no id, is right
            -- for an id it does not hold yet; ids start at 1).
            SELECT r.kinds AS kinds, joinGet('token_id_index', 'id', {chatbot_id:String}, r.token) AS id
            FROM
            (
                {{> shared/engagement_kinds rows=({{> shared/unsealed_rows}})}}
            ) AS r
        )
    )
)
