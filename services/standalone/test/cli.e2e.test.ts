import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { pino } from 'pino';
import { sql } from 'drizzle-orm';
import { acquireDataDirLock, loadConfig } from '@chatlytics/core';
import { createPostgres } from '@chatlytics/postgres';
import { createEventBus } from '@chatlytics/bus';
import { encodeStoredEvent, eventIdFromSeed, formatReceivedAt, type StoredEvent } from '@chatlytics/events';
import { dashboardApp } from '@chatlytics/dashboard';
import { openEngines } from '../src/engines.js';
import { cli, type CliRun } from './child.js';

/**
 * `npm run cli -- <command>` end to end: each command runs as its own process, exactly as the
 * script starts it, on one embedded DATA_DIR. Engine start-up costs seconds per process, so
 * the commands run in one sequence and each invocation carries several assertions.
 */
const silent = pino({ level: 'silent' });

type Run = CliRun;


const ACCOUNT = '0c000000-0000-4000-8000-000000000001';
const BOT = '0c000000-0000-4000-8000-0000000000b1';
const FIXTURE_KEY = 'ck_CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC';
const CLIENT_EVENT_ID = '0190a7c0-0000-7000-8000-000000000001';
const fixture = {
  accounts: [{
    id: ACCOUNT, name: 'Shop C', cmsProviders: ['shopify'],
    users: [{ email: 'cleo@shop-c.test', password: 'cleo-password', name: 'Cleo' }],
    apiKeys: [{ name: 'ci', key: FIXTURE_KEY }],
    chatbots: [{
      id: BOT, name: 'Bot C', status: 'active', language: 'en', integratedAt: '2026-01-31',
      createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-02-01T00:00:00.000Z',
      settings: { companyName: 'C', supportEmail: 's@shop-c.test', abTestEnabled: false },
      dataSources: [{
        id: '0c000000-0000-4000-8000-0000000000d1', name: 'Catalog', type: 'file', subtype: 'csv', status: 'completed',
        source: 'catalog.csv', documentCount: 1, productCount: 1, rawPath: 'raw/catalog.csv', rawContent: 'sku\n1\n',
        extraTags: [{ name: 'static_category', value: 'shoes' }],
        chunks: [{ id: '0c000000-0000-4000-8000-000000000101', index: 0, content: 'Red shoes', tokenCount: 2 }],
        children: [{ id: '0c000000-0000-4000-8000-0000000000d2', name: 'child', type: 'url', status: 'completed' }],
      }],
      conversations: [{
        id: '0c000000-0000-4000-8000-0000000000c1', startedAt: '2026-02-01T10:00:00.000Z',
        messages: [
          { role: 'user', content: 'hi', createdAt: '2026-02-01T10:00:00.000Z' },
          { role: 'assistant', content: 'hello', createdAt: '2026-02-01T10:01:00.000Z' },
        ],
        analysis: { intents: ['greeting'], mood: 'happy', outcome: 'success', converted: false },
      }],
    }],
  }],
  events: [
    { event: 'visitor', token: 'tok-aaaa-0001', data: { chatbot_id: BOT }, receivedAt: '2026-02-01T10:00:00.000Z' },
    // Legacy name, aliases and a foreign currency: normalised like the tracking endpoint does.
    { event: 'tracktrans', token: 'tok-aaaa-0001', data: { chatbot_id: BOT, orderNum: 'A-1', items: [{ id: 'sku1', price: 10, quantity: 2, currency: 'USD' }] }, receivedAt: '2026-02-01T10:05:00.000Z' },
    { event: 'visitor', token: 'tok-bbbb-0002', data: { chatbot_id: BOT, event_id: CLIENT_EVENT_ID }, receivedAt: '2026-03-01T10:00:00.000Z' },
    // The same client event id again (a retried beacon): stored once.
    { event: 'visitor', token: 'tok-bbbb-0002', data: { chatbot_id: BOT, event_id: CLIENT_EVENT_ID }, receivedAt: '2026-03-01T10:00:00.000Z' },
    { event: 'not_an_event', token: 'tok-cccc-0003', receivedAt: '2026-02-01T10:00:00.000Z' },
    { event: 'visitor', token: 'short', receivedAt: '2026-02-01T10:00:00.000Z' },
    { event: 'visitor', token: 'tok-dddd-0004', receivedAt: 'yesterday' },
    { event: 'visitor', token: 'tok-eeee-0005', receivedAt: '2999-01-01T00:00:00.000Z' },
  ],
};

