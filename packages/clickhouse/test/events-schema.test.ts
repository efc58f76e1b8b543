import { createHash } from 'node:crypto';
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Value from 'typebox/value';
import { createLogger } from '@chatlytics/core';
import { StoredEvent } from '@chatlytics/events';
import { createChdbEngine } from '../src/chdb-engine.js';
import { runMigrations } from '../src/migrations.js';
import { sqlFile } from '../src/sql-files.js';
import { tempDataDir, insertEvents } from './helpers.js';

/** The events schema against the StoredEvent shape, and the migration runner's rules. */
const engine = await createChdbEngine({ path: tempDataDir(t), database: 'analytics', log: createLogger('silent') });
t.teardown(() => engine.close());
await runMigrations(engine);

const purchase: StoredEvent = {
  event_id: '0190a3c4-0000-7000-8000-0000000000aa',
  event: 'purchase',
  token: 'visitor_token_1',
  chatbot_id: '5b0c1f0e-3c1d-4a59-9a55-6b1c1c1c1c1c',
  received_at: '2026-03-04 05:06:07.089',
  ab_test: true,
  ab_group: null,
  popup_version: 'v2',
  open_way: 'popup',
  order_num: 'ORD-1',
  currency: 'USD',
  total_value: 25.5,
  total_value_base: null,
  items: [
    { item_id: 'sku-1', value: 10, quantity: 2, currency: 'USD' },
    { item_id: "sku-'2'", value: 5.5, quantity: 1, currency: 'XXX' },
  ],
  url: 'https://shop.example/checkout?x=1',
  user_agent: 'Mozilla/5.0',
  client_hash: 'abc123',
  data: '{"orderNum":"ORD-1","items":[]}',
  is_bot: true,
  source: 'news.example',
  utm_medium: 'email',
  utm_campaign: 'spring',
  device: 'tablet',
  holdout: 'holdout',
};

t.test('a StoredEvent round-trips through events unchanged', async (t) => {
  t.ok(Value.Check(StoredEvent, purchase), 'the sample is a valid StoredEvent');
  const control = { ...purchase, event_id: '0190a3c4-0000-7000-8000-0000000000bb', ab_group: 'control' as const, total_value_base: 23.4, items: [] };
  await insertEvents(engine, [purchase, control], 'round-trip');
  const rows = await engine.query<Record<string, unknown>>('SELECT * EXCEPT (inserted_at, prev_copy_at, token_id, token_id_new, insert_key) FROM events ORDER BY event_id');
  t.same(rows, [purchase, control], 'every column comes back as inserted (items as objects, nulls kept)');
  const [meta] = await engine.query<{ inserted_at: string }>('SELECT inserted_at FROM events LIMIT 1');
  t.match(meta.inserted_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/, 'inserted_at filled by default');
  const items = await engine.query('SELECT it.item_id AS id, it.value * it.quantity AS line FROM events ARRAY JOIN items AS it ORDER BY id');
  t.same(items, [{ id: "sku-'2'", line: 5.5 }, { id: 'sku-1', line: 20 }], 'item tuples are addressable by name');
});

t.test('is_bot: after data in column order; a row without it (older messages) reads false', async (t) => {
  const columns = await engine.query<{ name: string }>("SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'events' ORDER BY position");
  t.same(columns.map((c) => c.name), [...Object.keys(StoredEvent.properties), 'inserted_at', 'prev_copy_at', 'token_id', 'token_id_new', 'insert_key'], 'the StoredEvent properties in order, then inserted_at, prev_copy_at, token_id, token_id_new and insert_key');
  const { is_bot: _, source: _s, utm_medium: _m, utm_campaign: _c, device: _d, holdout: _h, ...old } = { ...purchase, event_id: '0190a3c4-0000-7000-8000-0000000000cc', chatbot_id: 'old-message' };
  await insertEvents(engine, [old], 'old-message');
  t.same(await engine.query("SELECT is_bot, source, utm_medium, utm_campaign, device, holdout FROM events WHERE chatbot_id = 'old-message'"),
    [{ is_bot: false, source: '', utm_medium: '', utm_campaign: '', device: '', holdout: '' }], 'and no segment, no holdout arm');
});

t.test('a retried beacon with a later received_at is kept, with its earlier copy\'s time; SQL dedups by event_id', async (t) => {
  const original = { ...purchase, event_id: '0190a3c4-0000-7000-8000-0000000000dd', is_bot: false };
  const retry = { ...original, received_at: '2026-03-04 05:06:09.000' };
  await insertEvents(engine, [original, retry], 'retry');
  const copies = await engine.query<{ received_at: string; prev_copy_at: string }>(
    'SELECT received_at, prev_copy_at FROM events FINAL WHERE event_id = {id:UUID} ORDER BY received_at', { id: original.event_id });
  t.same(copies, [
    { received_at: original.received_at, prev_copy_at: '1970-01-01 00:00:00.000' },
    { received_at: retry.received_at, prev_copy_at: original.received_at },
  ], 'different sorting key: the engine keeps both; the retry names its earlier copy');
  const dedup = await engine.query<{ received_at: string }>(
    `SELECT received_at FROM events WHERE event_id = {id:UUID}
     ORDER BY received_at LIMIT 1 BY event_id`, { id: original.event_id });
  t.same(dedup.map((r) => r.received_at), [original.received_at], 'README query keeps the earliest copy of each event');
});

