-- The window's rows of the kinds `rows` selects (shared/window_events.sql: each event once,
-- retried beacons and bots removed) as `e`, with the columns the token-level statistics group:
-- one read of `events` serves a statistic's visitors, conversations and purchases (cheaper than
-- a second read of the purchases joined to the visitors by token). The order rule is applied after grouping, to each token's
-- purchases only (shared/counted_purchases.sql), not joined to every row read.
-- `items` is read only by the statistics that value carts (stats_cart.sql, stats_topics.sql);
-- the others never name it, and ClickHouse drops a subquery's unused columns before reading.
-- Use as a FROM clause: `FROM {{> shared/window_rows rows=(event IN ('visitor', 'purchase'))}}`.
(
    SELECT token, event, received_at, ab_group, order_num, event_id, total_value_base, items
    FROM events
    WHERE {{> shared/window_events rows={{rows}}}}
) AS e
