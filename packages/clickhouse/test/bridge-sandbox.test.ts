import t from 'tap';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { Session } from 'chdb';
import { generateEvents } from '@chatlytics/testkit';
import { createChdbEngine, runMigrations } from '../src/index.js';
import { sqlApiKeyAuth, type SqlQueryLogEntry } from '../src/http-bridge/index.js';
import { startBridge, tempDataDir, insertEvents } from './helpers.js';

/**
 * The data team's interface never touches a file or another server: every way of writing
 * (INTO OUTFILE), reading (file() as a scalar, a table function, APPLY, …) or connecting (url,
 * s3, remote, mysql, …) is refused with ClickHouse's 497 ACCESS_DENIED and a 403, whatever the
 * spelling, and nothing on disk changes; the legitimate queries (the README's examples,
 * generated rows, system tables, parameters, DESCRIBE/SHOW/EXPLAIN) still answer.
 */
const KEY = 'sandbox-test-key-0123456789';
const BOT = 'bot-sandbox-a';
const dir = tempDataDir(t);
const outside = mkdtempSync(path.join(tmpdir(), 'chatlytics-sandbox-'));
t.teardown(() => rmSync(outside, { recursive: true, force: true }));
const SECRET = `TOPSECRET-${process.pid}-${Date.now()}`;
const secret = path.join(outside, 'session-secret');
const victim = path.join(outside, 'victim.txt');
const created = path.join(outside, 'created.txt');
writeFileSync(secret, `${SECRET}\n`);
writeFileSync(victim, 'ORIGINAL\n');

const engine = await createChdbEngine({ path: dir, database: 'analytics', log: pino({ level: 'silent' }) });
await runMigrations(engine);
const events = generateEvents({ seed: 41, now: Date.UTC(2026, 5, 1), chatbotId: BOT, otherChatbotIds: ['bot-sandbox-b'], users: 20 });
await insertEvents(engine, events);

const logged: SqlQueryLogEntry[] = [];
const { app, url } = await startBridge([{
  prefix: '/clickhouse',
  opts: { sessionPath: dir, database: 'analytics', readonly: true, authenticate: sqlApiKeyAuth(KEY), onQueryLogged: (e) => logged.push(e) },
}]);
t.teardown(async () => {
  app.server.closeAllConnections();
  await app.close();
  await engine.close();
});

const sql = (body: string, qs = '') => fetch(`${url}/clickhouse/?${qs}`, { method: 'POST', body, headers: { authorization: `Bearer ${KEY}` } });

t.test('the engine alone does not stop file() or INTO OUTFILE on a readonly=1 session: the check is the wall', async (t) => {
  const raw = new Session(dir, { connectionArgs: ['--readonly=1', `--user_files_path=${path.join(dir, 'no-such-dir')}`] });
  t.teardown(() => raw.close());
  t.match((await raw.queryAsync(`SELECT file('${secret}')`, { format: 'TSVRaw' })).text(), SECRET, 'reads any absolute path');
  const probe = path.join(outside, 'engine-alone.txt');
  await raw.queryAsync(`SELECT 'w' INTO OUTFILE '${probe}' FORMAT RawBLOB`, { format: 'TSVRaw' });
  t.equal(readFileSync(probe, 'utf8'), 'w', 'writes any path');
  rmSync(probe);
});

