-- stats_purchases_sealed.sql (read it first) for a settled window: no row arrived since the
-- sealer last checked with a received_at before the sealed run's end (stats_sealed_hours.sql:
-- late_from; the repository checks, sealed-hours.ts settledRun). Then every sealed purchase's
-- facts (its order's first row? its token's latest conversation before it?) are as the seal
-- saw them, and the completions the general query reads for late arrivals are empty: this query
-- leaves them out. Each subquery costs the analyzer a few milliseconds whatever it reads (on
-- no data: the general query ~100 ms to plan and run, this one ~75).
WITH
    {{> shared/sealed_hours}},
    {{> shared/unsealed_tokens}},
    {{> shared/purchase_sets}},
    counted AS
    (
        -- shared/sealed_purchases.sql less the late arrivals: a sealed purchase counts if it was
        -- its order's first row when sealed.
        SELECT p.id AS id, '' AS key, p.at AS at, p.revenue AS revenue, true AS from_seal,
            chat >= {from:DateTime64(3, 'UTC')} AS chatted_before,
            false AS is_v, false AS in_control, false AS in_test, toDateTime64('2299-12-31 00:00:00', 3, 'UTC') AS raw_chat
        FROM token_hour_sets FINAL
        ARRAY JOIN purchases AS p, purchases_first AS first, purchases_chat AS chat
        WHERE {{> shared/in_sealed_hours}} AND first
        UNION ALL
        {{> shared/unsealed_purchases}}
    ),
    {{> shared/unsealed_chats}},
    (
        -- Earliest per token id, as (ids, times) for transform().
        SELECT (groupArray(id), groupArray(first_chat_at))
        FROM (SELECT id, min(at) AS first_chat_at FROM chats GROUP BY id)
    ) AS other_chats,
    {{> shared/purchases_sealed_totals}}
