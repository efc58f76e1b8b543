import t from 'tap';
import { createLogger } from '@chatlytics/core';
import { createChdbEngine } from '../src/chdb-engine.js';
import { runMigrations } from '../src/migrations.js';
import { rebuildRollups } from '../src/rollups.js';
import type { ClickHouseEngine } from '../src/types.js';
import { migrationsBefore, tempDataDir, insertEvents } from './helpers.js';

/**
 * The order_first_purchases rollup (migration 0130, first made by 0030) against the truth computed here from the
 * rows inserted: per (chatbot, order number), the earliest (received_at, event_id) of its
 * non-bot purchase rows. Maintained by its view through duplicates and replays, filled by the
 * migration for rows stored before it, and rebuilt by rebuildRollups (an INSERT … SELECT per partition of `events`) while inserts go on.
 */
interface Row { event_id: string; event: string; chatbot_id: string; order_num: string; received_at: string; is_bot: boolean }

const BOTS = ['bot-a', 'bot-b'];
let seq = 0;
const uuid = (n: number) => `0190a7c0-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const at = (ms: number) => new Date(Date.UTC(2026, 9, 1) + ms).toISOString().replace('T', ' ').replace('Z', '');

/** Purchases over few order numbers (so orders repeat), same-millisecond ties, bots and other events. */
function rows(n: number, salt: number): Row[] {
  return Array.from({ length: n }, (_, i) => {
    const k = (i * 7919 + salt * 104729) % 1000;
    return {
      event_id: uuid(++seq * 13 % 100_000 + salt * 100_000),
      event: k % 10 === 0 ? 'visitor' : 'purchase',
      chatbot_id: BOTS[k % 2],
      order_num: k % 9 === 0 ? '' : `ORD-${k % 37}`,
      received_at: at((k % 50) * 1000),
      is_bot: k % 23 === 0,
    };
  });
}

function truth(all: readonly Row[]): Map<string, string> {
  const first = new Map<string, [string, string]>();
  for (const r of all) {
    if (r.event !== 'purchase' || r.order_num === '' || r.is_bot) continue;
    const key = `${r.chatbot_id}/${r.order_num}`;
    const seen = first.get(key);
    if (!seen || r.received_at < seen[0] || (r.received_at === seen[0] && r.event_id < seen[1])) first.set(key, [r.received_at, r.event_id]);
  }
  return new Map([...first].map(([k, [a, id]]) => [k, `${a} ${id}`]));
}

async function rollup(engine: ClickHouseEngine): Promise<Map<string, string>> {
  const got = await engine.query<{ k: string; f: string }>(
    "SELECT concat(chatbot_id, '/', order_num) AS k, concat(toString(min(first).at), ' ', toString(min(first).event_id)) AS f FROM order_first_purchases GROUP BY chatbot_id, order_num",
  );
  return new Map(got.map((r) => [r.k, r.f]));
}

/** What the statistics read from the insert-time aggregates (migration 0130), merged per key. */
async function aggregates(engine: ClickHouseEngine) {
  return {
    sets: await engine.query("SELECT chatbot_id, hour, kind, bitmapCardinality(groupBitmapMergeState(tokens)) AS n FROM token_hour_sets GROUP BY chatbot_id, hour, kind ORDER BY chatbot_id, hour, kind"),
    days: await engine.query("SELECT chatbot_id, day, kind, bitmapCardinality(groupBitmapMergeState(tokens)) AS n FROM token_day_sets GROUP BY chatbot_id, day, kind ORDER BY chatbot_id, day, kind"),
    counts: await engine.query('SELECT chatbot_id, hour, event, sum(events) AS n FROM event_hour_counts GROUP BY chatbot_id, hour, event ORDER BY chatbot_id, hour, event'),
    purchases: await engine.query('SELECT chatbot_id, count() AS n, sum(revenue) AS revenue FROM purchases GROUP BY chatbot_id ORDER BY chatbot_id'),
  };
}

const insert = (engine: ClickHouseEngine, batch: Row[], dedupToken?: string) => insertEvents(engine, batch, dedupToken);

t.test('order_first_purchases on the embedded engine', async (t) => {
  const engine = await createChdbEngine({ path: tempDataDir(t), database: 'rollups', log: createLogger('silent') });
  t.teardown(() => engine.close());

  // The schema before 0030, rows stored, then 0030: its INSERT fills the rollup for them.
  await runMigrations(engine, migrationsBefore(t, '0030'));
  const stored: Row[] = rows(400, 1);
  await engine.insert('events', stored);
  // Rewriting stored rows is the backfill command's, never a start-up's (migrations-startup.test.ts).
  const applied = await runMigrations(engine, { backfill: true });
  t.same(applied.applied, ['0030_order_first_purchases', '0040_events_prev_copy_at', '0050_token_hour_sets', '0060_token_hour_purchases', '0070_sealed_purchase_facts', '0080_token_id_index', '0090_kept_runs', '0100_events_rejected_chatbot', '0110_drop_sealed_hours', '0120_events_segment', '0130_insert_time_aggregates', '0140_leaner_views', '0150_sql_query_log_statement', '0160_events_input_v2', '0170_orders', '0180_erased_tokens_retention_cutoffs', '0190_events_holdout', '0200_orders_token_id', '0210_chat_clicks', '0220_events_token_index'], 'the rollup migrations applied on top');
  // Migration 0130 replaced the rollup; `migrate --backfill` then rebuilds it (data-commands.ts).
  await rebuildRollups(engine);
  t.same(await rollup(engine), truth(stored), 'rows stored before the view existed are in the rollup');

  // Through the view: several blocks, a replayed block with its token, the same rows again without one.
  const more = [rows(300, 2), rows(300, 3)];
  await insert(engine, more[0], 'batch-2');
  await insert(engine, more[1], 'batch-3');
  await insert(engine, more[0], 'batch-2');
  await insert(engine, more[1]);
  stored.push(...more.flat());
  const expected = truth(stored);
  t.ok(expected.size > 40, `orders over both chatbots (${expected.size})`);
  t.same(await rollup(engine), expected, 'inserts, a replayed batch and duplicate rows: each order at its earliest row');

  // Rows over two months, then orders lost from the rollup (as if the view had missed them), then a rebuild.
  const direct = rows(300, 9).map((r, i) => ({ ...r, received_at: i % 2 ? r.received_at : r.received_at.replace('2026-10-01', '2026-11-03') }));
  await engine.insert('events', direct);
  stored.push(...direct);
  await engine.command("ALTER TABLE order_first_purchases DELETE WHERE order_num IN ('ORD-1', 'ORD-2') SETTINGS mutations_sync = 2");
  t.not((await rollup(engine)).size, truth(stored).size, 'orders missing from the rollup');
  const rebuilt = await rebuildRollups(engine);
  t.equal(rebuilt.partitions, 2, 'one INSERT … SELECT per month of events');
  t.equal(rebuilt.rows.order_first_purchases, truth(stored).size, 'the rebuild reports the orders it holds');
  const afterRebuild = await aggregates(engine);
  t.same(afterRebuild.counts, await engine.query('SELECT chatbot_id, toStartOfHour(received_at) AS hour, event, count() AS n FROM events FINAL WHERE NOT is_bot AND prev_copy_at = 0 GROUP BY chatbot_id, hour, event ORDER BY chatbot_id, hour, event'),
    'hourly counts rebuilt from events, the rows written to events directly included');
  t.ok(afterRebuild.days.length > 0, 'daily sets rebuilt');
  t.same(afterRebuild.days, await engine.query("SELECT chatbot_id, toDate(hour) AS day, kind, bitmapCardinality(groupBitmapMergeState(tokens)) AS n FROM token_hour_sets GROUP BY chatbot_id, day, kind ORDER BY chatbot_id, day, kind"),
    'each daily set is the union of its hours (fed by the hourly table\'s view)');
  await rebuildRollups(engine);
  t.same(await aggregates(engine), afterRebuild, 'a second rebuild changes nothing (no row counted twice)');
  t.same(await rollup(engine), truth(stored), 'rebuilt from events: every order at its earliest row');

  // A rollup emptied by hand (the repair after deleting events) is whole again after a rebuild.
  await engine.command('TRUNCATE TABLE order_first_purchases');
  await rebuildRollups(engine);
  t.same(await rollup(engine), truth(stored), 'rebuilt from scratch');

  // Inserts while a rebuild runs: none is lost (the catch-up reads them again).
  const during = [rows(200, 4), rows(200, 5), rows(200, 6)];
  const writes = (async () => { for (const [i, b] of during.entries()) await insert(engine, b, `during-${i}`); })();
  await Promise.all([rebuildRollups(engine), writes]);
  stored.push(...during.flat());
  t.same(await rollup(engine), truth(stored), 'rows inserted during a rebuild are in the rollup');

  // A rebuild swaps nothing: the live table is the one the view writes to, before and after.
  const [{ uuid: before }] = await engine.query<{ uuid: string }>("SELECT toString(uuid) AS uuid FROM system.tables WHERE database = currentDatabase() AND name = 'order_first_purchases'");
  await rebuildRollups(engine);
  const [{ uuid: after }] = await engine.query<{ uuid: string }>("SELECT toString(uuid) AS uuid FROM system.tables WHERE database = currentDatabase() AND name = 'order_first_purchases'");
  t.equal(after, before, 'the same table');
});
