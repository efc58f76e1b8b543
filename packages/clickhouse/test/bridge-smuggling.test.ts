import t, { type Test } from 'tap';
import fc from 'fast-check';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { Session } from 'chdb';
import { createClient } from '@clickhouse/client';
import { generateEvents } from '@chatlytics/testkit';
import { createChdbEngine, runMigrations } from '../src/index.js';
import { sqlKeyAuth, type SqlQueryLogEntry } from '../src/http-bridge/index.js';
import { startBridge, tempDataDir, insertEvents } from './helpers.js';

/**
 * Statement smuggling: texts that are one statement to a hand-written lexer and two to the
 * engine's (heredocs, nested comments, Unicode quotes, comment and line-end forms). The bridge
 * asks the engine what the text is and runs only the engine's canonical text of one statement,
 * so every such text is refused or runs as one read. Each case is checked for its effects too:
 * no file read into the answer, none written or created, the other key's query running beside
 * it neither cancelled nor given another answer, and that key's next answer its own.
 */
const ATTACKER = 'smuggling-attacker-key-0000';
const VICTIM = 'smuggling-victim-key-00000000';
const READER = 'smuggling-reader-key-00000000';
const BOT = 'bot-smuggling';
const dir = tempDataDir(t);
const outside = mkdtempSync(path.join(tmpdir(), 'chatlytics-smuggling-'));
t.teardown(() => rmSync(outside, { recursive: true, force: true }));
const SECRET = `TOPSECRET-${process.pid}-${Date.now()}`;
const secret = path.join(outside, 'session-secret');
const target = path.join(outside, 'victim.txt');
const created = path.join(outside, 'created.txt');
writeFileSync(secret, `${SECRET}\n`);
writeFileSync(target, 'ORIGINAL\n');

const engine = await createChdbEngine({ path: dir, database: 'analytics', log: pino({ level: 'silent' }) });
await runMigrations(engine);
const events = generateEvents({ seed: 55, now: Date.UTC(2026, 5, 1), chatbotId: BOT, otherChatbotIds: [], users: 15 });
await insertEvents(engine, events);
const [{ n: eventCount }] = await engine.query<{ n: string }>('SELECT toString(count()) AS n FROM events');

const logged: SqlQueryLogEntry[] = [];
const keys = new Map([[ATTACKER, { name: 'attacker' }], [VICTIM, { name: 'victim' }], [READER, { name: 'reader' }]]);
const { app, url } = await startBridge([{
  prefix: '/clickhouse',
  opts: {
    sessionPath: dir, database: 'analytics', readonly: true, hiddenPaths: [dir, outside],
    authenticate: sqlKeyAuth({ lookup: async (k) => keys.get(k) ?? null }), onQueryLogged: (e) => logged.push(e),
    limits: { maxConcurrentQueries: 3 }, queueWaitMs: 10_000,
  },
}]);
t.teardown(async () => {
  app.server.closeAllConnections();
  await app.close();
  await engine.close();
});

