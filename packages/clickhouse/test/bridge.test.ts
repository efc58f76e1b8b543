import t from 'tap';
import { gzipSync } from 'node:zlib';
import { createClient, ClickHouseLogLevel } from '@clickhouse/client';
import Fastify from 'fastify';
import { clickhouseHttp, sqlApiKeyAuth } from '../src/http-bridge/index.js';
import { startBridge, tempDataDir } from './helpers.js';

/**
 * The ClickHouse HTTP interface over the embedded engine, spoken to with plain fetch (as
 * curl would) and with @clickhouse/client. Two mounts on one data directory: /clickhouse
 * as the service mounts it (read-only, key required) and /rw (writable) to set up data.
 */
const KEY = 'test-sql-api-key-0123456789';
const dir = tempDataDir(t);
const { app, url } = await startBridge([
  { prefix: '/clickhouse', opts: { sessionPath: dir, database: 'analytics', readonly: true, authenticate: sqlApiKeyAuth(KEY), limits: { maxExecutionTime: 5 } } },
  { prefix: '/rw', opts: { sessionPath: dir, database: 'analytics', readonly: false } },
]);
t.teardown(() => app.close());

const bearer = { authorization: `Bearer ${KEY}` };
const ro = (qs: string, init: RequestInit = {}) =>
  fetch(`${url}/clickhouse/?${qs}`, { ...init, headers: { ...bearer, ...(init.headers ?? {}) } });
const rw = async (sql: string) => {
  const res = await fetch(`${url}/rw/?database=default`, { method: 'POST', body: sql });
  if (res.status !== 200) throw new Error(await res.text());
};

t.before(async () => {
  await rw('CREATE DATABASE IF NOT EXISTS analytics');
  await rw('CREATE DATABASE IF NOT EXISTS other');
  await rw('CREATE TABLE analytics.t (n UInt32, s String) ENGINE = MergeTree ORDER BY n');
  await rw("INSERT INTO analytics.t VALUES (1, 'one'), (2, 'two'), (3, 'it''s')");
  await rw('CREATE TABLE other.o (x String) ENGINE = MergeTree ORDER BY x');
  await rw("INSERT INTO other.o VALUES ('from other')");
});

t.test('/ping answers Ok. without credentials', async (t) => {
  const res = await fetch(`${url}/clickhouse/ping`);
  t.equal(res.status, 200);
  t.equal(await res.text(), 'Ok.\n');
});

t.test('authentication', async (t) => {
  const none = await fetch(`${url}/clickhouse/?query=SELECT%201`);
  t.equal(none.status, 401);
  t.equal(none.headers.get('x-clickhouse-exception-code'), '516');
  t.match(await none.text(), /^Code: 516\. DB::Exception: .*\(AUTHENTICATION_FAILED\)\n$/);
  const wrong = await fetch(`${url}/clickhouse/?query=SELECT%201`, { headers: { authorization: 'Bearer nope' } });
  t.equal(wrong.status, 401);
  const basicWrong = await fetch(`${url}/clickhouse/?query=SELECT%201`, { headers: { authorization: `Basic ${Buffer.from(`default:${KEY}x`).toString('base64')}` } });
  t.equal(basicWrong.status, 401, 'a longer key is not a match');
  for (const [how, headers] of Object.entries<Record<string, string>>({
    basic: { authorization: `Basic ${Buffer.from(`anyone:${KEY}`).toString('base64')}` },
    bearer,
    'x-clickhouse-key': { 'x-clickhouse-key': KEY },
  })) {
    const res = await fetch(`${url}/clickhouse/?query=SELECT%201`, { headers });
    t.equal(res.status, 200, how);
    t.equal(await res.text(), '1\n', how);
  }
  const inQuery = await fetch(`${url}/clickhouse/?query=SELECT%201&password=${KEY}`);
  t.equal(inQuery.status, 401, 'never from the query string');
});

t.test('GET query, TabSeparated by default', async (t) => {
  const res = await ro(`query=${encodeURIComponent('SELECT n, s FROM t ORDER BY n')}`);
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-clickhouse-format'), 'TabSeparated');
  t.match(res.headers.get('content-type'), /^text\/tab-separated-values/);
  t.equal(await res.text(), "1\tone\n2\ttwo\n3\tit\\'s\n");
  t.ok(res.headers.get('x-clickhouse-query-id'), 'query id header');
  t.equal(JSON.parse(res.headers.get('x-clickhouse-summary')!).read_rows, '3');
});

