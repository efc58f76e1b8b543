import type { ClickHouseEngine } from './types.js';
import { assertTable } from './identifiers.js';
import { sqlFile } from './sql-files.js';

export interface RollupRebuildResult {
  /** The rollup tables emptied and refilled. */
  tables: string[];
  /** Months of events replayed, oldest first ('YYYY-MM-DD', first day). */
  months: string[];
  /** Rows of stats_events afterwards (one per chatbot event copy). */
  events: number;
  ms: number;
}

/**
 * Rebuilds the statistics rollups from `events` (`npm run cli -- rollups:rebuild`): empties every
 * rollup table and its key-value state, then replays the chatbot events month by month in
 * received_at order through the same materialized views that maintain them at insert time.
 * For after a migration that adds a rollup, a repair, or events inserted out of order (an
 * import). Statistics read incomplete rollups while it runs: run it with ingestion stopped.
 */
export async function rebuildStatsRollups(engine: ClickHouseEngine): Promise<RollupRebuildResult> {
  const started = Date.now();
  const tables = (await engine.query<{ name: string }>(sqlFile('rollups/tables'))).map((r) => assertTable(r.name));
  for (const table of tables) await engine.command(`TRUNCATE TABLE ${table}`);
  const months = (await engine.query<{ month: string }>(sqlFile('rollups/months'))).map((r) => r.month);
  for (const month of months) await engine.command(sqlFile('rollups/replay-month'), { month });
  const [{ n }] = await engine.query<{ n: string }>('SELECT count() AS n FROM stats_events');
  return { tables, months, events: Number(n), ms: Date.now() - started };
}