const send = async (body: string, key = ATTACKER) => {
  const res = await fetch(`${url}/clickhouse/`, { method: 'POST', body, headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, code: res.headers.get('x-clickhouse-exception-code'), text: await res.text() };
};

/** A text as an assertion's name: JSON, with the line separators TAP would break a line at escaped too. */
const show = (s: string) => JSON.stringify(s).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

/** What the engine says a canonical text is: the same text when it is one statement. */
const probe = new Session(dir, { connectionArgs: ['--readonly=1'] });
t.teardown(() => probe.close());
const canonical = async (sql: string) => (await probe.queryBindAsync('SELECT formatQuery({q:String})', { q: sql }, { format: 'TSVRaw' })).text().replace(/\n$/, '');

/** The second statements an attacker wants run: read a file, write one, cancel another key's query, escape the limits. */
const PAYLOADS = [
  `SELECT file('${secret}') WHERE currentDatabase() = 'analytics'`,
  `SELECT 'x' INTO OUTFILE '${target}' TRUNCATE FORMAT RawBLOB`,
  `SELECT 'x' INTO OUTFILE '${created}' FORMAT RawBLOB`,
  "KILL QUERY WHERE query LIKE '%victim-marker%' ASYNC",
  "KILL QUERY WHERE query LIKE '%victim-marker%' SYNC",
  'SELECT count() FROM numbers(80000000)',
  "SELECT concat('smuggled', '-output') FROM no_such_table",
];

/** Carriers: text before a `;` that hides it from a naive lexer, and what follows the payload. */
const CARRIERS: [string, string][] = [
  ["SELECT $$ ' $$", " --'"],
  ["SELECT $t$ ' $t$", " --'"],
  ["SELECT $tag_9$ ' $tag_9$", " --'"],
  ["SELECT $$ \" $$", ' --"'],
  ["SELECT 1 /* /* */ ' */", " --'"],
  ['SELECT 1 /* /* /* */ */ " */', ' --"'],
  ["SELECT ‘ ' ’", " --'"],
  ["SELECT “ ' ”", " --'"],
  ["SELECT `'`", " --'"],
  ["SELECT '\\''", " --'"],
  ["SELECT ''''", " --'"],
  ["SELECT 'a\\\\'", " --'"],
  ["#! '\nSELECT 1", " --'"],
  ["-- '\nSELECT 1", " --'"],
  ["# '\nSELECT 1", " --'"],
  ['SELECT 1\0', ''],
  ['SELECT 1 --\u2028', ''],
  ['SELECT 1 --\u2029', ''],
  ['SELECT 1 -- c\r', ''],
  ["SELECT 1 -- '\r", " --'"],
  ['SELECT 1', ''],
];

/** Another key's query, running beside every attack: it must never be cancelled or answered with another's rows. */
let victimRuns = 0;
const victimFailures: string[] = [];
let stopVictim = false;
const victimLoop = (async () => {
  while (!stopVictim) {
    const res = await send("SELECT 'victim-marker', count() FROM numbers(4) WHERE sleepEachRow(0.02) = 0", VICTIM);
    victimRuns++;
    if (res.status !== 200 || res.text !== 'victim-marker\t4\n') victimFailures.push(`${res.status} ${res.text.slice(0, 200)}`);
  }
})();

/** After an attack: nothing on disk changed, the secret was not answered, another key's next answer is its own. */
async function assertHarmless(t: Test, sql: string, res: { status: number; code: string | null; text: string }) {
  t.notMatch(res.text, SECRET, `${show(sql)}: the secret is not in the answer`);
  t.notMatch(res.text, 'smuggled-output', `${show(sql)}: no smuggled output`);
  if (res.status === 200) {
    // Ran: then as one statement, the canonical text the query log keeps.
    const entry = logged.findLast((e) => e.key_name === 'attacker');
    t.ok(entry, 'logged');
    t.equal(await canonical(entry!.raw_query), entry!.raw_query, `${show(sql)}: ran as the one statement ${show(entry!.raw_query)}`);
  } else {
    t.ok(res.status >= 400 && res.status < 500, `${show(sql)}: refused with a 4xx (${res.status} ${res.text.slice(0, 160)})`);
  }
  t.equal(readFileSync(target, 'utf8'), 'ORIGINAL\n', 'the target file is unchanged');
  t.same(readdirSync(outside).sort(), ['session-secret', 'victim.txt'], 'no file was created');
  const own = await send('SELECT count() FROM events', READER);
  t.equal(own.text, `${eventCount}\n`, "another key's next answer is its own");
}

t.test('every spelling of the review, with every payload, is refused or runs as one read', { timeout: 600_000 }, async (t) => {
  for (const [before, after] of CARRIERS) {
    for (const payload of PAYLOADS) {
      const sql = `${before}; ${payload}${after}`;
      const res = await send(sql);
      await assertHarmless(t, sql, res);
      if (res.status !== 200) t.equal(res.code, '62', `${show(sql)}: the engine's own verdict (syntax / multi-statements)`);
    }
  }
});

t.test('the one-statement forms of those spellings still run', async (t) => {
  const cases: [string, string][] = [
    ["SELECT $$ ' $$", " \\' \n"],
    ["SELECT $t$a;b$t$", 'a;b\n'],
    ['SELECT 1 /* /* */ ; */ + 1', '2\n'],
    ['SELECT ‘a;b’', 'a;b\n'],
    ["SELECT 1 AS `x;y`", '1\n'],
    ["#! x\nSELECT 3", '3\n'],
    ['SELECT 4 -- c\rFROM system.one', '4\n'],
    ['SELECT 5 --\u2028 x', '5\n'],
  ];
  for (const [sql, expected] of cases) {
    const res = await send(sql);
    t.equal(res.status, 200, `${show(sql)}: ${res.text.slice(0, 200)}`);
    t.equal(res.text, expected, show(sql));
  }
});

/** Random two-statement texts: a generated carrier, a separator, a payload, a tail. */
const heredocTag = fc.constantFrom('', 't', 'tag_1', 'X', 'a1');
const quoteChar = fc.constantFrom("'", '"', '`', '‘', '’', '“', '”', '\\', '$$');
const space = fc.constantFrom(' ', '\n', '\r', '\t', '\u2028', '\u2029', '\0', '\r\n', '');
const carrier = fc.oneof(
  fc.tuple(heredocTag, quoteChar).map(([tag, q]) => `SELECT $${tag}$ ${q} $${tag}$`),
  fc.tuple(fc.integer({ min: 1, max: 3 }), quoteChar).map(([depth, q]) => `SELECT 1 ${'/* '.repeat(depth)}${q}${' */'.repeat(depth - 1)} */`),
  fc.tuple(fc.constantFrom('--', '#', '#!', '-- '), quoteChar, space).map(([c, q, s]) => `SELECT 1 ${c} ${q}${s}`),
  fc.tuple(fc.constantFrom("'", '‘', '“', '`'), quoteChar).map(([open, q]) => `SELECT ${open}${q}${open === "'" ? "'" : open === '‘' ? '’' : open === '“' ? '”' : '`'}`),
);
const twoStatements = fc.tuple(carrier, space, fc.constantFrom(...PAYLOADS), fc.constantFrom('', " --'", ' --"', ' /*', ' $$'))
  .map(([c, s, payload, tail]) => `${c}${s}; ${payload}${tail}`);

t.test('generated two-statement texts: each refused or run as one read, with no effect', { timeout: 600_000 }, async (t) => {
  await fc.assert(fc.asyncProperty(twoStatements, async (sql) => {
    const res = await send(sql);
    const sub: string[] = [];
    const check = {
      notMatch: (a: string, b: string, m: string) => { if (a.includes(b)) sub.push(m); },
      ok: (v: unknown, m: string) => { if (!v) sub.push(m); },
      equal: (a: unknown, b: unknown, m: string) => { if (a !== b) sub.push(`${m}: ${JSON.stringify(a)} !== ${JSON.stringify(b)}`); },
      same: (a: unknown, b: unknown, m: string) => { if (JSON.stringify(a) !== JSON.stringify(b)) sub.push(m); },
    } as unknown as Test;
    await assertHarmless(check, sql, res);
    if (sub.length > 0) throw new Error(`${show(sql)}: ${sub.join('; ')}`);
  }), { numRuns: 150, seed: 55 });
  t.pass('150 generated texts');
});

t.test('through @clickhouse/client, as the data team connects: the review requests fail and change nothing', async (t) => {
  const client = createClient({ url, pathname: '/clickhouse', password: ATTACKER, database: 'analytics' });
  t.teardown(() => client.close());
  for (const query of [
    `SELECT $$ ' $$; SELECT file('${secret}') WHERE currentDatabase() = 'analytics' --'`,
    `SELECT 1 /* /* */ ' */ ; SELECT 'x' INTO OUTFILE '${target}' TRUNCATE FORMAT RawBLOB --'`,
    "SELECT ‘ ' ’; KILL QUERY WHERE query LIKE '%victim-marker%' ASYNC --'",
  ]) {
    await t.rejects(client.query({ query, format: 'TabSeparated' }).then((r) => r.text()), { code: '62' }, query);
  }
  t.equal(readFileSync(target, 'utf8'), 'ORIGINAL\n');
  t.same(readdirSync(outside).sort(), ['session-secret', 'victim.txt']);
  const rows = await (await client.query({ query: 'SELECT count() AS n FROM events', format: 'JSONEachRow' })).json<{ n: string }>();
  t.same(rows, [{ n: eventCount }], 'and a read still answers');
});

t.test("the other key's query ran beside every attack, never cancelled, always its own answer", async (t) => {
  stopVictim = true;
  await victimLoop;
  t.ok(victimRuns > 10, `${victimRuns} runs beside the attacks`);
  t.same(victimFailures, [], 'none failed or answered otherwise');
});

t.test('the query log keeps the statement that ran, with its literals; a refused text as it was sent', async (t) => {
  logged.length = 0;
  await send("SELECT count() FROM events WHERE chatbot_id = 'bot-smuggling' /* a comment */");
  t.equal(logged.at(-1)?.raw_query, "SELECT count()\nFROM events\nWHERE chatbot_id = 'bot-smuggling'");
  const attack = `SELECT $$ ' $$; SELECT file('${secret}') --'`;
  await send(attack);
  t.equal(logged.at(-1)?.raw_query, attack, "the attack's path is kept");
  await send("SELECT encrypt('aes-128-ecb', 'x', 'key-0123456789ab')");
  t.equal(logged.at(-1)?.raw_query, 'SELECT encrypt(?..)', 'a statement holding a key keeps no literal');
});
