import type { ClickHouseEngine } from '@chatlytics/clickhouse';

/** The current database's materialized views, each with the DDL that creates it again. */
export function materializedViews(ch: ClickHouseEngine): Promise<{ name: string; ddl: string }[]> {
  return ch.query<{ name: string; ddl: string }>(
    "SELECT name, create_table_query AS ddl FROM system.tables WHERE database = currentDatabase() AND engine = 'MaterializedView' ORDER BY name");
}

/**
 * An `events_input_mv` that only copies events_input's columns into `events`: no copy detection,
 * no token ids. The benches put it in place of the real one to see what the views cost an insert.
 */
export async function plainCopyViewSql(ch: ClickHouseEngine): Promise<string> {
  const columns = await ch.query<{ name: string }>(
    "SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'events_input' AND name IN (SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'events') ORDER BY position");
  return `CREATE MATERIALIZED VIEW events_input_mv TO events AS SELECT ${columns.map((c) => c.name).join(', ')} FROM events_input`;
}