t.test("one visitor's rows are found through idx_token, not by reading every token of the chatbot", async (t) => {
  // 40,000 rows of 4,000 visitors, each visitor's ten rows in one time span, so in one granule
  // (8,192 rows) of the time-ordered table: the other four granules hold none of them.
  const chatbotId = 'token-index';
  await engine.command(`INSERT INTO events (event_id, event, token, chatbot_id, received_at)
    SELECT generateUUIDv4(), 'visit', concat('visitor-', toString(intDiv(number, 10))), {c:String},
      toDateTime64('2026-03-01 00:00:00', 3, 'UTC') + toIntervalSecond(number)
    FROM numbers(40000)`, { c: chatbotId });
  await engine.command('OPTIMIZE TABLE events FINAL');
  const params = { chatbot_id: chatbotId, token: 'visitor-2345' };
  const plan = (await engine.query<{ explain: string }>(`EXPLAIN indexes = 1 ${sqlFile('privacy/token_footprint')}`, params)).map((r) => r.explain).join('\n');
  const granules = /Name: idx_token[\s\S]*?Granules: (\d+)\/(\d+)/.exec(plan);
  t.ok(granules, 'the erasure\'s footprint read consults the token index');
  t.equal(Number(granules?.[1]), 1, `one granule of ${granules?.[2]} read`);
  const [footprint] = await engine.query<{ events: string }>(sqlFile('privacy/token_footprint'), params);
  t.equal(Number(footprint.events), 10, 'and its ten rows found');
});

t.test('events_rejected stores a reason code and the raw payload', async (t) => {
  // A recent time: rows older than the 90-day TTL are dropped as soon as they are written.
  const recent = new Date(Date.now() - 86_400_000).toISOString().replace('T', ' ').slice(0, 23);
  const row = { received_at: recent, reason: 'invalid_schema', error: '/token: too short', payload: '{"token":"x"}', source: 'consumer' };
  await engine.insert('events_rejected', [row]);
  t.same(await engine.query('SELECT * FROM events_rejected'), [{ ...row, chatbot_id: '', event_id: '' }], 'chatbot and event id empty for the consumer\'s own rejections');
});

t.test('migration runner rules', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'chatlytics-migrations-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, '0001_a.sql'), "CREATE TABLE IF NOT EXISTS m_a (s String DEFAULT 'x;y') ENGINE = Memory; -- a; comment\nCREATE TABLE IF NOT EXISTS m_b (n UInt8) ENGINE = Memory;");
  writeFileSync(path.join(dir, 'README.md'), 'not a migration');
  await engine.command('DROP TABLE IF EXISTS schema_migrations');
  t.same((await runMigrations(engine, dir)).applied, ['0001_a'], 'two statements, one with a ; in a string');
  writeFileSync(path.join(dir, '0002_b.sql'), 'INSERT INTO m_b VALUES (1)');
  t.same((await runMigrations(engine, dir)).applied, ['0002_b'], 'only the new one');
  t.same((await runMigrations(engine, dir)).applied, [], 'then nothing');
  t.same(await engine.query('SELECT n FROM m_b'), [{ n: 1 }], 'a data migration ran exactly once');
  writeFileSync(path.join(dir, '0002_b.sql'), '-- Corrected: the row the table starts with.\nINSERT INTO   m_b VALUES (1)  -- one row\n');
  t.same((await runMigrations(engine, dir)).applied, [], 'comments and spacing corrected: the same migration');
  t.same(await engine.query('SELECT n FROM m_b'), [{ n: 1 }], 'and not run again');
  // A ledger of the whole text's digest (as written before statement digests): still the same
  // migration, recorded again with the statements' digest, after which its comments may change.
  const [{ version, name }] = await engine.query<{ version: number; name: string }>('SELECT version, name FROM schema_migrations WHERE version = 2');
  const text = '-- Corrected: the row the table starts with.\nINSERT INTO   m_b VALUES (1)  -- one row\n';
  await engine.insert('schema_migrations', [{ version, name, checksum: createHash('sha256').update(text).digest('hex') }]);
  await runMigrations(engine, dir);
  writeFileSync(path.join(dir, '0002_b.sql'), '-- Corrected twice.\nINSERT INTO m_b VALUES (1)');
  t.same((await runMigrations(engine, dir)).applied, [], 'an old ledger row of the text is upgraded, then comments may change');
  writeFileSync(path.join(dir, '0002_b.sql'), 'INSERT INTO m_b VALUES (2)');
  await t.rejects(runMigrations(engine, dir), { code: 'CLICKHOUSE_005', message: /0002_b\.sql was changed/ }, 'a statement changed: refused');
  writeFileSync(path.join(dir, '0002_b.sql'), 'INSERT INTO m_b VALUES (1)');
  writeFileSync(path.join(dir, '0001_a.sql'), 'CREATE TABLE IF NOT EXISTS m_a (s String) ENGINE = Memory');
  await t.rejects(runMigrations(engine, dir), { code: 'CLICKHOUSE_005', message: /0001_a\.sql was changed/ });
  writeFileSync(path.join(dir, '3_bad.sql'), 'SELECT 1');
  await t.rejects(runMigrations(engine, dir), { code: 'CLICKHOUSE_005', message: /NNNN_name/ });
  rmSync(path.join(dir, '3_bad.sql'));
  writeFileSync(path.join(dir, '0002_dup.sql'), 'SELECT 1');
  await t.rejects(runMigrations(engine, dir), { message: /share version 0002/ });
});
