import t from 'tap';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { splitStatements } from '../src/sql-split.js';
import { sqlFile } from '../src/sql-files.js';
import { bindValues } from '../src/http-bridge/params.js';
import { hidePaths } from '../src/http-bridge/hide-paths.js';
import { allowStatement, planRequest } from '../src/http-bridge/plan.js';
import { httpStatusFor } from '../src/http-bridge/status.js';

t.test('splitStatements cuts only at top-level semicolons', async (t) => {
  t.same(splitStatements("SELECT 'a;b'; SELECT \"c;d\", `e;f` -- g;h\n; /* i;j */ SELECT 'k\\';l'"),
    ["SELECT 'a;b'", 'SELECT "c;d", `e;f` -- g;h', "/* i;j */ SELECT 'k\\';l'"]);
  t.same(splitStatements("SELECT 'it''s;'; ;  -- only a comment\n"), ["SELECT 'it''s;'"], 'empty and comment-only parts dropped');
});

t.test('sqlFile reads once and refuses paths outside the folder', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'chatlytics-sql-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'q.sql'), 'SELECT 1');
  t.equal(sqlFile('q', dir), 'SELECT 1');
  writeFileSync(path.join(dir, 'q.sql'), 'SELECT 2');
  t.equal(sqlFile('q', dir), 'SELECT 1', 'cached');
  t.throws(() => sqlFile('../q', dir), { code: 'CLICKHOUSE_006' });
  t.throws(() => sqlFile('missing', dir), { code: 'CLICKHOUSE_006' });
});

t.test('param_ text becomes values chdb re-encodes to the same meaning', async (t) => {
  const sql = 'SELECT {s:String}, {n:Nullable(String)}, {a:Array(String)}, {m:Map(String, UInt64)}, {tu:Tuple(String, Float64)}, {plain:Array(UInt8)}';
  const v = bindValues(sql, {
    s: "it\\'s\\ta\\\\b", n: '\\N', a: "['x\\'y', NULL]", m: "{'k\\'':18446744073709551615}", tu: "('a\\\\', 1.5)", plain: '[1,2]',
  });
  t.equal(v.s, "it's\ta\\b");
  t.equal(v.n, null);
  t.same(v.a, ["x'y", null]);
  t.same([...(v.m as Map<string, bigint>)], [["k'", 18446744073709551615n]]);
  t.same((v.tu as { values: unknown[] }).values, ['a\\', 1.5]);
  t.equal(v.plain, '[1,2]', 'nothing to re-escape: passed through verbatim');
  t.throws(() => bindValues('SELECT {a:Array(String)}', { a: "['unterminated\\'" }), { message: /^Code: 457\./ });
});

t.test('planRequest follows the HTTP interface rules', async (t) => {
  const base = { body: Buffer.alloc(0), search: {}, defaultFormat: 'TabSeparated', readonly: false };
  const insert = planRequest({ ...base, urlQuery: 'INSERT INTO db.t (a, `b`) FORMAT jsoneachrow', body: Buffer.from('{}'), search: { insert_deduplication_token: 'x', query_id: 'q' } });
  t.match(insert, { kind: 'insert', table: 'db.t', columns: ['a', 'b'], format: 'JSONEachRow', settings: { insert_deduplication_token: 'x' } });
  t.match(planRequest({ ...base, urlQuery: 'SELECT 1' }), { kind: 'query', sql: 'SELECT 1' });
  t.throws(() => planRequest({ ...base, urlQuery: 'SELECT 1', search: { max_threads: '1' }, readonly: true }), { message: /^Code: 164\./ });
  // What a text is comes from the engine (statement.ts); the refusals read its first word.
  const statement = (text: string) => ({ text, keyword: text.split(' ')[0] });
  t.throws(() => allowStatement(statement('SET a = 1'), false), { message: /^Code: 48\./ });
  t.throws(() => allowStatement(statement('SET a = 1'), true), { message: /^Code: 164\./ });
  t.throws(() => allowStatement(statement('USE analytics'), true), { message: /^Code: 48\./ });
  t.throws(() => allowStatement(statement('KILL QUERY WHERE 1'), true), { message: /^Code: 164\./ });
  t.doesNotThrow(() => allowStatement(statement('KILL QUERY WHERE 1'), false));
  t.doesNotThrow(() => allowStatement(statement('SELECT 1'), true));
  t.equal(httpStatusFor(60), 404);
  t.equal(httpStatusFor(62), 400);
  t.equal(httpStatusFor(999999), 500);
});

t.test('error messages of the read-only interface never name the data directory', async (t) => {
  const hide = hidePaths(['/srv/chatlytics/data/clickhouse', '/srv/chatlytics/data/']);
  t.equal(hide('Cannot open file /srv/chatlytics/data/clickhouse/store/abc/data.bin'), 'Cannot open file <data>/store/abc/data.bin');
  t.equal(hide('Cannot read /srv/chatlytics/data/session-secret'), 'Cannot read <data>/session-secret');
  t.equal(hide('nothing here'), 'nothing here');
  t.equal(hidePaths(['/'])('a /b'), 'a /b', 'the root is no directory to hide');
});

t.test("the data team's interface never judges a text with the project's own lexer", async (t) => {
  const dir = new URL('../src/http-bridge/', import.meta.url);
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    t.notMatch(readFileSync(new URL(file, dir), 'utf8'), /sql-split|sql-tokens/, `${file} does not import the hand-written lexer`);
  }
});