t.test('POST with the query in the body; default_format; FORMAT clause wins', async (t) => {
  const res = await ro('default_format=JSONEachRow', { method: 'POST', body: 'SELECT n FROM t WHERE n > 1 ORDER BY n' });
  t.equal(res.headers.get('x-clickhouse-format'), 'JSONEachRow');
  t.equal(await res.text(), '{"n":2}\n{"n":3}\n');
  const csv = await ro('default_format=JSONEachRow', { method: 'POST', body: 'SELECT n FROM t ORDER BY n LIMIT 1 FORMAT CSV' });
  t.equal(csv.headers.get('x-clickhouse-format'), 'CSV');
  t.equal(await csv.text(), '1\n');
  const both = await ro(`query=${encodeURIComponent('SELECT n FROM t')}&default_format=JSONEachRow`, { method: 'POST', body: 'WHERE n = 2' });
  t.equal(await both.text(), '{"n":2}\n', 'URL query continued by the body');
});

t.test('param_<name> binds typed parameters', async (t) => {
  const sql = 'SELECT n FROM t WHERE s = {s:String} OR n IN {ns:Array(UInt32)} ORDER BY n';
  const res = await ro(`default_format=JSONEachRow&query=${encodeURIComponent(sql)}&param_s=${encodeURIComponent("it\\'s")}&param_ns=${encodeURIComponent('[1]')}`);
  t.equal(await res.text(), '{"n":1}\n{"n":3}\n');
  const tuple = await ro(`default_format=JSONEachRow&query=${encodeURIComponent('SELECT {a:Array(String)} AS a, {u:UInt64} AS u')}&param_a=${encodeURIComponent("['x\\'y','b\\\\c']")}&param_u=18446744073709551615`);
  t.equal(await tuple.text(), '{"a":["x\'y","b\\\\c"],"u":"18446744073709551615"}\n', 'escaped array elements, 64-bit quoted');
  const missing = await ro(`query=${encodeURIComponent('SELECT {x:String}')}`);
  t.equal(missing.status, 400);
  t.equal(missing.headers.get('x-clickhouse-exception-code'), '456');
});

t.test('a URL as long as ClickHouse takes: 5,000 bound UUIDs (~230 kB) through @clickhouse/client', async (t) => {
  const ids = Array.from({ length: 5000 }, () => crypto.randomUUID());
  const client = createClient({ url, pathname: '/clickhouse', password: KEY, database: 'analytics', log: { level: ClickHouseLogLevel.OFF } });
  t.teardown(() => client.close());
  const rs = await client.query({ query: 'SELECT length({ids:Array(UUID)}) AS n, toString({ids:Array(UUID)}[5000]) AS last', query_params: { ids }, format: 'JSONEachRow' });
  t.same(await rs.json(), [{ n: '5000', last: ids[4999] }]);
});

t.test('registration refuses a host server that cuts URLs at Node\'s default 16 KiB (CLICKHOUSE_007)', async (t) => {
  const host = Fastify({ logger: false });
  t.teardown(() => host.close());
  host.register(clickhouseHttp, { sessionPath: dir, database: 'analytics', readonly: true });
  await t.rejects(async () => { await host.ready(); }, { code: 'CLICKHOUSE_007' });
});

t.test('database selects the session', async (t) => {
  const res = await ro(`database=other&query=${encodeURIComponent('SELECT x FROM o')}`);
  t.equal(await res.text(), 'from other\n');
  const header = await ro(`query=${encodeURIComponent('SELECT currentDatabase()')}`, { headers: { 'x-clickhouse-database': 'other' } });
  t.equal(await header.text(), 'other\n');
  const unknown = await ro(`database=nope&query=SELECT%201`);
  t.equal(unknown.status, 404);
  t.equal(unknown.headers.get('x-clickhouse-exception-code'), '81');
  const after = await ro(`query=${encodeURIComponent('SELECT currentDatabase()')}`);
  t.equal(await after.text(), 'analytics\n', 'other requests keep their own database');
});

t.test('errors: status, code header and ClickHouse text', async (t) => {
  const res = await ro(`query=${encodeURIComponent('SELECT * FROM missing_table')}`);
  t.equal(res.status, 404);
  t.equal(res.headers.get('x-clickhouse-exception-code'), '60');
  t.match(await res.text(), /^Code: 60\. DB::Exception: .*\(UNKNOWN_TABLE\)/);
  const syntax = await ro('', { method: 'POST', body: 'SELEKT 1' });
  t.equal(syntax.status, 400);
  t.equal(syntax.headers.get('x-clickhouse-exception-code'), '62');
  const multi = await ro('', { method: 'POST', body: 'SELECT 1; SELECT 2' });
  t.equal(multi.status, 400);
  t.match(await multi.text(), /Multi-statements are not allowed/);
  const use = await ro('', { method: 'POST', body: '/* switch */ USE other' });
  t.equal(use.status, 501);
  t.equal(use.headers.get('x-clickhouse-exception-code'), '48');
  const empty = await ro('', { method: 'POST', body: '' });
  t.equal(empty.status, 400);
  const compressedBody = await ro('decompress=1', { method: 'POST', body: 'SELECT 1' });
  t.equal(compressedBody.status, 501, 'a natively compressed request body is not implemented');
  t.equal(compressedBody.headers.get('x-clickhouse-exception-code'), '48');
});

