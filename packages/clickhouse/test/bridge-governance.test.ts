import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { createChdbEngine, MIGRATIONS_DIR, splitStatements } from '../src/index.js';
import { sqlApiKeyAuth, sqlKeyAuth, createQueryLogWriter, type SqlQueryLogEntry } from '../src/http-bridge/index.js';
import { SessionPool } from '../src/http-bridge/sessions.js';
import { startBridge, tempDataDir } from './helpers.js';

/**
 * The data team's interface under governance: limits with ClickHouse's own codes and 4xx,
 * the concurrency limit and per-key quotas (429 + Retry-After), the refusals, the query log
 * and cancellation when the client goes away. Small limits keep it fast; the defaults and the
 * memory test under tracking load are in services/standalone.
 */
const KEY = 'governance-test-key-0123456789';
const dir = tempDataDir(t);
const logged: SqlQueryLogEntry[] = [];
const engine = await createChdbEngine({ path: dir, database: 'analytics', log: pino({ level: 'silent' }) });
const writer = createQueryLogWriter(engine, pino({ level: 'silent' }), { flushMs: 50 });
const named = new Map([['analyst-key-000000000000', { name: 'analyst', quota: { queriesPerHour: 3, readRowsPerHour: 1e12 } }],
  ['rows-key-0000000000000000', { name: 'rows', quota: { queriesPerHour: 100, readRowsPerHour: 1000 } }]]);
const { app, url } = await startBridge([
  {
    prefix: '/clickhouse',
    opts: {
      sessionPath: dir, database: 'analytics', readonly: true,
      authenticate: sqlKeyAuth({ bootstrapKey: KEY, lookup: async (k) => named.get(k) ?? null }),
      limits: { maxMemoryUsage: 200_000_000, maxResultRows: 100, maxRowsToRead: 50_000_000, maxExecutionTime: 10, maxConcurrentQueries: 1 },
      queueWaitMs: 300,
      onQueryLogged: (e) => { logged.push(e); writer.write(e); },
    },
  },
  { prefix: '/one', opts: { sessionPath: dir, database: 'analytics', readonly: true, authenticate: sqlApiKeyAuth(KEY), onQueryLogged: (e) => logged.push(e) } },
]);
t.teardown(async () => {
  // Sockets fetch keeps pooled (bodies the tests did not read) would hold server.close() for a minute.
  app.server.closeAllConnections();
  await app.close();
  await writer.close();
  await engine.close();
});

const sql = (body: string, key = KEY, init: RequestInit = {}) =>
  fetch(`${url}/clickhouse/`, { method: 'POST', body, headers: { authorization: `Bearer ${key}` }, ...init });

t.before(async () => {
  const migration = readFileSync(path.join(MIGRATIONS_DIR, '0010_sql_query_log.sql'), 'utf8');
  for (const stmt of splitStatements(migration)) await engine.command(stmt);
});

t.test('unknown keys are refused (revoked and expired ones resolve to nothing: dashboard sql-keys.test)', async (t) => {
  const res = await sql('SELECT 1', 'no-such-key-000000000000');
  t.equal(res.status, 401);
  t.equal(res.headers.get('x-clickhouse-exception-code'), '516');
  t.equal((await sql('SELECT 1', 'analyst-key-000000000000')).status, 200, 'a named key');
});

t.test('everything refused before stays refused', async (t) => {
  const cases: [string, number][] = [
    // Refused by the sandbox before the engine sees them (bridge-sandbox.test.ts has every form).
    ["SELECT * FROM file('/etc/passwd', 'LineAsString')", 497],
    ["SELECT * FROM url('http://127.0.0.1:1/x', 'CSV', 'a String')", 497],
    ["SELECT * FROM postgresql('127.0.0.1:5432', 'postgres', 't', 'postgres', '')", 497],
    ["SELECT * FROM executable('id', 'TSV', 'a String')", 497],
    ["INSERT INTO sql_query_log (query_id) VALUES ('x')", 164],
    ['DROP TABLE sql_query_log', 164],
    ['CREATE TABLE x (a UInt8) ENGINE = Memory', 164],
    ["KILL QUERY WHERE query LIKE '%' ASYNC", 164],
    ['SYSTEM DROP DNS CACHE', 164],
    ['SELECT 1 SETTINGS readonly = 0', 164],
    ['SELECT 1 SETTINGS max_memory_usage = 0', 164],
    ['SET readonly = 0', 164],
  ];
  for (const [body, code] of cases) {
    const res = await sql(body);
    t.equal(res.headers.get('x-clickhouse-exception-code'), String(code), body);
    t.ok(res.status >= 400 && res.status < 500, `${body}: 4xx (${res.status})`);
  }
  const count = await engine.query<{ n: string }>('SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = {n:String}', { n: 'sql_query_log' });
  t.equal(count[0].n, '1', 'the log table is still there');
});

