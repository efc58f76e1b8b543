import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { splitStatements, firstKeyword } from '../src/sql-split.js';
import { sqlFile } from '../src/sql-files.js';
import { bindValues } from '../src/http-bridge/params.js';
import { planRequest } from '../src/http-bridge/plan.js';
import { httpStatusFor } from '../src/http-bridge/status.js';

t.test('splitStatements cuts only at top-level semicolons', async (t) => {
  t.same(splitStatements("SELECT 'a;b'; SELECT \"c;d\", `e;f` -- g;h\n; /* i;j */ SELECT 'k\\';l'"),
    ["SELECT 'a;b'", 'SELECT "c;d", `e;f` -- g;h', "/* i;j */ SELECT 'k\\';l'"]);
  t.same(splitStatements("SELECT 'it''s;'; ;  -- only a comment\n"), ["SELECT 'it''s;'"], 'empty and comment-only parts dropped');
  t.equal(firstKeyword('-- x\n /* y */ (select 1)'), 'SELECT');
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
  t.throws(() => planRequest({ ...base, body: Buffer.from('SET a = 1') }), { message: /^Code: 48\./ });
  t.equal(httpStatusFor(60), 404);
  t.equal(httpStatusFor(62), 400);
  t.equal(httpStatusFor(999999), 500);
});