/** Every row of every application table, as text: what "the import changed nothing" compares. */
async function dumpPostgres(dataDir: string): Promise<Record<string, string[]>> {
  const postgres = await createPostgres({ dataDir, log: silent });
  try {
    // Both drivers answer execute() with a `rows` array.
    const query = async <T>(q: ReturnType<typeof sql.raw>) => ((await postgres.db.execute(q)) as { rows: T[] }).rows;
    const tables = await query<{ table_name: string }>(sql`select table_name from information_schema.tables where table_schema = 'public' order by 1`);
    const out: Record<string, string[]> = {};
    for (const { table_name: name } of tables) {
      const rows = await query<{ r: string }>(sql.raw(`select row_to_json(t)::text as r from "${name}" t order by 1`));
      out[name] = rows.map((r) => r.r);
    }
    return out;
  } finally {
    await postgres.close();
  }
}

// Eight processes start PGlite and chdb in turn: under a shared 2-core machine's load that can
// exceed the suite's default 240 s per file, and a timeout would say nothing about the CLI.
t.setTimeout(600_000);

t.test('admin CLI on an embedded DATA_DIR', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-cli-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const fixtureFile = path.join(dataDir, 'fixture.json');
  fs.writeFileSync(fixtureFile, JSON.stringify(fixture));

  await t.test('usage errors: exit 1, a message on stderr, nothing on stdout', async (t) => {
    const cases: [string[], RegExp][] = [
      [[], /a command is required/],
      [['frobnicate'], /unknown command "frobnicate"/],
      [['users:create', '--email', 'x@y.test'], /--password is required/],
      [['users:create', '--email', 'x@y.test', '--password', 'short'], /at least 8 characters/],
      [['users:create', '--email', 'not-an-email', '--password', 'long-enough'], /not an e-mail address/],
      [['api-keys:create'], /--email is required/],
      [['api-keys:create', '--email', 'x@y.test', '--scope', 'admin'], /--scope must be read or manage/],
      [['import'], /import needs a file/],
      [['sql-keys:create'], /--name is required/],
      [['sql-keys:create', '--name', 'has space'], /--name: letters/],
      [['sql-keys:create', '--name', 'x', '--expires', 'soon'], /not an ISO-8601 date/],
      [['sql-keys:create', '--name', 'x', '--expires', '2020-01-01'], /must be in the future/],
      [['sql-keys:create', '--name', 'x', '--queries-per-hour', '0'], /positive integer/],
      [['sql-keys:revoke'], /--name or --id is required/],
      [['import', path.join(dataDir, 'missing.json')], /cannot read .*missing\.json/],
    ];
    // Side by side on one DATA_DIR: arguments are checked before the lock is taken.
    const runs = await Promise.all(cases.map(([args]) => cli(dataDir, args)));
    runs.forEach((run, i) => {
      t.equal(run.code, 1, `${cases[i][0].join(' ') || '(none)'}: exit 1`);
      t.match(run.stderr, cases[i][1]);
      t.equal(run.stdout, '');
    });
    t.notOk(fs.existsSync(path.join(dataDir, '.lock')) || fs.existsSync(path.join(dataDir, 'postgres')), 'neither lock nor engines touched');
    const help = await cli(dataDir, ['--help']);
    t.equal(help.code, 0);
    t.match(help.stdout, /users:create --email E --password P/);
  });

  await t.test('an invalid fixture is refused with every problem listed', async (t) => {
    const bad = path.join(dataDir, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify({ accounts: [{ id: 'not-a-uuid', name: '' }] }));
    const run = await cli(dataDir, ['import', bad]);
    t.equal(run.code, 1);
    t.match(run.stderr, /invalid fixture:\n {2}\/accounts\/0\/id: .*\n {2}\/accounts\/0\/name: /);
  });

  await t.test('a DATA_DIR held by another live process is refused', async (t) => {
    // This test process plays the running server.
    const lock = await acquireDataDirLock(dataDir, 'npm start');
    const run = await cli(dataDir, ['migrate']);
    await lock.release();
    t.equal(run.code, 1);
    t.match(run.stderr, new RegExp(`in use by another process \\(pid ${process.pid}, npm start\\)`));
    t.equal(run.stdout, '');
    t.notOk(fs.existsSync(path.join(dataDir, 'postgres')), 'no engine was opened');
  });

  // Every later command migrates again on start-up, so this also shows migrating twice is harmless.
  await t.test('migrate', async (t) => {
    const run = await cli(dataDir, ['migrate']);
    t.equal(run.code, 0, run.stderr);
    t.match(run.json(), { postgres: 'up to date', clickhouse: { alreadyApplied: 0 } });
    t.ok(run.json().clickhouse.applied.length >= 1, 'a fresh DATA_DIR gets every ClickHouse migration');
    t.notOk(fs.existsSync(path.join(dataDir, '.lock')), 'the lock is released on exit');
  });

  let createdKey = '';
  await t.test('users:create, its duplicate, api-keys:create', async (t) => {
    const created = await cli(dataDir, ['users:create', '--email', 'Owner@Shop-D.test', '--password', 'owner-password', '--account', 'Shop D']);
    t.equal(created.code, 0, created.stderr);
    t.match(created.json(), { id: String, email: 'owner@shop-d.test', accountId: String });
    t.notMatch(created.stdout, /owner-password/);

    const duplicate = await cli(dataDir, ['users:create', '--email', 'owner@shop-d.test', '--password', 'other-password']);
    t.equal(duplicate.code, 1);
    t.match(duplicate.stderr, /a user with e-mail owner@shop-d\.test already exists/);
    t.equal(duplicate.stdout, '');

    const key = await cli(dataDir, ['api-keys:create', '--email', 'owner@shop-d.test', '--name', 'ci']);
    t.equal(key.code, 0, key.stderr);
    // The management API's shape: the id is what api-keys:revoke takes.
    t.same(Object.keys(key.json()), ['id', 'name', 'prefix', 'scope', 'createdAt', 'lastUsedAt', 'key']);
    t.match(key.json(), { name: 'ci', scope: 'read', lastUsedAt: null }, 'a key reads unless asked for more');
    createdKey = key.json().key;
    t.match(createdKey, /^ck_[A-Za-z0-9_-]{22,}$/);
    const manager = await cli(dataDir, ['api-keys:create', '--email', 'owner@shop-d.test', '--name', 'ops', '--scope', 'manage']);
    t.equal(manager.code, 0, manager.stderr);
    t.match(manager.json(), { name: 'ops', scope: 'manage' });

  });

  await t.test('sql-keys:create shows the key once; list never; revoke', async (t) => {
    const created = await cli(dataDir, ['sql-keys:create', '--name', 'analyst', '--expires', '2999-01-01T00:00:00Z', '--queries-per-hour', '20']);
    t.equal(created.code, 0, created.stderr);
    const key = created.json();
    t.match(key, { name: 'analyst', expiresAt: '2999-01-01T00:00:00.000Z', queriesPerHour: 20, readRowsPerHour: null, revokedAt: null });
    t.match(key.key, /^cs_[A-Za-z0-9_-]{43}$/);
    const twice = await cli(dataDir, ['sql-keys:create', '--name', 'analyst']);
    t.equal(twice.code, 1);
    t.match(twice.stderr, /already named analyst/);
    const list = await cli(dataDir, ['sql-keys:list']);
    t.equal(list.code, 0, list.stderr);
    t.same(list.json().keys.map((k: { name: string }) => k.name), ['analyst']);
    t.notOk(list.stdout.includes(key.key), 'the key itself is never listed');
    const revoked = await cli(dataDir, ['sql-keys:revoke', '--name', 'analyst']);
    t.equal(revoked.code, 0, revoked.stderr);
    t.ok(revoked.json().revokedAt);
    const again = await cli(dataDir, ['sql-keys:revoke', '--id', key.id]);
    t.equal(again.code, 1);
    t.match(again.stderr, /no active SQL key/);
  });

  let afterFirstImport: Record<string, string[]> = {};
  await t.test('import: PostgreSQL rows, raw content, events validated and reported', async (t) => {
    const run = await cli(dataDir, ['import', fixtureFile]);
    t.equal(run.code, 0, run.stderr);
    const summary = run.json();
    t.match(summary, { accounts: 1, users: 1, apiKeys: 1, chatbots: 1, dataSources: 2, chunks: 1, conversations: 1, messages: 2, analyses: 1, rawContents: 1 });
    t.match(summary.events, { accepted: 3, inserted: 3, alreadyStored: 0, duplicatesInFile: 1 });
    t.same(summary.events.rejected.map((r: { index: number; code: string; errors: object }) => [r.index, r.code, Object.keys(r.errors)]), [
      [4, 'ANALYTICS_005', ['event']],
      [5, 'ANALYTICS_005', ['token']],
      [6, 'ANALYTICS_005', ['receivedAt']],
      [7, 'ANALYTICS_005', ['receivedAt']],
    ]);
    t.equal(fs.readFileSync(path.join(dataDir, 'storage/raw/catalog.csv'), 'utf8'), 'sku\n1\n');
    afterFirstImport = await dumpPostgres(dataDir);
    t.equal(afterFirstImport.chatbots?.length, 1, 'the dump sees the imported tables');
  });

  await t.test('import again: nothing changes', async (t) => {
    const run = await cli(dataDir, ['import', fixtureFile]);
    t.equal(run.code, 0, run.stderr);
    t.match(run.json().events, { accepted: 3, inserted: 0, alreadyStored: 3 });
    t.same(await dumpPostgres(dataDir), afterFirstImport, 'every PostgreSQL row identical');
  });

  // Two events that reached the embedded bus (published by a server that then stopped).
  const busStart = new Date();
  const replayed: StoredEvent[] = ['replay-token-01', 'replay-token-02'].map((token) => ({
    event_id: eventIdFromSeed(`cli-test:${token}`), event: 'visitor', token, chatbot_id: 'replay-bot',
    received_at: formatReceivedAt(busStart), ab_test: false, ab_group: null, popup_version: '', open_way: '', order_num: '',
    currency: '', total_value: 0, total_value_base: null, items: [], url: '', user_agent: '', client_hash: '', data: '{}',
  }));
  await t.test('replay --from re-inserts what the bus holds, once', async (t) => {
    const config = loadConfig({ DATA_DIR: dataDir });
    const bus = await createEventBus(config, silent);
    await bus.publish(replayed.map(encodeStoredEvent));
    await bus.close();
    const from = new Date(busStart.getTime() - 60_000).toISOString();

    const run = await cli(dataDir, ['replay', '--from', from]);
    t.equal(run.code, 0, run.stderr);
    // The bus holds the three imported events too (an import goes through it): stored already.
    t.match(run.json(), { stream: 'events', from, messages: 5, inserted: 2, duplicates: 3, rejected: 0 });
    const [badFrom, badStream] = await Promise.all([
      cli(dataDir, ['replay', '--from', 'yesterday']),
      // Checked by the consumer's runReplayCommand once the engines are open: still a usage error.
      cli(dataDir, ['replay', `--from=${from}`, '--stream', 'sideways']),
    ]);
    t.equal(badFrom.code, 1);
    t.match(badFrom.stderr, /--from must be an ISO-8601 date or time/);
    t.equal(badFrom.stdout, '');
    t.equal(badStream.code, 1);
    t.match(badStream.stderr, /--stream must be events or dead-letter/);
    t.equal(badStream.stdout, '');
  });

  await t.test('rollups:rebuild computes the rollups again from events', async (t) => {
    const run = await cli(dataDir, ['rollups:rebuild']);
    t.equal(run.code, 0, run.stderr);
    // The imported purchase carries order A-1: the one order of the rollup; its token is one of the token ids.
    t.match(run.json(), { rebuilt: { partitions: Number, rows: { order_first_purchases: 1, purchases: 1 } } });
  });

  // Last: chdb binds this process to the DATA_DIR, so no CLI process may follow.
  await t.test('what the commands left behind, seen by the engines and the dashboard', async (t) => {
    const config = loadConfig({ DATA_DIR: dataDir, SESSION_SECRET: 'cli-test-session-secret'.padEnd(40, 'x') });
    const engines = await openEngines(config, silent, undefined, { migrate: false, bus: false });
    t.teardown(() => engines.close());

    const rows = await engines.clickhouse.query<{ event_id: string; event: string; token: string; total_value_base: number | null }>(
      'SELECT toString(event_id) AS event_id, event, token, total_value_base FROM events WHERE chatbot_id = {bot:String} ORDER BY received_at, event_id',
      { bot: BOT },
    );
    t.equal(rows.length, 3, 'each valid event stored exactly once over two imports (raw count, no FINAL)');
    t.same(rows.map((r) => r.event), ['visitor', 'purchase', 'visitor']);
    t.equal(Math.round(rows[1].total_value_base! * 100) / 100, 18.4, '2 × 10 USD at 0.92');
    t.equal(rows[2].event_id, CLIENT_EVENT_ID, 'a client event id is kept');
    const fromBus = await engines.clickhouse.query<{ n: string }>("SELECT count() AS n FROM events WHERE chatbot_id = 'replay-bot'");
    t.equal(Number(fromBus[0].n), 2);
    const ids = await engines.clickhouse.query<{ tokens: string; ids: string; rows: string }>(
      'SELECT uniqExact(token) AS tokens, uniqExact(token_id) AS ids, countIf(token_id = 0) AS rows FROM events WHERE NOT is_bot');
    t.match(ids[0], { rows: '0' }, 'every row carries its token id, through the import, the replay and the rebuild');
    t.equal(ids[0].tokens, ids[0].ids, 'one id per token');

    const app = Fastify({ logger: false });
    await app.register(dashboardApp, { config, postgres: engines.postgres });
    t.teardown(() => app.close());
    const list = (key: string) => app.inject({ method: 'GET', url: '/api/dashboard/chatbots', headers: { authorization: `Bearer ${key}` } });
    const own = await list(createdKey);
    t.equal(own.statusCode, 200, 'the key printed by api-keys:create authenticates');
    t.same(own.json().data.chatbots, [], 'a new account has no chatbots');
    const imported = await list(FIXTURE_KEY);
    t.equal(imported.statusCode, 200, 'the fixture key authenticates');
    t.same(imported.json().data.chatbots.map((c: { id: string }) => c.id), [BOT]);
    t.equal((await list('ck_' + 'x'.repeat(43))).statusCode, 401);
  });
});
