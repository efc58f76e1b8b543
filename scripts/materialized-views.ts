import type { ClickHouseEngine } from '@chatlytics/clickhouse';

export interface MaterializedView {
  name: string;
  /** The DDL that creates it again. */
  ddl: string;
  /** Its query. */
  select: string;
  /** The table whose inserts it sees. */
  source: string;
  /** The table it writes to (TO …). */
  target: string;
}

/** The current database's materialized views, by name. */
export function materializedViews(ch: ClickHouseEngine): Promise<MaterializedView[]> {
  return ch.query<MaterializedView>(
    `SELECT v.name AS name, v.create_table_query AS ddl, v.as_select AS select, s.source AS source,
        replaceOne(extract(v.create_table_query, 'MATERIALIZED VIEW \\\\S+ TO (\\\\S+)'), concat(currentDatabase(), '.'), '') AS target
     FROM system.tables AS v
     LEFT JOIN
     (
         SELECT name AS source, arrayJoin(dependencies_table) AS view
         FROM system.tables
         WHERE database = currentDatabase()
     ) AS s ON s.view = v.name
     WHERE v.database = currentDatabase() AND v.engine = 'MaterializedView'
     ORDER BY name`);
}

/** The query of a plain copy of events_input's columns into `events`: no copy detection, no token ids. */
export async function plainCopySelectSql(ch: ClickHouseEngine): Promise<string> {
  const columns = await ch.query<{ name: string }>(
    "SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'events_input' AND name IN (SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'events') ORDER BY position");
  return `SELECT ${columns.map((c) => c.name).join(', ')} FROM events_input`;
}

/**
 * An `events_input_mv` that only copies (plainCopySelectSql). The benches put it in place of the
 * real one to see what the views cost an insert.
 */
export async function plainCopyViewSql(ch: ClickHouseEngine): Promise<string> {
  return `CREATE MATERIALIZED VIEW events_input_mv TO events AS ${await plainCopySelectSql(ch)}`;
}
