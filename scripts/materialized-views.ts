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

/**
 * Puts the benches' variant of the views in place after the migrations: `plain` = every view
 * replaced by a plain copy (plainCopyViewSql); `no-lookups` = events_input_mv without its copy
 * detection, its token-id lookup and its LIMIT 1 BY, every other view kept. Token ids are then a
 * 16-bit hash of the token (as dense in a bitmap as the real ids of a shop's few thousand
 * tokens) and no row marks a new id, so token_ids stays empty. Wrong data on purpose: what the
 * two lookups cost at most, and so what moving them out of the view could save.
 */
export async function replaceViews(ch: ClickHouseEngine, variant: 'plain' | 'no-lookups'): Promise<void> {
  if (variant === 'plain') {
    for (const { name } of await materializedViews(ch)) await ch.command(`DROP VIEW ${name}`);
    await ch.command(await plainCopyViewSql(ch));
    return;
  }
  await ch.command('DROP VIEW events_input_mv');
  await ch.command(`CREATE MATERIALIZED VIEW events_input_mv TO events AS
    SELECT * EXCEPT (token_id, id_slot), if(is_bot, toUInt64(0), toUInt64(xxHash32(token) % 65536)) AS token_id, false AS token_id_new
    FROM events_input`);
}
