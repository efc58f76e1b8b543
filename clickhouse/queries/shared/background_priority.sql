-- The settings of a privacy job's own reads and inserts (an erasure, a retention run): the
-- lowest CPU priority (nice 19) on one thread, as their mutations run in the background pool
-- (ENGINE_SERVER_ARGS, clickhouse/deploy/config.d/priorities.xml), so that on a busy machine
-- the statistics go first (README.md, "Personal data").
-- Use: `SETTINGS {{> shared/background_priority}}`; in code, sqlFragment('shared/background_priority').
os_threads_nice_value_query = 19, max_threads = 1