t.test('limits fail with ClickHouse codes and a 4xx', async (t) => {
  const cases: [string, number, RegExp][] = [
    ['SELECT length(groupArray(toString(number))) FROM numbers(30000000)', 241, /MEMORY_LIMIT_EXCEEDED/],
    ['SELECT number FROM numbers(1000)', 396, /TOO_MANY_ROWS_OR_BYTES/],
    ['SELECT count() FROM numbers(60000000)', 158, /TOO_MANY_ROWS/],
  ];
  for (const [body, code, text] of cases) {
    const res = await sql(body);
    t.equal(res.status, 400, body);
    t.equal(res.headers.get('x-clickhouse-exception-code'), String(code), body);
    t.match(await res.text(), text);
  }
  const settings = await (await sql("SELECT name, value FROM system.settings WHERE name IN ('max_memory_usage', 'max_result_rows', 'max_rows_to_read', 'max_execution_time', 'readonly') ORDER BY name FORMAT JSONEachRow")).text();
  t.same(settings.trim().split('\n').map((l) => JSON.parse(l)), [
    { name: 'max_execution_time', value: '10' }, { name: 'max_memory_usage', value: '200000000' },
    { name: 'max_result_rows', value: '100' }, { name: 'max_rows_to_read', value: '50000000' }, { name: 'readonly', value: '1' },
  ]);
  const defaults = await fetch(`${url}/one/?query=${encodeURIComponent("SELECT value FROM system.settings WHERE name = 'max_memory_usage'")}`, { headers: { authorization: `Bearer ${KEY}` } });
  t.equal(await defaults.text(), '2000000000\n', 'default: 2 GB per query');
});

t.test('concurrency: the next query waits briefly, then 429 with Retry-After', async (t) => {
  const slow = sql('SELECT sleepEachRow(0.4) FROM numbers(3) FORMAT Null');
  await new Promise((r) => setTimeout(r, 100));
  const next = await sql('SELECT 1');
  t.equal(next.status, 429);
  t.equal(next.headers.get('x-clickhouse-exception-code'), '202');
  t.equal(next.headers.get('retry-after'), '1');
  t.match(await next.text(), /TOO_MANY_SIMULTANEOUS_QUERIES/);
  t.equal((await slow).status, 200);
  t.equal((await sql('SELECT 1')).status, 200, 'a slot is free again');
});

t.test('quotas per key: queries and rows read per hour', async (t) => {
  for (let i = 0; i < 2; i++) t.equal((await sql('SELECT 1', 'analyst-key-000000000000')).status, 200);
  const over = await sql('SELECT 1', 'analyst-key-000000000000');
  t.equal(over.status, 429);
  t.equal(over.headers.get('x-clickhouse-exception-code'), '201');
  const retry = Number(over.headers.get('retry-after'));
  t.ok(retry > 3000 && retry <= 3600, `Retry-After ${retry} s: until the interval ends`);
  const text = await over.text();
  t.match(text, /queries = 4\/3/, text);
  t.equal((await sql('SELECT 1')).status, 200, 'other keys are not affected');
  // Long enough (≫ the 100 ms sampling interval) for its rows read to be seen.
  const heavy = await sql('SELECT count() FROM numbers(10000000) WHERE sipHash64(number) % 7 = 1', 'rows-key-0000000000000000');
  t.equal(heavy.status, 200);
  const rows = await sql('SELECT 1', 'rows-key-0000000000000000');
  t.equal(rows.status, 429, 'read rows over the budget');
  t.match(await rows.text(), /read rows = \d{4,}\/1000/);
});

