import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import { materializedViews } from './materialized-views.js';
import { median } from '../lib/stats.js';

export interface ViewQueryCost {
  view: string;
  /** Median wall time of the view's SELECT over the block, ms. */
  ms: number;
  /** Median CPU of this process (chdb runs in it) per row of the block, µs. */
  cpuUsPerEvent: number;
}

const blockTable = (source: string) => `bench_block_${source}`;

/**
 * Each materialized view's own query, run alone (`FORMAT Null`) over one insert's block: the
 * work ClickHouse does for that view on every insert, without writing its target's part. Unlike
 * timing inserts with and without a view, nothing else varies between the samples, so per-view
 * differences of a fraction of a µs per event show.
 *
 * The block is `insertBlock` inserted into a MergeTree copy of `events_input_v2`; each view's query
 * reads its source's copy instead of the source, and a view's output is kept as the block of the
 * views fed by its target (`events_input_v2_mv` → `events` → `token_hour_sets`). Everything else a
 * query reads (the copy look-up in `events`) is the real table.
 */
export async function viewQueryCosts(
  ch: ClickHouseEngine, insertBlock: Buffer, rows: number, reps: number,
  /** Queries over events_input timed the same way after the views, for scale (e.g. a plain copy). */
  references: { name: string; select: string }[] = [],
): Promise<{ views: ViewQueryCost[]; references: ViewQueryCost[] }> {
  const db = (await ch.query<{ db: string }>('SELECT currentDatabase() AS db'))[0].db;
  const views = (await materializedViews(ch)).filter((v) => v.source !== '');
  if (views.length === 0) throw new Error('no materialized view with a source table: migrations did not run');
  // The view's query with its source (and only its source) read from the block's copy.
  const onBlock = (v: { select: string; source: string }) =>
    v.select.replace(new RegExp(`(FROM\\s+)(${db}\\.)?${v.source}\\b`, 'g'), `$1${db}.${blockTable(v.source)}`);

  await ch.command(`CREATE TABLE ${blockTable('events_input_v2')} AS events_input_v2 ENGINE = MergeTree ORDER BY tuple()`);
  await ch.insert(blockTable('events_input_v2'), insertBlock);
  const ready = new Set(['events_input_v2']);
  const pending = [...views];
  const costs: ViewQueryCost[] = [];
  const time = async (view: string, sql: string): Promise<ViewQueryCost> => {
    const ms: number[] = [];
    const cpu: number[] = [];
    for (let r = 0; r < reps; r++) {
      const c = process.cpuUsage();
      const t = performance.now();
      await ch.command(`${sql} FORMAT Null`);
      ms.push(performance.now() - t);
      const used = process.cpuUsage(c);
      cpu.push(used.user + used.system);
    }
    return { view, ms: +median(ms).toFixed(1), cpuUsPerEvent: +(median(cpu) / rows).toFixed(2) };
  };
  try {
    while (pending.length > 0) {
      const i = pending.findIndex((v) => ready.has(v.source));
      if (i < 0) throw new Error(`views without a block to read: ${pending.map((v) => v.name).join(', ')}`);
      const [v] = pending.splice(i, 1);
      const sql = onBlock(v);
      costs.push(await time(v.name, sql));
      // Its output is the block of the views fed by its target.
      if (!ready.has(v.target) && pending.some((p) => p.source === v.target)) {
        await ch.command(`CREATE TABLE ${blockTable(v.target)} AS ${v.target} ENGINE = MergeTree ORDER BY tuple()`);
        await ch.command(`INSERT INTO ${blockTable(v.target)} ${sql}`);
        ready.add(v.target);
      }
    }
    const measured: ViewQueryCost[] = [];
    for (const r of references) measured.push(await time(r.name, onBlock({ select: r.select, source: 'events_input_v2' })));
    return { views: costs.sort((a, b) => b.cpuUsPerEvent - a.cpuUsPerEvent), references: measured };
  } finally {
    for (const source of ready) await ch.command(`DROP TABLE IF EXISTS ${blockTable(source)}`);
  }
}
