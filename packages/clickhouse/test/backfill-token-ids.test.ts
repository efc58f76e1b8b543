import t, { type Test } from 'tap';
import { createLogger } from '@chatlytics/core';
import { createChdbEngine } from '../src/chdb-engine.js';
import { runMigrations } from '../src/migrations.js';
import { rebuildRollups } from '../src/rollups.js';
import { verifyAggregates } from '../src/verify.js';
import { failingAt, migrationsBefore, recording, tempDataDir } from './helpers.js';

/**
 * Migration 0130's fill on one node runs in batches of chatbots (backfill-token-ids.ts): never
 * at start-up, and under `migrate --backfill` bounded by the batch, every stored row given the
 * id the whole-table form would give it, and a fill that failed at any statement finishes when
 * run again with nothing numbered twice.
 */
const engine = await createChdbEngine({ path: tempDataDir(t), database: 'fill', log: createLogger('silent') });
t.teardown(() => engine.close());

// Three chatbots over two months; a token in two chatbots, bots with tokens of their own.
const SIZES: Record<string, number> = { c1: 30, c2: 20, c3: 12 };
const stored = Object.entries(SIZES).flatMap(([chatbot, n]) => Array.from({ length: n }, (_, i) => {
  const token = i === 0 ? 'shared' : `${chatbot}-t${String((i * 7) % n).padStart(2, '0')}`;
  // Two rows each, the first in March at a time that does not follow the token's name.
  const first = Date.UTC(2026, 2, 1 + (i % 25), (i * 5) % 24);
  return [first, first + 40 * 86_400_000].map((at, k) => ({
    event_id: `0190a3c4-0000-7000-8000-${chatbot.slice(1)}${String(i).padStart(4, '0')}${k}${'0'.repeat(6)}`,
    event: k === 0 ? 'visitor' : 'convo_started', token, chatbot_id: chatbot,
    received_at: new Date(at).toISOString().replace('T', ' ').replace('Z', ''),
    is_bot: i % 10 === 9,
  }));
}).flat());

/** The ids the migration's whole-table form gives: per chatbot 1, 2, … in the order of each token's first row, then by token. */
function expectedIds(): Map<string, number> {
  const first = new Map<string, { chatbot: string; token: string; at: string }>();
  for (const r of stored.filter((r) => !r.is_bot)) {
    const key = `${r.chatbot_id}/${r.token}`;
    const seen = first.get(key);
    if (!seen || r.received_at < seen.at) first.set(key, { chatbot: r.chatbot_id, token: r.token, at: r.received_at });
  }
  const ids = new Map<string, number>();
  for (const chatbot of Object.keys(SIZES)) {
    [...first.values()].filter((f) => f.chatbot === chatbot)
      .sort((a, b) => (a.at === b.at ? (a.token < b.token ? -1 : 1) : a.at < b.at ? -1 : 1))
      .forEach((f, i) => ids.set(`${chatbot}/${f.token}`, i + 1));
  }
  return ids;
}

async function storeBefore0130(): Promise<void> {
  await engine.command('DROP DATABASE IF EXISTS fill SYNC');
  await engine.command('CREATE DATABASE fill');
  await runMigrations(engine, migrationsBefore(t, '0130'));
  await engine.insert('events', stored);
}

const FILL_STATEMENT = /\{chatbots:Array\(String\)\}/;
// c1 alone (60 rows), then c2 and c3 (64 rows) in one batch.
const BATCH_ROWS = 70;

async function assertFilled(t: Test, label: string): Promise<void> {
  const rows = await engine.query<{ chatbot_id: string; token: string; ids: string[]; bot: boolean | number }>(
    'SELECT chatbot_id, token, groupUniqArray(toString(token_id)) AS ids, any(is_bot) AS bot FROM events GROUP BY chatbot_id, token ORDER BY chatbot_id, token');
  const expected = expectedIds();
  const got = new Map(rows.filter((r) => !r.bot).map((r) => [`${r.chatbot_id}/${r.token}`, r.ids.map(Number)]));
  t.same(Object.fromEntries(got), Object.fromEntries([...expected].map(([k, id]) => [k, [id]])),
    `${label}: each visitor token's rows carry one id, the whole-table form's`);
  t.same(rows.filter((r) => r.bot).flatMap((r) => r.ids), rows.filter((r) => r.bot).map(() => '0'), `${label}: bot rows keep 0`);
  // Every id stored, not only the smallest that reads keep: a token numbered twice shows here.
  const map = await engine.query<{ k: string; ids: string[] }>(
    "SELECT concat(chatbot_id, '/', token) AS k, arraySort(groupUniqArray(toString(token_id))) AS ids FROM token_ids GROUP BY chatbot_id, token ORDER BY k");
  // Writers number on after a slot's largest id in token_ids (ids/slot_tops.sql).
  t.same(Object.fromEntries(map.map((m) => [m.k, m.ids.map(Number)])), Object.fromEntries([...expected].map(([k, id]) => [k, [id]])), `${label}: token_ids holds exactly those ids`);
}

let fillAt: number[] = [];

t.test('start-up never fills; migrate --backfill fills batch by batch', async (t) => {
  await storeBefore0130();
  const start = recording(engine);
  await t.rejects(runMigrations(start.engine), { code: 'CLICKHOUSE_005', message: /0130_insert_time_aggregates\.sql rewrites every row of events[\s\S]*migrate --backfill/ });
  t.notOk(start.sent.some((s) => /INSERT INTO token_ids/.test(s)), 'start-up numbers no stored token');

  const backfill = recording(engine);
  await runMigrations(backfill.engine, { backfill: true, backfillBatchRows: BATCH_ROWS });
  fillAt = backfill.sent.flatMap((s, i) => (FILL_STATEMENT.test(s) ? [i] : []));
  t.equal(fillAt.length, 6, 'two batches of three statements');
  t.notOk(backfill.sent.some((s) => /ALTER TABLE events\s+UPDATE token_id/.test(s) && !FILL_STATEMENT.test(s)), 'the whole-table UPDATE is never sent');
  await assertFilled(t, 'filled');
  await rebuildRollups(engine);
  t.same(await verifyAggregates(engine), [], 'verify finds nothing after the rebuild');
});

t.test('a fill that failed at any of its statements finishes when run again', async (t) => {
  t.ok(fillAt.length > 0, 'the fill\'s statements were found');
  const points = [...fillAt.map((at) => [at, 'before'] as const), [fillAt.at(-1)!, 'after'] as const];
  for (const [at, mode] of points) {
    await storeBefore0130();
    const failing = failingAt(engine, at, mode);
    await t.rejects(runMigrations(failing.engine, { backfill: true, backfillBatchRows: BATCH_ROWS }), /injected/, `failed ${mode} command ${at}`);
    await runMigrations(engine, { backfill: true, backfillBatchRows: BATCH_ROWS });
    await assertFilled(t, `failed ${mode} command ${at}, run again`);
  }
});
