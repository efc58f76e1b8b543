import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { pino } from 'pino';
import { toolsUnderTest } from '@chatlytics/core/testing';
import { generateEvents } from '@chatlytics/testkit';
import { createChdbEngine, runMigrations } from '../src/index.js';
import { sqlKeyAuth } from '../src/http-bridge/index.js';
import { startBridge, tempDataDir, insertEvents } from './helpers.js';

/**
 * The official ClickHouse JDBC driver (scripts/jdbc: com.clickhouse:clickhouse-jdbc from Maven
 * Central, HTTP protocol) against the data team's interface at /clickhouse, as a BI tool or a
 * script connects: a named key as the password, a PreparedStatement with parameters.
 */
const tools = toolsUnderTest('java', 'javac', 'mvn');
// The first run resolves the driver through Maven and compiles; a JVM start on a busy machine takes seconds.
t.setTimeout(600_000);

const RUN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../scripts/jdbc/run.sh');
const KEY = 'jdbc-analyst-key-0123456789';
const BOT = 'bot-jdbc-a';

interface JdbcResult { code: number; stdout: string; stderr: string }
const jdbc = (url: string, password: string, sql: string, ...params: string[]) => new Promise<JdbcResult>((resolve) => {
  execFile('bash', [RUN, url, 'alice', password, sql, ...params], { timeout: 300_000 }, (err, stdout, stderr) => {
    resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
  });
});

t.test('the ClickHouse JDBC driver against /clickhouse', { skip: tools.skip }, async (t) => {
  const dir = tempDataDir(t);
  const engine = await createChdbEngine({ path: dir, database: 'analytics', log: pino({ level: 'silent' }) });
  t.teardown(() => engine.close());
  await runMigrations(engine);
  const events = generateEvents({ seed: 20, now: Date.UTC(2026, 5, 1), chatbotId: BOT, otherChatbotIds: ['bot-jdbc-b'], users: 30 });
  await insertEvents(engine, events);
  const expected = events.filter((e) => e.chatbot_id === BOT).length;
  t.ok(expected > 0 && expected < events.length, `${expected} of ${events.length} events are ${BOT}'s`);

  const logged: string[] = [];
  const { app, url } = await startBridge([{
    prefix: '/clickhouse',
    opts: {
      sessionPath: dir, database: 'analytics', readonly: true,
      authenticate: sqlKeyAuth({ lookup: async (k) => (k === KEY ? { name: 'analyst' } : null) }),
      onQueryLogged: (e) => logged.push(`${e.key_name} ${e.status} ${e.error_code}`),
    },
  }]);
  t.teardown(async () => { app.server.closeAllConnections(); await app.close(); });
  const { port } = new URL(url);
  // The driver's defaults: it asks for responses in ClickHouse's native block compression (compress=1).
  const jdbcUrl = `jdbc:clickhouse:http://127.0.0.1:${port}/clickhouse/analytics`;

  const counted = await jdbc(jdbcUrl, KEY, 'SELECT count() AS n, ? AS echoed FROM events WHERE chatbot_id = ?', "it's a\ttab \\ and 'quotes'", BOT);
  t.equal(counted.code, 0, `the program exits 0 (${counted.stdout.trim()} ${counted.stderr.trim().slice(-500)})`);
  t.equal(counted.stdout, `${expected}\tit's a\ttab \\ and 'quotes'\n`, 'the count for the bound chatbot id, and a string parameter back unchanged');

  const wrongKey = await jdbc(jdbcUrl, 'not-the-key-0000000000000', 'SELECT ?', 'x');
  t.equal(wrongKey.code, 2, 'a wrong key fails the connection or the query');
  t.match(wrongKey.stdout, /^SQLException 516: .*AUTHENTICATION_FAILED/, 'with ClickHouse code 516');

  const uncompressed = await jdbc(`${jdbcUrl}?compress=0`, KEY, 'SELECT ? AS a, toUInt64(?) + 1 AS b', 'plain', '41');
  t.equal(uncompressed.stdout, 'plain\t42\n', 'with compress=0 too');

  t.equal(logged.filter((l) => l === 'analyst ok 0').length, 2, 'the driver\'s queries are in the query log under the key\'s name');
});
