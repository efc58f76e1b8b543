import { sqlFile } from './sql-files.js';
import type { ClickHouseEngine } from './types.js';

export interface RollupRebuild {
  table: string;
  /** The partitions of `events` read (toYYYYMM(received_at) values). */
  partitions: number;
  /** The rollup's rows (orders) after the rebuild. */
  rows: number;
  ms: number;
}

/**
 * Rebuilds the order_first_purchases rollup (migration 0030) from `events`: its view's SELECT,
 * inserted again one partition of `events` (one month) at a time, so that a rebuild's memory is
 * bounded by a month and it can run beside inserts and reads. The rollup keeps the minimum per
 * order, so rows already there change nothing and a row the view missed (rows written to
 * `events` directly, a rollup created after its rows) is added; inserts during the rebuild go
 * through the view as usual. No table is swapped or emptied: the statistics keep reading the
 * rollup throughout. A rollup row that is wrong because its event was deleted from `events` is
 * not removed by this: `TRUNCATE TABLE order_first_purchases` first (clickhouse/README.md says
 * when that is needed and what it costs).
 */
export async function rebuildRollups(engine: ClickHouseEngine): Promise<RollupRebuild[]> {
  const started = performance.now();
  const parts = await engine.query<{ partition: number | string }>(
    "SELECT DISTINCT toUInt32(partition) AS partition FROM system.parts WHERE database = {database:String} AND table = 'events' AND active ORDER BY partition",
    { database: engine.database },
  );
  for (const { partition } of parts) {
    await engine.command(sqlFile('rollups/order_first_purchases_rebuild'), { partition: Number(partition) });
  }
  const [{ rows }] = await engine.query<{ rows: string }>('SELECT count() AS rows FROM (SELECT 1 FROM order_first_purchases GROUP BY chatbot_id, order_num)');
  return [{ table: 'order_first_purchases', partitions: parts.length, rows: Number(rows), ms: Math.round(performance.now() - started) }];
}
