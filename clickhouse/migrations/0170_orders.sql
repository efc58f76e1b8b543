-- Orders the shop's backend reports (POST /api/orders, the Shopify and WooCommerce receivers,
-- cli import-orders; services/ingest/README.md, "Orders"), one row per reported state. A report
-- is the order's whole state; the row with the largest version wins (read with FINAL, or
-- argMax(…, version) per order). The version comes from the report's own content
-- (@chatlytics/events orderVersion: status, then refunds, then the latest time it carries, then
-- a digest), so resends and reorderings give the same winner. Not partitioned: a replacing
-- merge only replaces within a partition, and a report must meet its order's others.
CREATE TABLE IF NOT EXISTS orders
(
    chatbot_id     String,
    order_id       String,
    token          String,
    placed_at      DateTime64(3, 'UTC'),
    currency       LowCardinality(String),
    item_ids       Array(String),
    item_quantities Array(UInt32),
    item_values    Array(Float64),
    status         LowCardinality(String),
    refund_ids     Array(String),
    refund_ats     Array(DateTime64(3, 'UTC')),
    refund_amounts Array(Float64),
    gross_value    Float64,
    refunded_value Float64,
    net_value      Float64,
    net_value_base Nullable(Float64),
    source         LowCardinality(String),
    received_at    DateTime64(3, 'UTC'),
    version        UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (chatbot_id, order_id);

-- Every refund known, whichever report brought it: an order state's refunds, or a refund
-- reported alone (Shopify's refunds/create carries the refund, not the order). One row per
-- (chatbot, order, refund) once merged; read with FINAL or per refund_id. An order's net is
-- its latest state's gross less the sum of its distinct refunds (0 once cancelled or refunded).
CREATE TABLE IF NOT EXISTS order_refunds
(
    chatbot_id  String,
    order_id    String,
    refund_id   String,
    at          DateTime64(3, 'UTC'),
    amount      Float64,
    source      LowCardinality(String),
    received_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (chatbot_id, order_id, refund_id);
