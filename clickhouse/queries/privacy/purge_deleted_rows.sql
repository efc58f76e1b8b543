-- The rows of `events` an erasure masked (lightweight DELETE in erase_token.sql) removed from the
-- disk: the parts holding masked rows are rewritten without them, and the old parts are removed
-- after old_parts_lifetime. Run by the retention loop when a part has a mask
-- (applyRetention's purgeDeletedRows), so many erasures share one rewrite. On a cluster it runs
-- on `events_local` ON CLUSTER (rendererAfterMigrations).
ALTER TABLE events APPLY DELETED MASK SETTINGS mutations_sync = 2;
