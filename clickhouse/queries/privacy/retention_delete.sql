-- A chatbot's raw rows received before its retention horizon ({cutoff}: a UTC midnight), run by
-- the dashboard's retention loop (services/dashboard/src/privacy/retention.ts) once per chatbot
-- and run; each statement can run again. Kept: the aggregates of anonymous integers
-- (token_hour_sets, token_day_sets, event_hour_counts); the horizon is recorded last so that
-- `cli verify` leaves those days alone (retention_cutoffs). On a cluster the mutations run on
-- the `_local` tables ON CLUSTER (rendererAfterMigrations).
-- A statement with {month} runs once per month that holds such rows (retention_months.sql), one
-- after another, as an erasure's do (erase_token.sql says why: one busy background thread at a
-- time leaves the statistics their two cores).
ALTER TABLE events DELETE IN PARTITION {month:UInt32} WHERE chatbot_id = {chatbot_id:String} AND received_at < {cutoff:DateTime64(3, 'UTC')} SETTINGS mutations_sync = 2;
ALTER TABLE event_copies DELETE IN PARTITION {month:UInt32} WHERE chatbot_id = {chatbot_id:String} AND received_at < {cutoff:DateTime64(3, 'UTC')} SETTINGS mutations_sync = 2;
ALTER TABLE purchases DELETE IN PARTITION {month:UInt32} WHERE chatbot_id = {chatbot_id:String} AND received_at < {cutoff:DateTime64(3, 'UTC')} SETTINGS mutations_sync = 2;
ALTER TABLE conversation_starts DELETE IN PARTITION {month:UInt32} WHERE chatbot_id = {chatbot_id:String} AND received_at < {cutoff:DateTime64(3, 'UTC')} SETTINGS mutations_sync = 2;
ALTER TABLE chat_clicks DELETE IN PARTITION {month:UInt32} WHERE chatbot_id = {chatbot_id:String} AND received_at < {cutoff:DateTime64(3, 'UTC')} SETTINGS mutations_sync = 2;
-- An order whose first purchase is past the horizon: its row goes, and an order with purchases
-- kept gets its first among them again (as verify computes it from events). A concurrent insert
-- of the same order adds the same minimum, which the table merges.
ALTER TABLE order_first_purchases DELETE WHERE chatbot_id = {chatbot_id:String} AND tupleElement(first, 'at') < {cutoff:DateTime64(3, 'UTC')} SETTINGS mutations_sync = 2;
INSERT INTO order_first_purchases
WITH events AS (
    SELECT * FROM events
    WHERE chatbot_id = {chatbot_id:String} AND event = 'purchase' AND order_num != ''
      AND order_num NOT IN (SELECT order_num FROM order_first_purchases WHERE chatbot_id = {chatbot_id:String})
)
{{> views/order_first_purchases_mv}}
SETTINGS {{> shared/background_priority}};
-- Set-aside purchases; the consumer's own rejections (chatbot '') go by the table's 90-day TTL.
ALTER TABLE events_rejected DELETE IN PARTITION {month:UInt32} WHERE chatbot_id = {chatbot_id:String} AND received_at < {cutoff:DateTime64(3, 'UTC')} SETTINGS mutations_sync = 2;
