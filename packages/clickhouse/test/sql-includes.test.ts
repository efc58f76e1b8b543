import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expandIncludes } from '../src/sql-includes.js';
import { sqlFile } from '../src/sql-files.js';

const from = (files: Record<string, string>) => (name: string) => {
  const text = files[name];
  if (text === undefined) throw new Error(`no ${name}`);
  return text;
};

t.test('an include is replaced by the fragment, indented like its line, header comments dropped', async (t) => {
  const load = from({
    'shared/ids': '-- what this is\n\nid NOT IN\n(\n    SELECT id FROM t WHERE at < {from:DateTime64(3)} AND {{rows}}\n)\n',
  });
  t.equal(
    expandIncludes("SELECT 1\nWHERE x = {x:String}\n  AND {{> shared/ids rows=(kind IN ('a', 'b'))}} -- tail\nLIMIT 1", load),
    "SELECT 1\nWHERE x = {x:String}\n  AND id NOT IN\n  (\n      SELECT id FROM t WHERE at < {from:DateTime64(3)} AND (kind IN ('a', 'b'))\n  ) -- tail\nLIMIT 1",
  );
});

t.test('fragments compose, and text after the placeholder follows the last line', async (t) => {
  const load = from({ 'shared/a': 'a AS (\n    {{> shared/b}}\n)', 'shared/b': 'SELECT 1\nUNION ALL SELECT 2' });
  t.equal(expandIncludes('WITH\n    {{> shared/a}},\n    c AS (SELECT 3)', load),
    'WITH\n    a AS (\n        SELECT 1\n        UNION ALL SELECT 2\n    ),\n    c AS (SELECT 3)');
});

t.test('every mistake fails with the SQL file code and says what is wrong', async (t) => {
  const code = 'CLICKHOUSE_006';
  const load = from({
    'shared/slot': 'x = {{v}}',
    'shared/loop1': '{{> shared/loop2}}',
    'shared/loop2': '{{> shared/loop1}}',
    'shared/self': 'SELECT {{> shared/self}}',
  });
  t.throws(() => expandIncludes('{{> shared/missing}}', load), { message: /no shared\/missing/ }, 'unknown fragment: the loader error');
  t.throws(() => expandIncludes('{{> shared/slot}}', load), { code, message: /needs a value for \{\{v\}\}/ });
  t.throws(() => expandIncludes('{{> shared/slot v=(1) w=(2)}}', load), { code, message: /no \{\{w\}\} to fill/ });
  t.throws(() => expandIncludes('{{> shared/loop1}}', load), { code, message: 'SQL include loop: shared/loop1 > shared/loop2 > shared/loop1' });
  t.throws(() => expandIncludes('{{> shared/self}}', load), { code, message: /include loop/ });
  t.throws(() => expandIncludes('SELECT {{> shared/loop1}}', load, 'shared/loop2'), { code, message: /include loop: shared\/loop2 > shared\/loop1 > shared\/loop2/ });
  t.throws(() => expandIncludes('{{> shared/slot v=1}}', load), { code, message: /Malformed SQL include placeholder/ }, 'a value must be parenthesised');
  t.throws(() => expandIncludes('{{>shared/../x}}', load), { code, message: /Malformed/ });
});

t.test('sqlFile expands includes from its folder, fails clearly on a missing one, and caches the result', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'chatlytics-sql-inc-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'shared'));
  writeFileSync(path.join(dir, 'shared', 'one.sql'), '-- the constant one\nSELECT {{n}}');
  writeFileSync(path.join(dir, 'q.sql'), '-- q\n{{> shared/one n=(1)}}');
  writeFileSync(path.join(dir, 'bad.sql'), '{{> shared/none}}');
  writeFileSync(path.join(dir, 'loop.sql'), '{{> loop}}');
  t.equal(sqlFile('q', dir), '-- q\nSELECT (1)');
  writeFileSync(path.join(dir, 'shared', 'one.sql'), 'SELECT 2');
  t.equal(sqlFile('q', dir), '-- q\nSELECT (1)', 'cached');
  t.throws(() => sqlFile('bad', dir), { code: 'CLICKHOUSE_006', message: /SQL file not found: .*shared[\\/]none\.sql/ });
  t.throws(() => sqlFile('loop', dir), { code: 'CLICKHOUSE_006', message: 'SQL include loop: loop > loop' });
});

t.test('the statistics queries expand with no placeholder left and their bound parameters intact', async (t) => {
  for (const name of ['stats/engagement', 'stats/insights_events', 'stats/popup_metrics', 'stats/purchases', 'stats/sources', 'stats/segment_tokens']) {
    const sql = sqlFile(name);
    t.notMatch(sql, /\{\{|\}\}/, name);
    t.match(sql, /AND prev_copy_at < \{dedup_lookback_from:DateTime64\(3, 'UTC'\)\}/, `${name}: retried beacons removed`);
    t.match(sql, /\{dedup_lookback_from:DateTime64\(3, 'UTC'\)\}/, `${name}: bound parameters kept`);
  }
});
