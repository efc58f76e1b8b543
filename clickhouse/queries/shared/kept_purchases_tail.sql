-- The end of the kept-run purchases queries (after shared/kept_purchases_head.sql and
-- `other_chats`): `seen` (the touched tokens' part of the kept totals, computed as
-- runs/keep_run.sql computed them), by_token (the touched tokens now) and the final SELECT: kept,
-- less the touched tokens' kept part, plus their part now.
-- Use as the last entry of a WITH list, ending the query: `{{> shared/kept_purchases_tail}}`.
(
    SELECT tuple({{> shared/purchase_totals}})
    FROM ({{> shared/kept_run_by_token kept=(kept) tokens=(bitmapContains(touched, id))}})
) AS seen,
{{> shared/purchases_by_token}}
-- The unsealed tokens without an id from `raw` (as shared/purchases_sealed_totals.sql).
SELECT
    throwIf(isNull(kept), 'the sealed run is not kept') AS missing,
    kept.18 - bitmapCardinality(kept.1) + bitmapCardinality(sets.1) + arrayCount(t -> t.2 = 0 AND t.3, raw) AS total_users,
    kept.19 - bitmapAndCardinality(kept.1, kept.2) + bitmapAndCardinality(sets.1, bitmapOr(sets.2, sets.6)) + arrayCount(t -> t.2 = 0 AND t.3 AND t.4, raw) AS total_users_chatted,
    kept.20 - bitmapAndCardinality(kept.1, kept.3) + bitmapAndCardinality(sets.1, sets.3) + arrayCount(t -> t.2 = 0 AND t.3 AND t.6, raw) AS control_visitors,
    kept.21 - bitmapAndCardinality(kept.1, kept.4) + bitmapAndCardinality(sets.1, sets.4) + arrayCount(t -> t.2 = 0 AND t.3 AND t.7, raw) AS test_visitors,
    fresh.1 + kept.5 - seen.1 AS total_users_purchased,
    fresh.2 + kept.6 - seen.2 AS total_users_chatted_purchased,
    fresh.3 + toFloat64(kept.7 - seen.3) AS total_revenue_purchased,
    fresh.4 + toFloat64(kept.8 - seen.4) AS total_revenue_chatted_purchased,
    fresh.5 + toFloat64(kept.9 - seen.5) AS revenue_other,
    fresh.6 + kept.10 - seen.6 AS orders,
    fresh.7 + kept.11 - seen.7 AS orders_after_chat,
    fresh.8 + kept.12 - seen.8 AS control_orders,
    fresh.9 + kept.13 - seen.9 AS control_purchasers,
    fresh.10 + toFloat64(kept.14 - seen.10) AS control_revenue,
    fresh.11 + kept.15 - seen.11 AS test_orders,
    fresh.12 + kept.16 - seen.12 AS test_purchasers,
    fresh.13 + toFloat64(kept.17 - seen.13) AS test_revenue
FROM (SELECT tuple({{> shared/purchase_totals}}) AS fresh FROM by_token)
