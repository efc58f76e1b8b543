-- The purchase statistic's sets over W for the *_sealed.sql purchases queries, as one scalar
-- `sets` (computed once per query; read as sets.1 … sets.6): bitmaps of token ids of V,
-- chatted in the sealed hours, control, test, purchased in the unsealed rows, chatted in the
-- unsealed rows. The sealed hours' bitmaps OR-ed with the unsealed rows' tokens that have an id
-- (a token without one is in no sealed hour: the statistic counts it from `raw`).
-- Use inside a WITH list after shared/unsealed_tokens: `{{> shared/purchase_sets}},`.
(
    SELECT tuple(groupBitmapOrState(v), groupBitmapOrState(c), groupBitmapOrState(ct), groupBitmapOrState(te), groupBitmapOrState(b), groupBitmapOrState(rc))
    FROM
    (
        SELECT visitors AS v, chatted AS c, in_control AS ct, in_test AS te, bitmapBuild(emptyArrayUInt32()) AS b, bitmapBuild(emptyArrayUInt32()) AS rc
        FROM token_hour_sets FINAL
        WHERE {{> shared/in_sealed_hours}}
        UNION ALL
        SELECT groupBitmapStateIf(id, is_v), groupBitmapStateIf(id, false), groupBitmapStateIf(id, in_control), groupBitmapStateIf(id, in_test),
               groupBitmapStateIf(id, bought), groupBitmapStateIf(id, chatted)
        FROM raw_tokens
        WHERE id > 0
    )
) AS sets