t.test('a client that goes away cancels its query', async (t) => {
  const ac = new AbortController();
  const started = Date.now();
  // On the mount with the default limits: long enough to be cancelled well before its end.
  const pending = fetch(`${url}/one/`, {
    method: 'POST', body: 'SELECT count() FROM numbers_mt(900000000) WHERE sipHash64(number) % 7 = 1', headers: { authorization: `Bearer ${KEY}` }, signal: ac.signal,
  });
  void pending.catch(() => undefined);
  await new Promise((r) => setTimeout(r, 400));
  ac.abort();
  await t.rejects(pending);
  let entry: SqlQueryLogEntry | undefined;
  for (let i = 0; i < 50 && !entry; i++) {
    entry = logged.find((e) => e.status === 'cancelled');
    if (!entry) await new Promise((r) => setTimeout(r, 100));
  }
  t.ok(entry, 'logged as cancelled');
  t.equal(entry?.error_code, 394, 'QUERY_WAS_CANCELLED');
  t.ok(Date.now() - started < 8000, 'ended long before its natural end');
});

t.test("a key's queries are in sql_query_log, normalised, with their outcome", async (t) => {
  await writer.flush();
  const rows = await engine.query<Record<string, string | number | null>>(
    "SELECT query, status, error_code, read_rows, duration_ms FROM sql_query_log WHERE key_name = 'analyst' ORDER BY started_at");
  t.equal(rows.length, 4, 'three answered, one over quota');
  t.same(rows.map((r) => r.status), ['ok', 'ok', 'ok', 'error']);
  t.same(rows.map((r) => r.error_code), [0, 0, 0, 201]);
  t.equal(rows[0].query, 'SELECT ?', 'literals normalised away');
  const refused = await engine.query<Record<string, string | number>>(
    "SELECT query, error_code FROM sql_query_log WHERE key_name = 'bootstrap' AND error_code = 241");
  t.equal(refused.length, 1, 'the memory-limit failure is logged with its code');
  const peaks = await engine.query<{ peak: string | null }>(
    "SELECT max(peak_memory_usage) AS peak FROM sql_query_log WHERE key_name = 'bootstrap' AND error_code = 241");
  t.ok(peaks[0].peak === null || Number(peaks[0].peak) > 0, 'peak memory sampled when the query ran long enough');
});

t.test('each key runs on a session of its own; idle sessions beyond the bound are closed, least recently used first', async (t) => {
  const pool = new SessionPool({ path: dir, readonlyArgs: [], maxSessions: 2 });
  t.teardown(() => pool.close());
  const session = (owner: string) => pool.run(owner, 'analytics', true, async (s) => s);
  const a = await session('a');
  t.equal(await session('a'), a, 'the same key, the same session');
  const b = await session('b');
  t.not(b, a, 'another key, another session');
  await session('c');
  t.not(await session('a'), a, "the least recently used key's idle session was closed and opened again");
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  const held = ['d', 'e'].map((owner) => pool.run(owner, 'analytics', true, () => gate));
  await t.rejects(session('f'), { message: /TOO_MANY_SIMULTANEOUS_QUERIES/ }, 'all sessions busy: refused, none taken from a running query');
  release();
  await Promise.all(held);
  t.ok(await session('f'), 'a session is free again');
});

t.test("a query runs for its whole max_execution_time though the host's idle timeout is shorter, then fails with 408 and code 159", async (t) => {
  const host = await startBridge([{ prefix: '/clickhouse', opts: { sessionPath: dir, database: 'analytics', readonly: true, authenticate: sqlApiKeyAuth(KEY), limits: { maxExecutionTime: 3, maxRowsToRead: 1e12 } } }],
    { connectionTimeout: 1000 });
  t.teardown(async () => { host.app.server.closeAllConnections(); await host.app.close(); });
  const post = (body: string) => fetch(`${host.url}/clickhouse/`, { method: 'POST', body, headers: { authorization: `Bearer ${KEY}` } });
  const slow = await post('SELECT sum(sleepEachRow(0.4)) FROM numbers(5)');
  t.equal(slow.status, 200, 'two seconds of silence, twice the idle timeout: answered');
  t.equal(await slow.text(), '0\n');
  const started = Date.now();
  const over = await post('SELECT count() FROM (SELECT number FROM system.numbers LIMIT 100000000000) WHERE sipHash64(number) = 0');
  t.equal(over.status, 408, `cut by the engine after ${Date.now() - started} ms`);
  t.equal(over.headers.get('x-clickhouse-exception-code'), '159');
  t.match(await over.text(), /TIMEOUT_EXCEEDED/);
});