const p = (s: string) => `'${s}'`;
/** [query, ClickHouse code] — every one must be refused and leave the disk alone. */
const refused: [string, number, string?][] = [
  // INTO OUTFILE, every output option and statement that has one.
  [`SELECT 'x' INTO OUTFILE ${p(victim)} TRUNCATE FORMAT RawBLOB`, 497],
  [`SELECT 'x' INTO OUTFILE ${p(victim)} APPEND FORMAT RawBLOB`, 497],
  [`select 'x' into outfile ${p(created)}`, 497],
  [`SELECT 'x' INTO OUTFILE ${p(created)} AND STDOUT`, 497],
  [`SELECT 'x' INTO OUTFILE ${p(`${created}.gz`)} TRUNCATE COMPRESSION 'gzip' LEVEL 3 FORMAT CSV`, 497],
  [`SELECT/**/'x'/**/INTO/**/OUTFILE/**/${p(created)}`, 497],
  [`SELECT 'x' -- a comment\nINTO -- another\nOUTFILE ${p(created)}`, 497],
  [`(SELECT 'x') UNION ALL (SELECT 'y') INTO OUTFILE ${p(created)}`, 497],
  [`WITH 1 AS a SELECT a INTO OUTFILE ${p(created)}`, 497],
  [`SELECT 1 AS \`x\nSelectWithUnionQuery\` INTO OUTFILE ${p(created)}`, 497],
  [`SHOW TABLES INTO OUTFILE ${p(created)}`, 497],
  [`SHOW CREATE TABLE events INTO OUTFILE ${p(created)}`, 497],
  [`DESCRIBE TABLE events INTO OUTFILE ${p(created)}`, 497],
  [`EXISTS TABLE events INTO OUTFILE ${p(created)}`, 497],
  [`EXPLAIN SELECT 1 INTO OUTFILE ${p(created)}`, 497],
  [`EXPLAIN SYNTAX SELECT 1 INTO OUTFILE ${p(created)}`, 497],
  // file() wherever an expression can be, however it is spelled.
  [`SELECT file(${p(secret)})`, 497],
  [`select FILE(${p(secret)})`, 497],
  [`SELECT File(${p(secret)})`, 497],
  [`SELECT \`file\`(${p(secret)})`, 497],
  [`SELECT "file"(${p(secret)})`, 497],
  [`SELECT/**/file/**/(${p(secret)})`, 497],
  [`SELECT file -- c\n(${p(secret)})`, 497],
  ["SELECT file('session-secret')", 497],
  [`SELECT * FROM (SELECT file(${p(secret)}) AS c)`, 497],
  [`WITH file(${p(secret)}) AS f SELECT f`, 497],
  [`WITH s AS (SELECT file(${p(secret)}) AS c) SELECT c FROM s`, 497],
  [`SELECT 1 WHERE 'x' IN (SELECT file(${p(secret)}))`, 497],
  [`SELECT 'x' IN file(${p(secret)}, 'LineAsString')`, 497],
  [`SELECT arrayMap(q -> file(q), [${p(secret)}])`, 497],
  [`SELECT * FROM numbers(1) AS n JOIN (SELECT file(${p(secret)}) AS c) AS s ON 1`, 497],
  [`SELECT 'a' UNION ALL SELECT file(${p(secret)})`, 497],
  [`SELECT 'a' INTERSECT SELECT file(${p(secret)})`, 497],
  [`SELECT * APPLY(file) FROM (SELECT ${p(secret)} AS q)`, 497],
  [`SELECT * REPLACE (file(q) AS q) FROM (SELECT ${p(secret)} AS q)`, 497],
  [`SELECT file(${p(secret)}) AS \`a\n Function numbers\``, 497],
  ['SELECT file({f:String})', 497, `param_f=${encodeURIComponent(secret)}`],
  [`EXPLAIN QUERY TREE SELECT file(${p(secret)})`, 497],
  [`EXPLAIN SYNTAX SELECT file(${p(secret)})`, 497],
  [`DESCRIBE (SELECT file(${p(secret)}))`, 497],
  [`SELECT * FROM file(${p(secret)}, 'LineAsString')`, 497],
  [`SELECT * FROM FILE(${p(secret)}, 'LineAsString')`, 497],
  [`SELECT * FROM view(SELECT file(${p(secret)}))`, 497],
  [`SELECT * FROM fileCluster('default', ${p(secret)}, 'LineAsString')`, 497],
  // Other servers, other engines, dictionaries, programs.
  ["SELECT * FROM url('http://127.0.0.1:1/x', 'CSV', 'a String')", 497],
  ["SELECT * FROM `url`('http://127.0.0.1:1/x', 'CSV', 'a String')", 497],
  ["SELECT * FROM URL('http://127.0.0.1:1/x', 'CSV', 'a String')", 497],
  ["SELECT * FROM s3('http://127.0.0.1:1/b/k', 'CSV', 'a String')", 497],
  ["SELECT * FROM remote('127.0.0.1', system.one)", 497],
  ["SELECT * FROM remoteSecure('127.0.0.1', system.one)", 497],
  ["SELECT * FROM cluster('default', system.one)", 497],
  ["SELECT * FROM numbers(1) WHERE number IN remote('127.0.0.1', system.numbers)", 497],
  ["SELECT * FROM mysql('127.0.0.1:1', 'd', 't', 'u', 'p')", 497],
  ["SELECT * FROM postgresql('127.0.0.1:5432', 'postgres', 't', 'postgres', '')", 497],
  ["SELECT * FROM hdfs('hdfs://127.0.0.1:1/x', 'CSV', 'a String')", 497],
  ["SELECT * FROM azureBlobStorage('http://127.0.0.1:1', 'c', 'b', 'CSV')", 497],
  ["SELECT * FROM jdbc('jdbc:x', 'd', 't')", 497],
  ["SELECT * FROM odbc('DSN=x', 'd', 't')", 497],
  ["SELECT * FROM sqlite('/tmp/x.db', 't')", 497],
  ["SELECT * FROM mongodb('127.0.0.1:1', 'd', 'c', 'u', 'p', 'x String')", 497],
  ["SELECT * FROM redis('127.0.0.1:1', 'k', 'k String')", 497],
  ["SELECT * FROM input('a String')", 497],
  ["SELECT * FROM executable('id', 'TSV', 'a String')", 497],
  ["SELECT * FROM dictionary('d')", 497],
  ["SELECT * FROM merge('system', '^one$')", 497],
  ["SELECT * FROM filesystem('/etc')", 497],
  ["SELECT 1 FROM events WHERE event IN (SELECT a FROM url('http://127.0.0.1:1/x', 'CSV', 'a String'))", 497],
  ["SELECT dictGet('d', 'a', toUInt64(1))", 497],
  ["SELECT dictGetOrDefault('d', 'a', toUInt64(1), 'x')", 497],
  ["SELECT hasColumnInTable('127.0.0.1', 'default', '', 'system', 'one', 'dummy')", 497],
  ["CREATE DICTIONARY d (a UInt64) PRIMARY KEY a SOURCE(FILE(path '/etc/passwd' format 'TSV')) LAYOUT(FLAT()) LIFETIME(0)", 164],
  ["EXPLAIN TABLE OVERRIDE mysql('127.0.0.1:1', 'd', 't', 'u', 'p') PARTITION BY x", 497],
  // Statements whose parse does not show every clause.
  [`SHOW COLUMNS FROM events WHERE file(${p(secret)}) != ''`, 497],
  [`SHOW TABLES WHERE file(${p(secret)}) != ''`, 497],
  ['SHOW PROCESSLIST', 497],
  // Words that would become EXPLAIN AST's own settings are never sent.
  [`graph=1 SELECT file(${p(secret)})`, 62],
  [`SELECT = 1, graph = 1 SELECT file(${p(secret)})`, 62],
  // Where the engine keeps its files, other keys' queries, the engine's logs.
  ['SELECT path FROM system.disks', 497],
  ["SELECT getServerSetting('path')", 497],
  ["SELECT value FROM system.server_settings WHERE name = 'path'", 497],
  ['SELECT * FROM system.tables', 497],
  ['SELECT name, data_paths FROM system.tables', 497],
  ['SELECT t.metadata_path FROM system.databases AS t', 497],
  ["SELECT COLUMNS('path') FROM system.databases", 497],
  ['SELECT * EXCEPT (data_paths) FROM system.tables', 497],
  ["SELECT 'x' IN system.disks", 497],
  ['SELECT path FROM system.parts', 497],
  ['SELECT query FROM system.processes', 497],
  ['SELECT query FROM system.query_log', 497],
  ['SELECT message FROM system.text_log', 497],
  ['SELECT 1 FROM (SELECT name FROM system.detached_parts)', 497],
  ["SELECT 1 FROM events WHERE chatbot_id IN (SELECT name FROM system.disks)", 497],
  // Settings stay as the session has them.
  ["SELECT getSetting('max_threads') SETTINGS max_threads = 64", 164],
  ['SELECT 1 SETTINGS max_execution_time = 0', 164],
];

