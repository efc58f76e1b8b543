import { sqlFile } from './sql-files.js';
import { splitStatements } from './sql-split.js';
import type { ClickHouseEngine } from './types.js';

export interface RollupRebuild {
  /** The partitions of `events` read (toYYYYMM(received_at) values). */
  partitions: number;
  /** Rows of each rebuilt table afterwards. */
  rows: Record<string, number>;
  ms: number;
}

/** Tables whose rows a second insert would add again (sums, narrow copies): emptied month by month before it is read again. */
const DROPPED_FIRST = ['event_hour_counts', 'event_copies', 'purchases', 'conversation_starts', 'token_hour_sets', 'token_day_sets'] as const;
/** Every table `events` feeds through a view (migration 0130): what a rebuild computes again. */
export const VIEW_FED_TABLES = ['order_first_purchases', ...DROPPED_FIRST] as const;
/** The Aggregating/Summing tables among them: several rows of one key until their parts merge. */
const MERGING = new Set<string>(['order_first_purchases', 'event_hour_counts', 'token_hour_sets', 'token_day_sets']);

/**
 * Rebuilds every table `events` feeds through a view (clickhouse/README.md, "Rebuilding"): one
 * month of `events` at a time (bounded memory; inserts and reads go on), each table's view
 * SELECT inserted again (queries/rollups/rebuild_month.sql). For that month the statistics read
 * partial figures for the seconds between the drop and the insert; rows inserted meanwhile go
 * through the views as usual, and a row a view missed (rows written to `events` directly) is added.
 */
export async function rebuildRollups(engine: ClickHouseEngine): Promise<RollupRebuild> {
  const started = performance.now();
  const parts = await engine.query<{ partition: number | string }>(
    "SELECT DISTINCT toUInt32(partition) AS partition FROM system.parts WHERE database = {database:String} AND table = 'events' AND active ORDER BY partition",
    { database: engine.database },
  );
  const statements = splitStatements(sqlFile('rollups/rebuild_month'));
  for (const { partition } of parts) {
    for (const table of DROPPED_FIRST) await engine.command(`ALTER TABLE ${table} DROP PARTITION {partition:UInt32}`, { partition: Number(partition) });
    for (const sql of statements) await engine.command(sql, { partition: Number(partition) });
  }
  const rows: Record<string, number> = {};
  for (const table of VIEW_FED_TABLES) {
    // FINAL on the tables that merge rows per key: their rows once merged (an order is one row).
    const final = MERGING.has(table) ? ' FINAL' : '';
    const [{ n }] = await engine.query<{ n: string }>(`SELECT count() AS n FROM ${table}${final}`);
    rows[table] = Number(n);
  }
  return { partitions: parts.length, rows, ms: Math.round(performance.now() - started) };
}
