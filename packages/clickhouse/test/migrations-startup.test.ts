import t from 'tap';
import { createLogger } from '@chatlytics/core';
import { createChdbEngine } from '../src/chdb-engine.js';
import { runMigrations } from '../src/migrations.js';
import type { ClickHouseEngine } from '../src/types.js';
import { migrationsBefore, recording, tempDataDir } from './helpers.js';

/** The migration runner never rewrites a whole table while a service starts (ISSUE 42). */
const base = await createChdbEngine({ path: tempDataDir(t), database: 'fresh', log: createLogger('silent') });
t.teardown(() => base.close());

const MUTATION = /^\s*(ALTER\s+TABLE\s+\S+(\s+ON\s+CLUSTER\s+\S+)?\s+(UPDATE|DELETE|MATERIALIZE|CLEAR)\b|DELETE\s+FROM\b)/i;
const mutations = (sent: string[]) => sent.map((s) => s.replace(/--.*$/gm, '')).filter((s) => MUTATION.test(s));

const row = (i: number) => ({
  event_id: `0190a3c4-0000-7000-8000-${String(i).padStart(12, '0')}`, event: 'purchase', token: `tok_${i}`,
  chatbot_id: 'c1', received_at: '2026-03-04 05:06:07.089', ab_test: false, ab_group: null, popup_version: '',
  open_way: '', order_num: `o${i}`, currency: 'USD', total_value: 1, total_value_base: null, items: [],
  url: '', user_agent: '', client_hash: '', data: '{}',
});

t.test('a fresh store: every migration applied, no mutation sent', async (t) => {
  const { engine, sent } = recording(base);
  const result = await runMigrations(engine);
  t.ok(result.applied.length >= 10, `${result.applied.length} applied`);
  t.ok(sent.length > 20, `${sent.length} statements sent`);
  t.same(mutations(sent), [], 'no ALTER … UPDATE/DELETE/MATERIALIZE');
  t.same((await runMigrations(engine)).applied, [], 'a second start applies nothing');
});

t.test('an existing store with rows: start-up stops before the mutation; migrate --backfill runs it', async (t) => {
  // One chdb per process: the same database emptied and brought to the schema before 0040.
  await base.command('DROP DATABASE fresh SYNC');
  await base.command('CREATE DATABASE fresh');
  await runMigrations(base, migrationsBefore(t, '0040'));
  await base.insert('events', [row(1), row(2)]);

  const start = recording(base);
  await t.rejects(runMigrations(start.engine), { code: 'CLICKHOUSE_005', message: /0040_events_prev_copy_at\.sql rewrites every row of events[\s\S]*migrate --backfill/ });
  t.ok(start.sent.some((s) => /ADD COLUMN IF NOT EXISTS prev_copy_at/.test(s)), 'the statements before it ran (idempotent, repeated next time)');
  t.same(mutations(start.sent), [], 'no mutation sent at start-up');

  const backfill = recording(base);
  const result = await runMigrations(backfill.engine, { backfill: true });
  t.equal(result.applied[0], '0040_events_prev_copy_at');
  t.ok(mutations(backfill.sent).length >= 2, 'the backfill command runs the mutations (0040\'s index and prev_copy_at, 0050\'s projection)');
  const [{ n }] = await base.query<{ n: string }>('SELECT count() AS n FROM events');
  t.equal(Number(n), 2, 'the rows are still there');
});

/**
 * No cluster runs here: an engine that answers as a fresh (or filled) cluster would, recording
 * what the runner sends, shows what a service's start-up sends to one.
 */
function clusterAnswering(rows: number): { engine: ClickHouseEngine; sent: string[]; recorded: unknown[] } {
  const sent: string[] = [];
  const recorded: unknown[] = [];
  const engine = {
    database: 'analytics',
    async command(sql: string) { sent.push(sql); },
    async query(sql: string) { return /count\(\)/.test(sql) ? [{ n: String(rows) }] : []; },
    async insert(_table: string, values: unknown[]) { recorded.push(...values); },
  } as unknown as ClickHouseEngine;
  return { engine, sent, recorded };
}

t.test('a fresh cluster: the replicated ledger, every DDL ON CLUSTER, no mutation, no node-local table', async (t) => {
  const { engine, sent, recorded } = clusterAnswering(0);
  const result = await runMigrations(engine, { cluster: 'main' });
  t.ok(result.applied.length >= 10);
  t.equal(recorded.filter((r) => 'version' in (r as object)).length, result.applied.length, 'each migration recorded in the ledger');
  t.equal(recorded.filter((r) => 'name' in (r as object) && !('version' in (r as object))).length, result.views.length, 'each view recorded in its ledger');
  t.ok(result.views.includes('token_hour_sets_mv'), 'the views applied after the migrations');
  t.match(sent[0], /^CREATE TABLE IF NOT EXISTS schema_migrations ON CLUSTER main[\s\S]*ReplicatedReplacingMergeTree/);
  t.ok(sent.some((sql) => /^ALTER TABLE token_hour_sets_mv ON CLUSTER main MODIFY QUERY[\s\S]*FROM events_local\b/.test(sql)), "a view's new query reads the local table");
  t.same(mutations(sent), []);
  for (const sql of sent) {
    const code = sql.replace(/--.*$/gm, '').trim();
    if (/^(CREATE|ALTER|DROP|TRUNCATE)\b/i.test(code)) t.match(code, / ON CLUSTER main\b/, code.split('\n')[0]);
    t.notMatch(code, /\bENGINE\s*=\s*(Join|Memory|Set)\b|events_prev_copy_fill|token_id_index/, 'no node-local state');
  }
});

t.test('a cluster holding rows: start-up stops before a mutation, as on one node', async (t) => {
  const { engine, sent } = clusterAnswering(5);
  await t.rejects(runMigrations(engine, { cluster: 'main' }), { code: 'CLICKHOUSE_005', message: /rewrites every row of events[\s\S]*migrate --backfill/ });
  t.same(mutations(sent), []);
  const backfill = clusterAnswering(5);
  await runMigrations(backfill.engine, { cluster: 'main', backfill: true });
  t.match(mutations(backfill.sent), [/^\s*ALTER TABLE events_local ON CLUSTER main MATERIALIZE INDEX event_id_bytes/], 'with --backfill: the index, on the local tables');
});