t.test('every way to a file or another server is refused, and the disk stays as it was', async (t) => {
  const before = readdirSync(outside).sort();
  for (const [query, code, qs] of refused) {
    const res = await sql(query, qs);
    const text = await res.text();
    t.ok(res.status >= 400 && res.status < 500, `${JSON.stringify(query)}: 4xx (${res.status} ${text.slice(0, 200)})`);
    t.equal(res.headers.get('x-clickhouse-exception-code'), String(code), JSON.stringify(query));
    if (code === 497) {
      t.equal(res.status, 403, `${JSON.stringify(query)}: 403`);
      t.match(text, /^Code: 497\. DB::Exception: .*\(ACCESS_DENIED\)\n$/s, JSON.stringify(query));
    }
    t.notMatch(text, SECRET, `${JSON.stringify(query)}: the secret is not in the answer`);
  }
  t.equal(readFileSync(victim, 'utf8'), 'ORIGINAL\n', 'the victim file is unchanged');
  t.equal(readFileSync(secret, 'utf8'), `${SECRET}\n`, 'the secret file is unchanged');
  t.same(readdirSync(outside).sort(), before, 'no file was created');
  t.notOk(existsSync(created), 'no new path');
  const refusals = logged.filter((e) => e.status === 'error' && e.error_code === 497);
  t.ok(refusals.length >= refused.filter(([, c]) => c === 497).length, `every refusal is in the query log (${refusals.length})`);
  t.equal(refusals[0].read_rows, 0, 'refused before it read anything');
});

