-- Completes build {build} of a settled sealed run (after runs/keep_run_purchases.sql): its sets
-- of token ids OR-ed over its hours, and stats_purchases_sealed_settled.sql's counts and sums as
-- they are when no row outside the run touches a token (shared/kept_run_by_token.sql), which
-- stats_purchases_cached.sql corrects for the tokens that such rows do touch.
INSERT INTO sealed_runs
WITH
    {{> shared/sealed_hours}},
    (
        SELECT tuple(groupBitmapOrState(visitors), groupBitmapOrState(chatted), groupBitmapOrState(in_control), groupBitmapOrState(in_test))
        FROM token_hour_sets FINAL
        WHERE {{> shared/sealed_run_check}} AND {{> shared/in_sealed_hours}}
    ) AS kept
SELECT {chatbot_id:String}, {run:UInt64}, {build:UUID}, sealed_from, sealed_until, kept.1, kept.2, kept.3, kept.4,
    bitmapCardinality(kept.1), bitmapAndCardinality(kept.1, kept.2), bitmapAndCardinality(kept.1, kept.3), bitmapAndCardinality(kept.1, kept.4),
    {{> shared/purchase_totals}}, now64(3)
FROM ({{> shared/kept_run_by_token kept=(kept) tokens=(true)}})