t.test('compress=1 is a protocol parameter, not a setting: the read-only interface answers in frames', async (t) => {
  const res = await ro(`compress=1&query=${encodeURIComponent("SELECT 'framed'")}`);
  t.equal(res.status, 200);
  const body = Buffer.from(await res.arrayBuffer());
  t.equal(body[16], 0x82, 'an LZ4 frame after the 16-byte checksum');
  t.equal(body.readUInt32LE(21), 'framed\n'.length, 'its raw size');
  t.equal(body.subarray(26).toString(), 'framed\n', 'one run of literals');
  const plain = await ro(`compress=0&query=${encodeURIComponent("SELECT 'plain'")}`);
  t.equal(await plain.text(), 'plain\n', 'compress=0 answers plain');
});

t.test('the read-only interface refuses writes with 164', async (t) => {
  for (const body of ["INSERT INTO t VALUES (9, 'nine')", 'CREATE TABLE x (a UInt8) ENGINE = Memory', 'DROP TABLE t']) {
    const res = await ro('', { method: 'POST', body });
    t.equal(res.status, 403, body);
    t.equal(res.headers.get('x-clickhouse-exception-code'), '164', body);
    t.match(await res.text(), /READONLY/, body);
  }
  const insert = await ro(`query=${encodeURIComponent('INSERT INTO t FORMAT JSONEachRow')}`, { method: 'POST', body: '{"n":9,"s":"x"}\n' });
  t.equal(insert.headers.get('x-clickhouse-exception-code'), '164', 'raw insert too');
  const setting = await ro('query=SELECT%201&max_result_rows=1');
  t.equal(setting.headers.get('x-clickhouse-exception-code'), '164', 'settings cannot change');
  const viaGet = await fetch(`${url}/rw/?query=${encodeURIComponent('CREATE TABLE y (a UInt8) ENGINE = Memory')}`);
  t.equal(viaGet.headers.get('x-clickhouse-exception-code'), '164', 'GET is read-only even on the writable mount');
  const count = await ro(`query=${encodeURIComponent('SELECT count() FROM t')}`);
  t.equal(await count.text(), '3\n', 'nothing was written');
  const limit = await ro(`query=${encodeURIComponent("SELECT getSetting('max_execution_time')")}`);
  t.equal(await limit.text(), '5\n', 'maxExecutionTime applies to read-only sessions');
});

t.test('INSERT ... FORMAT with rows in the body, deduplicated by token (writable mount)', async (t) => {
  await rw('CREATE TABLE analytics.d (k String) ENGINE = MergeTree ORDER BY k SETTINGS non_replicated_deduplication_window = 10');
  const insert = () => fetch(`${url}/rw/?query=${encodeURIComponent('INSERT INTO d (k) FORMAT JSONEachRow')}&insert_deduplication_token=tok-1`, {
    method: 'POST', body: '{"k":"a"}\n{"k":"b"}\n',
  });
  t.equal((await insert()).status, 200);
  const again = await insert();
  t.equal(again.status, 200);
  t.equal(JSON.parse(again.headers.get('x-clickhouse-summary')!).written_bytes !== undefined, true);
  const count = await ro(`query=${encodeURIComponent('SELECT count() FROM d')}`);
  t.equal(await count.text(), '2\n');
});

t.test('compression both ways', async (t) => {
  const res = await ro(`enable_http_compression=1&query=${encodeURIComponent('SELECT n FROM t ORDER BY n')}`, { headers: { 'accept-encoding': 'gzip' } });
  t.equal(res.headers.get('content-encoding'), 'gzip');
  t.equal(await res.text(), '1\n2\n3\n', 'fetch decompresses');
  const gz = await ro('', { method: 'POST', body: gzipSync('SELECT 42'), headers: { 'content-encoding': 'gzip' } });
  t.equal(await gz.text(), '42\n');
  const broken = await ro('', { method: 'POST', body: 'not gzip', headers: { 'content-encoding': 'gzip' } });
  t.equal(broken.status, 400);
});

t.test('@clickhouse/client against the read-only mount', async (t) => {
  const client = createClient({ url, pathname: '/clickhouse', username: 'analyst', password: KEY, database: 'analytics' });
  t.teardown(() => client.close());
  t.same(await client.ping(), { success: true });
  const rs = await client.query({ query: 'SELECT n, s FROM t WHERE n >= {min:UInt32} ORDER BY n', query_params: { min: 2 }, format: 'JSONEachRow' });
  t.same(await rs.json(), [{ n: 2, s: 'two' }, { n: 3, s: "it's" }]);
  await t.rejects(client.insert({ table: 't', values: [{ n: 7, s: 'x' }], format: 'JSONEachRow' }), { code: '164' });
  const denied = createClient({ url, pathname: '/clickhouse', password: 'wrong', log: { level: ClickHouseLogLevel.OFF } });
  t.teardown(() => denied.close());
  await t.rejects(denied.query({ query: 'SELECT 1' }), { code: '516' });
});
