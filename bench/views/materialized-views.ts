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

/** The query of a plain copy of events_input_v2's columns into `events`: no copy detection. */
export async function plainCopySelectSql(ch: ClickHouseEngine): Promise<string> {
  const columns = await ch.query<{ name: string }>(
    "SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'events_input_v2' AND name IN (SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'events') ORDER BY position");
  return `SELECT ${columns.map((c) => c.name).join(', ')} FROM events_input_v2`;
}

/**
 * An `events_input_v2_mv` that only copies (plainCopySelectSql). The benches put it in place of
 * the real one to see what the views cost an insert.
 */
export async function plainCopyViewSql(ch: ClickHouseEngine): Promise<string> {
  return `CREATE MATERIALIZED VIEW events_input_v2_mv TO events AS ${await plainCopySelectSql(ch)}`;
}

/**
 * Puts the benches' variant of the views in place after the migrations: `plain` = every view
 * replaced by a plain copy (plainCopyViewSql); `no-lookups` = events_input_v2_mv without its copy
 * detection and its LIMIT 1 BY, every other view kept: what the copy look-up costs at most.
 */
export async function replaceViews(ch: ClickHouseEngine, variant: 'plain' | 'no-lookups'): Promise<void> {
  if (variant === 'plain') {
    for (const { name } of await materializedViews(ch)) await ch.command(`DROP VIEW ${name}`);
    await ch.command(await plainCopyViewSql(ch));
    return;
  }
  await ch.command('DROP VIEW events_input_v2_mv');
  await ch.command(`CREATE MATERIALIZED VIEW events_input_v2_mv TO events AS
    SELECT * EXCEPT (token_id), if(is_bot, toUInt64(0), token_id) AS token_id
    FROM events_input_v2`);
}