t.test('a refused query is logged as a refusal with its code, under the key', async (t) => {
  logged.length = 0;
  const res = await sql(`SELECT file(${p(secret)})`);
  t.equal(res.status, 403);
  t.equal(logged.length, 1);
  t.match(logged[0], { key_name: 'bootstrap', status: 'error', error_code: 497, read_rows: 0 });
});

/** The README's data-team examples (clickhouse/README.md, "Example queries"), with the parameters a client sends. */
const window = `param_chatbot_id=${BOT}&param_from=${encodeURIComponent('2026-04-01 00:00:00.000')}&param_to=${encodeURIComponent('2026-06-02 00:00:00.000')}`;
const allowed: [string, string, RegExp][] = [
  [`SELECT chatbot_id, toDate(received_at) AS day, event, count() AS events
FROM (SELECT chatbot_id, received_at, event FROM events
      WHERE received_at >= now64(3) - INTERVAL 3650 DAY AND chatbot_id != '' ORDER BY received_at LIMIT 1 BY event_id)
GROUP BY chatbot_id, day, event ORDER BY chatbot_id, day, event`, '', /^bot-sandbox-a\t\d{4}-\d\d-\d\d\t\w+\t\d+\n/],
  [`WITH per_token AS (
    SELECT token, countIf(event = 'visitor') > 0 AS visited, countIf(event = 'popup_displayed') > 0 AS approached,
           countIf(event = 'bot_open') > 0 AS opened, countIf(event = 'convo_started') > 0 AS chatted
    FROM events
    WHERE chatbot_id = {chatbot_id:String} AND received_at BETWEEN {from:DateTime64(3, 'UTC')} AND {to:DateTime64(3, 'UTC')}
    GROUP BY token)
SELECT countIf(visited) AS total_users, countIf(visited AND approached) AS total_users_approached,
       countIf(visited AND opened) AS total_users_opened, countIf(visited AND chatted) AS total_users_chatted
FROM per_token`, window, /^[1-9]\d*\t\d+\t\d+\t\d+\n$/],
  [`WITH purchases AS (
    SELECT event_id, order_num, received_at, total_value_base FROM events
    WHERE chatbot_id = {chatbot_id:String} AND event = 'purchase' ORDER BY received_at LIMIT 1 BY event_id),
counted AS (
    SELECT * FROM purchases WHERE order_num = ''
    UNION ALL
    SELECT * FROM purchases WHERE order_num != '' ORDER BY received_at LIMIT 1 BY order_num)
SELECT toDate(received_at) AS day, count() AS orders, round(sum(ifNull(total_value_base, 0)), 2) AS revenue_eur,
       countIf(total_value_base IS NULL) AS orders_in_unknown_currency
FROM counted WHERE received_at >= {from:DateTime64(3, 'UTC')} GROUP BY day ORDER BY day`, window, /^\d{4}-\d\d-\d\d\t\d+\t[\d.]+\t\d+\n/],
  ['SELECT reason, count() AS n, any(error) AS example FROM events_rejected WHERE received_at >= now64(3) - INTERVAL 7 DAY GROUP BY reason ORDER BY n DESC', '', /^$/],
  ['SELECT started_at, key_name, query, duration_ms, read_rows, peak_memory_usage, status, error_code FROM sql_query_log WHERE started_at > now() - INTERVAL 1 DAY ORDER BY started_at DESC', '', /^$/],
  ['SELECT sum(number) FROM numbers(10)', '', /^45\n$/],
  ['SELECT count() FROM generateSeries(1, 5)', '', /^5\n$/],
  ['SELECT * FROM view(SELECT 1 AS a) UNION ALL SELECT * FROM values(\'a UInt8\', 2)', '', /^[12]\n[12]\n$/],
  ["SELECT format('{}-{}', 'a', 'b'), lower('FILE'), 'file(x)' AS `file`", '', /^a-b\tfile\tfile\(x\)\n$/],
  ["SELECT count() > 0 FROM system.tables WHERE database = 'analytics' AND name = 'events'", '', /^1\n$/],
  ["SELECT name, engine FROM system.tables WHERE database = 'analytics' AND name = 'events'", '', /^events\t\w*MergeTree\n$/],
  ["SELECT name FROM system.databases WHERE name = 'analytics'", '', /^analytics\n$/],
  ["SELECT table_name FROM information_schema.tables WHERE table_schema = 'analytics' AND table_name = 'events'", '', /^events\n$/],
  ["SELECT count() > 10 FROM system.columns WHERE database = 'analytics' AND table = 'events'", '', /^1\n$/],
  ['SELECT version() != \'\', currentDatabase()', '', /^1\tanalytics\n$/],
  ['SELECT count() FROM events WHERE chatbot_id = {bot:String}', `param_bot=${BOT}`, /^[1-9]\d*\n$/],
  ['SELECT * EXCEPT (chatbot_id) FROM events LIMIT 0', '', /^$/],
  ['DESCRIBE TABLE events', '', /^\w+\t/],
  ['EXISTS TABLE events', '', /^1\n$/],
  ['SHOW TABLES', '', /\bevents\n/],
  ["SHOW TABLES FROM system LIKE 'tab%'", '', /^table_engines\ntable_functions\ntables\n$/],
  ['SHOW DATABASES', '', /\banalytics\n/],
  ['SHOW CREATE TABLE events', '', /^CREATE TABLE analytics\.events/],
  ['EXPLAIN SELECT count() FROM events', '', /ReadFrom/],
  ["SELECT getSetting('max_threads')", '', /^1\n$/],
  ['SELECT 1 FORMAT JSONEachRow', '', /^\{"1":1\}\n$/],
];

t.test('the legitimate queries still answer', async (t) => {
  for (const [query, qs, expected] of allowed) {
    const res = await sql(query, qs);
    const text = await res.text();
    t.equal(res.status, 200, `${query.slice(0, 80)}: ${text.slice(0, 300)}`);
    t.match(text, expected, query.slice(0, 80));
  }
});

t.test("a data-team query runs on max_threads threads (SQL_MAX_THREADS, default 1)", async (t) => {
  const res = await sql("SELECT getSetting('max_threads')");
  t.equal(await res.text(), '1\n');
});

t.test('a syntax error points into the text the client sent', async (t) => {
  const res = await sql('SELECT 1 +');
  t.equal(res.status, 400);
  t.equal(res.headers.get('x-clickhouse-exception-code'), '62');
  t.match(await res.text(), /failed at position 11 /);
});
