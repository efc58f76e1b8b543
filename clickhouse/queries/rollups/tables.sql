-- The statistics rollup tables that hold data (migration 0002): everything named stats_*
-- except the views that feed or read them and the Null table they are fed through.
SELECT name
FROM system.tables
WHERE database = currentDatabase()
  AND startsWith(name, 'stats_')
  AND engine NOT IN ('MaterializedView', 'View', 'Null')
ORDER BY name
