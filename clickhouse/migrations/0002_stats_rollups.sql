-- Statistics rollups, maintained at insert time (documentation: clickhouse/README.md, "Rollups").
-- Every chatbot event inserted into `events` flows through `stats_feed` (a Null table, so that
-- `npm run cli -- rollups:rebuild` can replay history through the very same views) into
-- `stats_events`: one narrow row per event copy, classified once against what came before it
-- (retried beacon or first copy, first row of its order number, the token's last chat before a
-- purchase). Hourly rollups and two small row tables are fed from it. The statistics read the
-- rollups for the whole hours of a window and rows only for its ragged ends.
-- History-dependent classification needs each event's predecessors inserted first: the
-- pipeline inserts in received_at order; anything else (an import) is followed by a rebuild.

CREATE TABLE IF NOT EXISTS stats_feed AS events ENGINE = Null;

-- Key-value state the classification looks up per row (direct joins on the key: point reads).
-- The latest received_at of each (chatbot, event_id) seen so far.
CREATE TABLE IF NOT EXISTS stats_kv_events (key String, last_at DateTime64(3, 'UTC'))
ENGINE = EmbeddedRocksDB PRIMARY KEY key;
-- Each (chatbot, token)'s dense id (the token bitmaps need small integers to stay compact,
-- and ids rather than hashes keep them exact) and its latest first-copy convo_started.
CREATE TABLE IF NOT EXISTS stats_kv_tokens (key String, token_id UInt64, last_chat_at Nullable(DateTime64(3, 'UTC')))
ENGINE = EmbeddedRocksDB PRIMARY KEY key;
-- The first purchase row, (received_at, event_id), of each (chatbot, order number).
CREATE TABLE IF NOT EXISTS stats_kv_orders (key String, first_at DateTime64(3, 'UTC'), first_id UUID)
ENGINE = EmbeddedRocksDB PRIMARY KEY key;
-- The largest token id handed out (one key, 'token').
CREATE TABLE IF NOT EXISTS stats_kv_counters (key String, value UInt64)
ENGINE = EmbeddedRocksDB PRIMARY KEY key;

