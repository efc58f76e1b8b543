import t from 'tap';
import { createLogger } from '@chatlytics/core';
import { readMigrations, renderMigrations, runMigrations } from '@chatlytics/clickhouse';
import { createChdbCluster, TEST_CLUSTER } from '@chatlytics/clickhouse/testing';
import { tempDataDir } from './helpers.js';

/**
 * The cluster form on the embedded engine (clickhouse/deploy/README.md, "What runs in CI"): one
 * chdb node that is two shards (127.0.0.1 and localhost) with an in-process Keeper. First the
 * failures the cluster form had are reproduced here (each fix reverted in the statement), so the
 * suite below can catch them.
 */
const dir = tempDataDir(t);
const log = createLogger('silent');
// The DDL as rendered, replicated engines and Keeper paths included (inserts need `plain`).
const keeper = await createChdbCluster({ path: dir, database: 'cluster_ddl', log });
// The same rendering with writable tables: Distributed over the two shards, the views, inserts.
const node = await createChdbCluster({ path: dir, database: 'cluster', log, tables: 'plain' });
t.teardown(async () => {
  // The read-only replicas are dropped first: chdb's shutdown waits on them otherwise.
  for (const db of ['cluster_ddl', 'cluster_253']) await keeper.engine.command(`DROP DATABASE IF EXISTS ${db} SYNC`);
  await node.engine.close();
  await keeper.engine.close();
});
const rendered = renderMigrations(readMigrations(), { cluster: TEST_CLUSTER, database: 'cluster_ddl' });
/** The ClickHouse code the promise fails with (0: it resolved). */
const codeOf = (p: Promise<unknown>) => p.then(() => 0, (err: { clickhouseCode?: number }) => err.clickhouseCode ?? -1);
const sqlOf = (sql: string) => sql.replace(/--[^\n]*\n/g, '').trim();
// A replicated table without an interserver port is read-only (testing.ts): it takes no insert
// and no ALTER, but its CREATE and DROP hold and free its Keeper path, which is what finding 3 is:
// the tables the migrations drop and create again under the same name.
const RECREATED = /\b(token_ids|token_hour_sets|order_first_purchases)(_local)?\b/;
const tableDdl = (sql: string) => /^(CREATE|DROP)\s+TABLE\b/i.test(sqlOf(sql)) && RECREATED.test(sqlOf(sql).split('\n')[0]);
const statements = rendered.flatMap((m) => m.statements.filter((s) => !s.skipped && tableDdl(s.sql)).map((s) => ({ file: m.file, sql: s.sql })));

t.test('the node is a cluster of two shards, both local, with a Keeper', async (t) => {
  const shards = await keeper.engine.query<{ shard_num: number; host_name: string; is_local: number }>(
    'SELECT shard_num, host_name, is_local FROM system.clusters WHERE cluster = {c:String} ORDER BY shard_num', { c: TEST_CLUSTER });
  t.same(shards.map((s) => [Number(s.shard_num), s.host_name, Number(s.is_local)]), [[1, '127.0.0.1', 1], [2, 'localhost', 1]]);
  const [{ n }] = await keeper.engine.query<{ n: string }>("SELECT count() AS n FROM system.macros WHERE macro IN ('shard', 'replica')");
  t.equal(Number(n), 2, 'the shard and replica macros of the Keeper paths');
});

t.test("every migration's tables, rendered for the cluster, created and dropped in one run on Keeper (finding 3)", async (t) => {
  for (const s of statements) await t.resolves(keeper.engine.command(s.sql, { database: 'cluster_ddl' }), `${s.file}: ${sqlOf(s.sql).split('\n')[0]}`);
  const replicas = await keeper.engine.query<{ table: string; zookeeper_path: string }>(
    "SELECT table, zookeeper_path FROM system.replicas WHERE database = 'cluster_ddl' ORDER BY table");
  t.same(replicas.map((r) => r.table), ['order_first_purchases_local', 'token_hour_sets_local', 'token_ids_local'], 'each on its Keeper path');
  t.ok(replicas.every((r) => r.zookeeper_path === `/clickhouse/tables/01/cluster_ddl/${r.table}`), 'the rendered paths, macros expanded');
});

t.test('reverted: a replicated table dropped without SYNC and created again in the same run is code 253', async (t) => {
  const again = renderMigrations(readMigrations(), { cluster: TEST_CLUSTER, database: 'cluster_253' })
    .flatMap((m) => m.statements.filter((s) => !s.skipped && tableDdl(s.sql)).map((s) => s.sql));
  const withoutSync = again.map((sql) => sql.replace(/\s+SYNC\s*$/, ''));
  t.ok(withoutSync.some((sql, i) => sql !== again[i]), 'the rendering drops with SYNC');
  const other = await createChdbCluster({ path: dir, database: 'cluster_253', log });
  t.teardown(() => other.engine.close());
  let failure: unknown;
  for (const sql of withoutSync) {
    try {
      await other.engine.command(sql, { database: 'cluster_253' });
    } catch (err) {
      failure = err;
      break;
    }
  }
  // The table created again finds its predecessor's Keeper path: the same replica (253
  // REPLICA_ALREADY_EXISTS) or, its columns or settings changed, the old metadata (342).
  t.ok([253, 342].includes((failure as { clickhouseCode?: number })?.clickhouseCode ?? 0), `refused: ${(failure as Error)?.message?.split('\n')[0]}`);
  t.match((failure as Error).message, RECREATED, 'on a table the migrations create again');
});

t.test('the writable form: every migration and view in one run, through the runner', async (t) => {
  const result = await runMigrations(node.engine, { cluster: TEST_CLUSTER });
  t.equal(result.applied.length, readMigrations().length);
  t.ok(result.views.length > 0, `${result.views.length} views`);
  const tables = await node.engine.query<{ name: string; engine: string }>(
    "SELECT name, engine FROM system.tables WHERE database = 'cluster' AND name IN ('events', 'events_local', 'events_input_v2', 'events_input_v2_local') ORDER BY name");
  t.same(tables.map((r) => `${r.name} ${r.engine}`), ['events Distributed', 'events_input_v2 Distributed', 'events_input_v2_local Null', 'events_local ReplacingMergeTree']);
});

t.test('reverted: a subquery over a Distributed table without distributed_product_mode is code 288', async (t) => {
  const sql = "SELECT count() AS n FROM events WHERE chatbot_id = 'a' AND token IN (SELECT token FROM events WHERE chatbot_id = 'a')";
  t.equal(await codeOf(node.engine.query(`${sql} SETTINGS distributed_product_mode = 'deny'`)), 288, 'the default mode');
  t.same(await node.engine.query(sql), [{ n: '0' }], "the services' profile (distributed_product_mode = 'local')");
});

t.test('reverted: a partition of a Distributed table cannot be dropped (code 48), and it has no parts', async (t) => {
  t.equal(await codeOf(node.engine.command('ALTER TABLE token_hour_sets DROP PARTITION 202606')), 48, 'NOT_IMPLEMENTED');
  await t.resolves(node.engine.command('ALTER TABLE token_hour_sets_local DROP PARTITION 202606'), 'its local table\'s can');
});
