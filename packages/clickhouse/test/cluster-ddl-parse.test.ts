import t from 'tap';
import { createLogger } from '@chatlytics/core';
import { createChdbEngine } from '../src/chdb-engine.js';
import { ledgerDdl, readMigrations, renderMigrations } from '../src/migrations.js';
import { tempDataDir } from './helpers.js';

// No ClickHouse server runs here, so the cluster form is checked by the engine's own parser:
// every statement of every file in clickhouse/migrations (those added later included),
// rendered for a cluster, must parse (EXPLAIN AST), as ClickHouse would read it before running it.
const engine = await createChdbEngine({ path: tempDataDir(t), database: 'analytics', log: createLogger('silent') });
t.teardown(() => engine.close());

const parse = async (sql: string) => (await engine.query<{ explain: string }>(`EXPLAIN AST ${sql}`, { database: 'analytics' })).map((r) => r.explain);

t.test('the parser check can fail', async (t) => {
  await t.rejects(parse('CREATE TABLE t ON CLUSTER main (a UInt8 ENGINE = Null'), /SYNTAX_ERROR|Syntax error/);
});

t.test('every migration statement, rendered for a cluster, parses', async (t) => {
  const rendered = renderMigrations(readMigrations(), { cluster: 'chatlytics', database: 'analytics' });
  let parsed = 0;
  for (const sql of [ledgerDdl('chatlytics'), ...rendered.flatMap((m) => m.statements.filter((s) => !s.skipped).map((s) => s.sql))]) {
    const ast = await parse(sql);
    t.ok(ast.length > 0, sql.replace(/--.*$/gm, '').trim().split('\n')[0]);
    // The AST names the cluster for every DDL statement (INSERT and SELECT have none).
    if (/^(CREATE|ALTER|DROP|TRUNCATE)\b/i.test(sql.replace(/--.*$/gm, '').trim())) {
      t.ok(ast.some((line) => /Distributed|Replicated|Null|MATERIALIZED|CreateQuery|AlterQuery|DropQuery|TruncateQuery/.test(line)), 'a DDL tree');
    }
    parsed++;
  }
  t.ok(parsed > rendered.length, `${parsed} statements`);
});

t.test('the Distributed and replicated engines are what the parser reads', async (t) => {
  const rendered = renderMigrations(readMigrations(), { cluster: 'chatlytics', database: 'analytics' });
  const events = rendered[0].statements.map((s) => s.sql);
  t.match((await parse(events[0])).join('\n'), /Function ReplicatedReplacingMergeTree[\s\S]*Literal '\/clickhouse\/tables\/\{shard\}\/\{database\}\/events_local'[\s\S]*Literal '\{replica\}'/);
  t.match((await parse(events[1])).join('\n'), /Function Distributed[\s\S]*Identifier chatlytics[\s\S]*Identifier events_local[\s\S]*Function cityHash64/);
});
