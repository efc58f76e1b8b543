-- The lift statistic's per-arm sums (stats/lift.sql, stats/lift_orders.sql), which differ only
-- in where the purchases come from: {{purchases}} is a SELECT of (token_id, revenue) rows, one
-- per counted purchase in W = [{from}, {to}] (token_id 0: in no visitor set). Per holdout arm,
-- the sums the caller derives rates, intervals and tests from (docs/statistics.md, "lift"):
--   V (visitor tokens in W); an arm's visitors = the tokens of V with a row of that arm in W and
--   none of the other arm (a token with both, as when the percentage changed within W, is in
--   neither: its exposure is mixed); the rows' arm is the `holdout` column (kinds
--   'holdout:exposed' / 'holdout:holdout' of shared/token_kinds.sql).
--   Per arm: buyers = its visitors with a purchase of {{purchases}} in W;
--   orders = those purchases; revenue = Σ their revenue; revenue_squares = Σ over its buyers of
--   (the buyer's revenue in W)² (a visitor without purchase adds 0 to both sums).
-- The sets are the window's bitmaps (shared/window_token_sets.sql), merged once into one row
-- that every buyer's row is joined to.
SELECT
    any(exposed_visitors) AS exposed_visitors,
    countIf(arm = 1) AS exposed_buyers,
    sumIf(orders, arm = 1) AS exposed_orders,
    sumIf(revenue, arm = 1) AS exposed_revenue,
    sumIf(revenue * revenue, arm = 1) AS exposed_revenue_squares,
    any(holdout_visitors) AS holdout_visitors,
    countIf(arm = 2) AS holdout_buyers,
    sumIf(orders, arm = 2) AS holdout_orders,
    sumIf(revenue, arm = 2) AS holdout_revenue,
    sumIf(revenue * revenue, arm = 2) AS holdout_revenue_squares
FROM
(
    SELECT
        buyers.orders AS orders,
        buyers.revenue AS revenue,
        -- 0 (no arm) for the one row of `sets` when W has no purchase: token_id 0 is no token's id.
        multiIf(buyers.token_id = 0, 0, bitmapContains(sets.exposed, buyers.token_id), 1, bitmapContains(sets.holdout, buyers.token_id), 2, 0) AS arm,
        bitmapCardinality(sets.exposed) AS exposed_visitors,
        bitmapCardinality(sets.holdout) AS holdout_visitors
    FROM
    (
        SELECT token_id, count() AS orders, sum(revenue) AS revenue
        FROM ({{purchases}})
        GROUP BY token_id
    ) AS buyers
    RIGHT JOIN
    (
        SELECT
            bitmapAnd(visitors, bitmapAndnot(exposed_rows, holdout_rows)) AS exposed,
            bitmapAnd(visitors, bitmapAndnot(holdout_rows, exposed_rows)) AS holdout
        FROM
        (
            SELECT
                groupBitmapMergeStateIf(tokens, kind = 'visitor') AS visitors,
                groupBitmapMergeStateIf(tokens, kind = 'holdout:exposed') AS exposed_rows,
                groupBitmapMergeStateIf(tokens, kind = 'holdout:holdout') AS holdout_rows
            FROM {{> shared/window_token_sets kinds=('visitor', 'holdout:exposed', 'holdout:holdout')}}
        )
    ) AS sets ON 1 = 1
)
SETTINGS join_use_nulls = 0
