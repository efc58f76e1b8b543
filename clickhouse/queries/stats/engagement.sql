-- Engagement funnel of one chatbot over the window W = [{from}, {to}] (see the statistics definitions in services/dashboard/README.md, "engagement").
--   V = distinct tokens with a `visitor` event;
--   approached / opened / chatted = tokens of V that also have a popup_displayed / bot_open /
--   convo_started event in W. Ratios (count / |V| × 100, 2 decimals, 0 when |V| = 0) are
--   computed by the caller.
-- Each set is the window's bitmap of token ids (shared/window_token_sets.sql); the counts are
-- the bitmaps' cardinalities and intersections.
SELECT
    bitmapCardinality(visitors) AS total_users,
    bitmapAndCardinality(visitors, approached) AS total_users_approached,
    bitmapAndCardinality(visitors, opened) AS total_users_opened,
    bitmapAndCardinality(visitors, chatted) AS total_users_chatted
FROM
(
    SELECT
        groupBitmapMergeStateIf(tokens, kind = 'visitor') AS visitors,
        groupBitmapMergeStateIf(tokens, kind = 'popup_displayed') AS approached,
        groupBitmapMergeStateIf(tokens, kind = 'bot_open') AS opened,
        groupBitmapMergeStateIf(tokens, kind = 'convo_started') AS chatted
    FROM {{> shared/window_token_sets kinds=('visitor', 'popup_displayed', 'bot_open', 'convo_started')}}
)
