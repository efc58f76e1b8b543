import { sqlFile } from './sql-files.js';
import type { ClickHouseEngine } from './types.js';
import { unsealAll } from './token-sets.js';

export interface RollupRebuild {
  table: string;
  rows: number;
  ms: number;
}

/** How far before the rebuild's start the catch-up re-reads: an INSERT stamps inserted_at when it
 * starts and may become visible later; a minute covers any insert this project makes. */
const CATCH_UP_MARGIN_MS = 60_000;

const LIVE = 'order_first_purchases';
const COPY = 'order_first_purchases_rebuild';
const FILL = 'events_prev_copy_fill';

/**
 * Rebuilds the rollup order_first_purchases (migration 0030) from `events`, then
 * events.prev_copy_at (migration 0040), for a repair, after deleting rows, or after a change
 * to their definition, while events keep arriving and statistics keep reading. The rollup:
 *  1. the whole rollup is computed into an empty copy of the table;
 *  2. the copy's data replaces the live table's in one step (REPLACE PARTITION: the table and
 *     its materialized view stay as they are, so inserts never see a missing table);
 *  3. the rows stored since the rebuild began (their view output went to the live table and was
 *     just replaced) are read again into it.
 * Between 2 and 3 an order first seen during the rebuild may be missing for as long as step 3
 * takes; every other order reads the same before, during and after. The rollup's min is
 * idempotent, so rows read twice change nothing.
 */
export async function rebuildRollups(engine: ClickHouseEngine): Promise<RollupRebuild[]> {
  // ClickHouse's clock, as inserted_at's DEFAULT uses it.
  const [{ since }] = await engine.query<{ since: string }>(
    "SELECT toString(now64(3, 'UTC') - toIntervalMillisecond({margin:UInt32})) AS since", { margin: CATCH_UP_MARGIN_MS });
  return [await rebuildOrderFirstPurchases(engine, since), await rebuildPrevCopyAt(engine, since), await unsealHours(engine)];
}

/**
 * The sealed hours (migration 0050) were computed from prev_copy_at, which the rebuild may have
 * changed without changing any hour's rows or checksum: they are forgotten, and the dashboard's
 * sealer seals every hour again on its next runs (the statistics read the rows meanwhile).
 */
async function unsealHours(engine: ClickHouseEngine): Promise<RollupRebuild> {
  const started = performance.now();
  await unsealAll(engine);
  return { table: 'token_hour_sets', rows: 0, ms: Math.round(performance.now() - started) };
}

/**
 * events.prev_copy_at of every row stored before `before`, from `events`, in one mutation
 * (a Join table the mutation reads with joinGet). Rows stored since keep the value their insert
 * gave them.
 */
async function rebuildPrevCopyAt(engine: ClickHouseEngine, before: string): Promise<RollupRebuild> {
  const started = performance.now();
  await engine.command(`DROP TABLE IF EXISTS ${FILL}`);
  await engine.command(sqlFile('rollups/events_prev_copy_table'));
  try {
    await engine.command(sqlFile('rollups/events_prev_copy_fill'));
    await engine.command(sqlFile('rollups/events_prev_copy_update'), { before, database: engine.database });
  } finally {
    await engine.command(`DROP TABLE IF EXISTS ${FILL}`);
  }
  const [{ rows }] = await engine.query<{ rows: string }>('SELECT count() AS rows FROM events WHERE prev_copy_at > 0');
  return { table: 'events.prev_copy_at', rows: Number(rows), ms: Math.round(performance.now() - started) };
}

async function rebuildOrderFirstPurchases(engine: ClickHouseEngine, since: string): Promise<RollupRebuild> {
  const started = performance.now();
  await engine.command(`DROP TABLE IF EXISTS ${COPY}`);
  await engine.command(`CREATE TABLE ${COPY} AS ${LIVE}`);
  try {
    await engine.command(sqlFile('rollups/order_first_purchases_rebuild'), { table: COPY });
    const [{ filled }] = await engine.query<{ filled: string }>(`SELECT count() AS filled FROM (SELECT 1 FROM ${COPY} LIMIT 1)`);
    // ClickHouse refuses to replace a partition by an empty one (recent versions) rather than
    // drop the destination's data; no orders at all is a truncate.
    await engine.command(Number(filled) ? `ALTER TABLE ${LIVE} REPLACE PARTITION tuple() FROM ${COPY}` : `TRUNCATE TABLE ${LIVE}`);
    await engine.command(sqlFile('rollups/order_first_purchases_catch_up'), { since });
  } finally {
    await engine.command(`DROP TABLE IF EXISTS ${COPY}`);
  }
  const [{ rows }] = await engine.query<{ rows: string }>(`SELECT count() AS rows FROM (SELECT 1 FROM ${LIVE} GROUP BY chatbot_id, order_num)`);
  return { table: LIVE, rows: Number(rows), ms: Math.round(performance.now() - started) };
}