CREATE TABLE IF NOT EXISTS stats_events
(
    chatbot_id     String,
    received_at    DateTime64(3, 'UTC'),
    event_id       UUID,
    event          LowCardinality(String),
    token          String,
    token_id       UInt64,
    ab_group       LowCardinality(Nullable(String)),
    -- popup events: the version ('unknown' when empty); convo_started: open_way; else ''.
    key            String,
    order_num      String,
    revenue        Float64,
    -- The latest earlier copy of this event_id; NULL for its first copy.
    prev_at        Nullable(DateTime64(3, 'UTC')),
    -- The token got its id with this row's insert.
    token_new      Bool,
    -- purchase: the token's latest first-copy convo_started strictly before it.
    last_chat_at   Nullable(DateTime64(3, 'UTC'))
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (chatbot_id, received_at, event_id)
SETTINGS non_replicated_deduplication_window = 1000;

-- Tokens per (chatbot, hour, set): sets are the funnel events and the A/B groups ('ab:control',
-- 'ab:test'), first copies only. A bitmap OR is idempotent, so a replay cannot inflate it.
CREATE TABLE IF NOT EXISTS stats_hourly_tokens
(
    chatbot_id String,
    hour       DateTime('UTC'),
    set_name   LowCardinality(String),
    tokens     AggregateFunction(groupBitmap, UInt64)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (chatbot_id, hour, set_name)
SETTINGS non_replicated_deduplication_window = 1000;

-- Counted events per (chatbot, hour, event, key), first copies only (popup, conversation,
-- click-through and reaction events).
CREATE TABLE IF NOT EXISTS stats_hourly_counts
(
    chatbot_id String,
    hour       DateTime('UTC'),
    event      LowCardinality(String),
    key        String,
    n          UInt64
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (chatbot_id, hour, event, key)
SETTINGS non_replicated_deduplication_window = 1000;

-- Purchases that can count in some window: first copies whose order counts, and late copies
-- (received more than a day after the previous copy) without an order number.
CREATE TABLE IF NOT EXISTS stats_purchases
(
    chatbot_id   String,
    received_at  DateTime64(3, 'UTC'),
    event_id     UUID,
    token_id     UInt64,
    order_num    String,
    revenue      Float64,
    prev_at      Nullable(DateTime64(3, 'UTC')),
    last_chat_at Nullable(DateTime64(3, 'UTC'))
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (chatbot_id, received_at, event_id)
SETTINGS non_replicated_deduplication_window = 1000;

-- Copies received more than a day after the previous copy: they count in a window whose
-- look-back starts after that previous copy (the only copies that ever count).
CREATE TABLE IF NOT EXISTS stats_late_copies
(
    chatbot_id  String,
    received_at DateTime64(3, 'UTC'),
    event_id    UUID,
    event       LowCardinality(String),
    token_id    UInt64,
    ab_group    LowCardinality(Nullable(String)),
    key         String,
    prev_at     DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (chatbot_id, received_at, event_id)
SETTINGS non_replicated_deduplication_window = 1000;


-- The classification. Inner to outer: copies within the inserted block (a window function),
-- then the key-value state of earlier blocks (direct joins: two point reads per row), then
-- token ids for new tokens and the last chat before each purchase. The outer window functions
-- sort the whole block, so every lookup is done before any row reaches stats_events and the
-- state writers below (which run after it).
CREATE MATERIALIZED VIEW IF NOT EXISTS stats_events_mv TO stats_events AS
SELECT
    chatbot_id, received_at, event_id, event, token,
    if(token_new, (SELECT max(value) FROM stats_kv_counters) + dense_rank() OVER (PARTITION BY token_new ORDER BY chatbot_id, token),
       known_token_id) AS token_id,
    ab_group, key, order_num, revenue, prev_at, token_new,
    if(event = 'purchase',
       multiIf(block_last_chat IS NULL, kv_last_chat, kv_last_chat IS NULL, block_last_chat, greatest(block_last_chat, kv_last_chat)),
       NULL) AS last_chat_at
FROM
(
    SELECT
        *,
        max(if(event = 'convo_started' AND prev_at IS NULL, toNullable(received_at), NULL))
            OVER (PARTITION BY chatbot_id, token ORDER BY toUnixTimestamp64Milli(received_at)
                  RANGE BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS block_last_chat
    FROM
    (
        SELECT
            b.chatbot_id AS chatbot_id, b.received_at AS received_at, b.event_id AS event_id, b.event AS event,
            b.token AS token, b.ab_group AS ab_group, b.key AS key, b.order_num AS order_num, b.revenue AS revenue,
            if(b.block_prev IS NOT NULL, b.block_prev,
               if(e.key != '' AND e.last_at < b.received_at, toNullable(e.last_at), NULL)) AS prev_at,
            t.key = '' AS token_new,
            t.token_id AS known_token_id,
            if(t.last_chat_at < b.received_at, t.last_chat_at, NULL) AS kv_last_chat
        FROM
        (
            SELECT
                chatbot_id, received_at, event_id, event, token, ab_group, order_num,
                multiIf(event IN ('popup_displayed', 'popup_opened'), if(popup_version = '', 'unknown', popup_version),
                        event = 'convo_started', toString(open_way), '') AS key,
                ifNull(total_value_base, 0) AS revenue,
                concat(chatbot_id, '/', toString(event_id)) AS event_key,
                concat(chatbot_id, '/', token) AS token_key,
                lagInFrame(toNullable(received_at)) OVER (PARTITION BY chatbot_id, event_id ORDER BY received_at
                                                          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS block_prev
            FROM stats_feed
        ) AS b
        LEFT JOIN stats_kv_events AS e ON e.key = b.event_key
        LEFT JOIN stats_kv_tokens AS t ON t.key = b.token_key
    )
);

-- State writers: after each block, the key-value state includes it. Blocks arrive in
-- received_at order, so a block's latest time is the latest so far: plain upserts.
CREATE MATERIALIZED VIEW IF NOT EXISTS stats_kv_events_mv TO stats_kv_events AS
SELECT concat(chatbot_id, '/', toString(event_id)) AS key, max(received_at) AS last_at
FROM stats_events
GROUP BY key;

-- New tokens, and tokens with a new first-copy chat (the others keep their entry).
CREATE MATERIALIZED VIEW IF NOT EXISTS stats_kv_tokens_mv TO stats_kv_tokens AS
SELECT concat(chatbot_id, '/', token) AS key, any(token_id) AS token_id,
       maxIf(toNullable(received_at), event = 'convo_started' AND prev_at IS NULL) AS last_chat_at
FROM stats_events
WHERE token_new OR (event = 'convo_started' AND prev_at IS NULL)
GROUP BY key;

CREATE MATERIALIZED VIEW IF NOT EXISTS stats_kv_counters_mv TO stats_kv_counters AS
SELECT 'token' AS key, max(token_id) AS value
FROM stats_events
WHERE token_new
HAVING count() > 0;

-- Rollups.
CREATE MATERIALIZED VIEW IF NOT EXISTS stats_hourly_tokens_mv TO stats_hourly_tokens AS
SELECT chatbot_id, toStartOfHour(toDateTime(received_at, 'UTC')) AS hour, set_name, groupBitmapState(token_id) AS tokens
FROM stats_events
ARRAY JOIN arrayConcat(if(event IN ('visitor', 'popup_displayed', 'bot_open', 'convo_started'), [toString(event)], []),
                       if(ab_group IS NULL, [], [concat('ab:', assumeNotNull(ab_group))])) AS set_name
WHERE prev_at IS NULL
GROUP BY chatbot_id, hour, set_name;

CREATE MATERIALIZED VIEW IF NOT EXISTS stats_hourly_counts_mv TO stats_hourly_counts AS
SELECT chatbot_id, toStartOfHour(toDateTime(received_at, 'UTC')) AS hour, event, key, count() AS n
FROM stats_events
WHERE prev_at IS NULL
  AND event IN ('popup_displayed', 'popup_opened', 'convo_started', 'click_through', 'message_like', 'message_dislike')
GROUP BY chatbot_id, hour, event, key;

-- Purchases that can count: a first copy that is its order's first row ever (the order
-- look-up is done here, for purchases only), or any copy without an order number received
-- more than a day (the retry look-back, RETRY_LOOKBACK_MS) after the copy before it.
CREATE MATERIALIZED VIEW IF NOT EXISTS stats_purchases_mv TO stats_purchases AS
SELECT chatbot_id, received_at, event_id, token_id, order_num, revenue, prev_at, last_chat_at
FROM
(
    SELECT
        p.chatbot_id AS chatbot_id, p.received_at AS received_at, p.event_id AS event_id, p.token_id AS token_id,
        p.order_num AS order_num, p.revenue AS revenue, p.prev_at AS prev_at, p.last_chat_at AS last_chat_at,
        p.order_num = '' OR (p.block_first AND (o.key = '' OR (o.first_at, o.first_id) > (p.received_at, p.event_id))) AS order_counts
    FROM
    (
        SELECT *, concat(chatbot_id, '/', order_num) AS order_key,
               order_num != '' AND (received_at, event_id) = min((received_at, event_id)) OVER (PARTITION BY chatbot_id, order_num) AS block_first
        FROM stats_events
        WHERE event = 'purchase'
    ) AS p
    LEFT JOIN stats_kv_orders AS o ON o.key = p.order_key
)
WHERE order_counts AND (prev_at IS NULL OR (order_num = '' AND prev_at < received_at - INTERVAL 1 DAY));

-- The first purchase row of each new order (stats_purchases holds an order's first row only).
CREATE MATERIALIZED VIEW IF NOT EXISTS stats_kv_orders_mv TO stats_kv_orders AS
SELECT concat(chatbot_id, '/', order_num) AS key, received_at AS first_at, event_id AS first_id
FROM stats_purchases
WHERE order_num != '' AND prev_at IS NULL;

CREATE MATERIALIZED VIEW IF NOT EXISTS stats_late_copies_mv TO stats_late_copies AS
SELECT chatbot_id, received_at, event_id, event, token_id, ab_group, key, assumeNotNull(copy_prev_at) AS prev_at
FROM (SELECT *, prev_at AS copy_prev_at FROM stats_events WHERE prev_at < received_at - INTERVAL 1 DAY);

-- Last: from here on every insert into events is classified.
CREATE MATERIALIZED VIEW IF NOT EXISTS stats_feed_mv TO stats_feed AS
SELECT * FROM events WHERE chatbot_id != '';
