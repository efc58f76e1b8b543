-- A kept sealed run's purchases (migration 0090) by token, as stats_purchases.sql's by_token
-- when no row outside the run touches the token: in V, the A/B groups and after chat as the run
-- says (its token's latest conversation before it is in the run; one in the window before the
-- run would be an unsealed row, which touches the token). Revenue as Decimal: the totals are
-- kept, and the touched tokens' part is subtracted from them exactly. `kept` is a tuple whose
-- elements 1, 3, 4 are bitmaps holding (at least) the run's V, control and test ids of `tokens`.
-- runs/keep_run.sql sums it over every token, stats_purchases_cached.sql over the touched ones.
-- Use as a FROM subquery: `FROM ({{> shared/kept_run_by_token kept=(kept) tokens=(true)}})`.
SELECT
    any(bitmapContains({{kept}}.3, id)) AS in_control,
    any(bitmapContains({{kept}}.4, id)) AS in_test,
    {{> shared/token_purchase_sums}}
FROM
(
    SELECT id, toDecimal128(revenue, 18) AS revenue, chat >= sealed_from AS after_chat
    FROM sealed_run_purchases
    WHERE chatbot_id = {chatbot_id:String} AND run = {run:UInt64} AND build = {build:UUID} AND {{tokens}}
)
WHERE bitmapContains({{kept}}.1, id)
GROUP BY id
