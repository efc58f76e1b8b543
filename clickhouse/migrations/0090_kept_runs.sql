-- Kept runs (clickhouse/README.md, "Kept runs"): the purchases statistic of a settled sealed
-- run, computed once. On the big shop the statistic spent ~200 ms of ~300 OR-ing 720 hours of
-- bitmaps, unnesting 230k sealed purchases and looking each up in three bitmaps, on every call,
-- although a window's sealed hours change about once an hour. A window's sealed run (its sealed
-- hours, stats_sealed_hours.sql) is named by `run`, a fingerprint of those hours and the time
-- each was sealed: a reseal or a new hole is another run. Kept by the first settled read of a
-- run, or by the sealer right after sealing (services/dashboard/src/stats/kept-runs.ts); read by
-- stats_purchases_cached.sql, which corrects the kept totals for the tokens the window's
-- unsealed rows touch. Derived data only: dropped by `npm run cli -- rollups:rebuild`, expired
-- by TTL.

-- The run's purchases that count (their order's first row, when sealed), one row each, with
-- the latest conversation of their token before them (token_hour_sets.purchases_chat).
CREATE TABLE IF NOT EXISTS sealed_run_purchases
(
    chatbot_id String,
    run        UInt64,
    -- One build of the run: two dashboards may build a run at once; each reads only its own.
    build      UUID,
    id         UInt32,
    at         DateTime64(3, 'UTC'),
    revenue    Float64,
    chat       DateTime64(3, 'UTC'),
    built_at   DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = MergeTree
ORDER BY (chatbot_id, run, build, id)
TTL toDateTime(built_at) + INTERVAL 2 DAY;

-- One row per build, written after its purchases (a row here means they are all in): the
-- run's sets of token ids and what stats_purchases.sql computes over them when no row outside
-- the run touches a token. Revenues are Decimal, so that subtracting some tokens' part from
-- them is exact.
CREATE TABLE IF NOT EXISTS sealed_runs
(
    chatbot_id String,
    run        UInt64,
    build      UUID,
    run_from   DateTime64(3, 'UTC'),
    run_until  DateTime64(3, 'UTC'),
    visitors   AggregateFunction(groupBitmap, UInt32),
    chatted    AggregateFunction(groupBitmap, UInt32),
    in_control AggregateFunction(groupBitmap, UInt32),
    in_test    AggregateFunction(groupBitmap, UInt32),
    total_users UInt64,
    total_users_chatted UInt64,
    control_visitors UInt64,
    test_visitors UInt64,
    total_users_purchased UInt64,
    total_users_chatted_purchased UInt64,
    total_revenue_purchased Decimal128(18),
    total_revenue_chatted_purchased Decimal128(18),
    revenue_other Decimal128(18),
    orders UInt64,
    orders_after_chat UInt64,
    control_orders UInt64,
    control_purchasers UInt64,
    control_revenue Decimal128(18),
    test_orders UInt64,
    test_purchasers UInt64,
    test_revenue Decimal128(18),
    built_at   DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = MergeTree
ORDER BY (chatbot_id, run)
TTL toDateTime(built_at) + INTERVAL 1 DAY;
