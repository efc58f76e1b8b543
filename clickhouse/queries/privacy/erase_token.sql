-- Every row that names one token of a chatbot, after erase_counts.sql (each statement can run
-- again: an erasure job that failed half-way is retried, and what it reads first,
-- token_footprint.sql, comes from the rows the statements below delete last: `events`, then
-- `token_ids`). Waited for on every replica
-- (mutations_sync, lightweight_deletes_sync = 2); on a cluster the mutations run on the `_local`
-- tables ON CLUSTER (rendererAfterMigrations, and deleteOnShards for the DELETE FROM).
-- The narrow tables and the aggregates are mutated: each holds few bytes per row, so rewriting
-- the parts holding the token is cheap, and their bytes are gone when the statement returns.
-- `events`, the wide table, is not rewritten here: a mutation would rewrite every part the
-- token's rows are in (on a shop, all of them), and the statistics would slow down while it
-- ran. A lightweight DELETE masks its rows instead (only the `_row_exists` column of those
-- parts is written): no query reads them from the statement's return on, and their bytes leave
-- the disk when the retention run applies the masks (purge_deleted_rows.sql, within its
-- interval) or a merge rewrites their parts, whichever is first. The token's ids leave the
-- bitmaps by bitmapAndnot, so what remains in the aggregates names nobody and equals what
-- `cli verify` computes from events.
-- A statement with {month} runs once per month of the token's rows (token_footprint.sql), one
-- after another: a mutation over several partitions runs one background thread per part at
-- once, and even at nice 19 two busy threads on two cores slow the statistics by about a tenth,
-- where one does not measurably. `event_copies` and `events_rejected` hold rows whose month is
-- not one of the token's events' (a copy received later, a rejection), so they run whole.
ALTER TABLE token_hour_sets UPDATE tokens = bitmapAndnot(tokens, bitmapBuild(CAST({ids:Array(String)}, 'Array(UInt64)')))
    IN PARTITION {month:UInt32} WHERE chatbot_id = {chatbot_id:String} AND hour IN {hours:Array(DateTime('UTC'))} SETTINGS mutations_sync = 2;
ALTER TABLE token_day_sets UPDATE tokens = bitmapAndnot(tokens, bitmapBuild(CAST({ids:Array(String)}, 'Array(UInt64)')))
    IN PARTITION {month:UInt32} WHERE chatbot_id = {chatbot_id:String} AND day IN {days:Array(Date)} SETTINGS mutations_sync = 2;
ALTER TABLE event_copies DELETE WHERE chatbot_id = {chatbot_id:String} AND has(CAST({ids:Array(String)}, 'Array(UInt64)'), token_id) SETTINGS mutations_sync = 2;
ALTER TABLE purchases DELETE IN PARTITION {month:UInt32} WHERE chatbot_id = {chatbot_id:String} AND has(CAST({ids:Array(String)}, 'Array(UInt64)'), token_id) SETTINGS mutations_sync = 2;
ALTER TABLE conversation_starts DELETE IN PARTITION {month:UInt32} WHERE chatbot_id = {chatbot_id:String} AND has(CAST({ids:Array(String)}, 'Array(UInt64)'), token_id) SETTINGS mutations_sync = 2;
ALTER TABLE chat_clicks DELETE IN PARTITION {month:UInt32} WHERE chatbot_id = {chatbot_id:String} AND has(CAST({ids:Array(String)}, 'Array(UInt64)'), token_id) SETTINGS mutations_sync = 2;
ALTER TABLE order_first_purchases DELETE WHERE chatbot_id = {chatbot_id:String} AND order_num IN {orders:Array(String)} SETTINGS mutations_sync = 2;
-- The token's orders' first purchases among the other tokens' purchases of the same number; a
-- minimum, so a row stored twice changes nothing and FINAL is not needed. Before the `events`
-- DELETE: the order numbers come from the token's rows there (token_footprint.sql), so a retry
-- after a failure past that DELETE would no longer know them.
INSERT INTO order_first_purchases
WITH events AS (SELECT * FROM events WHERE chatbot_id = {chatbot_id:String} AND order_num IN {orders:Array(String)} AND token != {token:String})
{{> views/order_first_purchases_mv}}
SETTINGS {{> shared/background_priority}};
DELETE FROM events IN PARTITION {month:UInt32} WHERE chatbot_id = {chatbot_id:String} AND token = {token:String} SETTINGS lightweight_deletes_sync = 2;
-- The payload is the stored event as JSON (or the raw body the consumer could not read): the
-- token as a JSON string, quotes included, so a longer token that begins with it is kept.
ALTER TABLE events_rejected DELETE WHERE chatbot_id IN ({chatbot_id:String}, '') AND position(payload, concat('"', {token:String}, '"')) > 0
    SETTINGS mutations_sync = 2;
-- Last: a retry after a failure above still finds the ids here.
-- The shop's orders stay (they are the shop's books, counted as orders without a visitor); only
-- the token leaves them.
ALTER TABLE orders UPDATE token = '', token_id = 0 WHERE chatbot_id = {chatbot_id:String} AND token = {token:String} SETTINGS mutations_sync = 2;
ALTER TABLE token_ids DELETE WHERE chatbot_id = {chatbot_id:String} AND token = {token:String} SETTINGS mutations_sync = 2;
