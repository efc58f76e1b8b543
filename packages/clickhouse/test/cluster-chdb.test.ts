import t from 'tap';
import { createLogger } from '@chatlytics/core';
import { generateEvents } from '@chatlytics/testkit';
import {
  VIEWS, applyRetention, daysToRepair, eraseTokenRows, markTokenErased, purgeDeletedRows, readMigrations, rebuildRollups, renderMigrations, repairDays, repairTokenIds, runMigrations, verifyAggregates,
} from '@chatlytics/clickhouse';
import { createChdbCluster, TEST_CLUSTER } from '@chatlytics/clickhouse/testing';
import { insertEvents, tempDataDir } from './helpers.js';

/**
 * The cluster form on the embedded engine (clickhouse/deploy/README.md, "What runs in CI"): one
 * chdb node that is two shards (127.0.0.1 and localhost) with an in-process Keeper. The failures
 * the cluster form had are reproduced with each fix reverted in the statement (253/342, 288, 48);
 * then the migrations and views apply in one run, inserts go through the Distributed input
 * table, and verify, its repairs and the rebuild work on the shards' local tables.
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
  // A retried block (its dedup token) must reach the shard of its first attempt: no table is sharded by rand() (finding 7).
  const keys = await node.engine.query<{ name: string; engine_full: string }>(
    "SELECT name, engine_full FROM system.tables WHERE database = 'cluster' AND engine = 'Distributed' ORDER BY name");
  t.ok(keys.length >= 10, `${keys.length} Distributed tables`);
  t.same(keys.filter((k) => /rand\(/i.test(k.engine_full)).map((k) => k.name), [], 'each sharded by a column of its rows');
  t.match(keys.find((k) => k.name === 'events_rejected')?.engine_full ?? '', /cityHash64\(received_at\)/, 'events_rejected by its time');
  // Each view made by its file (CREATE, then MODIFY QUERY: nothing dropped while writers insert,
  // finding 4's fix), on every node, reading and writing that node's local tables.
  const views = await node.engine.query<{ name: string; create_table_query: string }>(
    "SELECT name, create_table_query FROM system.tables WHERE database = 'cluster' AND engine = 'MaterializedView' ORDER BY name");
  t.same(views.map((v) => v.name).sort(), VIEWS.map((v) => v.name).sort(), 'the views of clickhouse/views/, no other');
  for (const v of views) t.match(v.create_table_query, /\bTO cluster\.\w+_local\b/, `${v.name} writes its shard's table`);
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

// Events of several chatbots, on both shards (cityHash64(chatbot_id) % 2), through the Distributed
// events_input_v2 as the consumer inserts (token ids first, then the rows).
const NOW = Date.UTC(2026, 5, 20, 12);
// bot-a and bot-b on shard 1, bot-d and bot-e on shard 2 (cityHash64(chatbot_id) % 2).
const BOTS = ['bot-a', 'bot-d', 'bot-b', 'bot-e'];
const shardOf = async (bot: string) => Number((await node.engine.query<{ s: string }>('SELECT cityHash64({b:String}) % 2 + 1 AS s', { b: bot }))[0].s);

t.test('inserts through the Distributed input table reach the shard of their chatbot', async (t) => {
  const shards = new Set(await Promise.all(BOTS.map(shardOf)));
  t.same([...shards].sort(), [1, 2], 'the chatbots are on both shards');
  const events = generateEvents({ seed: 456, now: NOW, chatbotId: BOTS[0], otherChatbotIds: BOTS.slice(1), users: 40, spanDays: 20 });
  // Without an insert token: both shards are one table here, so the two halves of a block, each
  // sent with the block's token, would be one block twice and the second half dropped as a retry.
  for (let i = 0; i < events.length; i += 500) await insertEvents(node.engine, events.slice(i, i + 500));
  const local = await node.engine.query<{ chatbot_id: string; n: string }>('SELECT chatbot_id, count() AS n FROM events_local GROUP BY chatbot_id ORDER BY chatbot_id');
  t.same(local.map((r) => r.chatbot_id), [...new Set(events.map((e) => e.chatbot_id))].sort(), 'every chatbot stored');
  for (const r of local.filter((x) => x.chatbot_id !== '')) {
    const [{ n }] = await node.engine.query<{ n: string }>('SELECT count() AS n FROM events WHERE chatbot_id = {b:String}', { b: r.chatbot_id });
    t.equal(n, r.n, `'${r.chatbot_id}': a read by chatbot asks its shard only`);
  }
  const [{ n }] = await node.engine.query<{ n: string }>('SELECT count() AS n FROM events');
  t.equal(Number(n), 2 * local.reduce((s, r) => s + Number(r.n), 0), 'a read of every chatbot reads both shards: here, the one node twice');
});

// The truth of the aggregates, read from the shards' local tables (the one node holds both shards'
// rows once); of the rows with a chatbot (a rebuild on a cluster recomputes chatbot by chatbot).
const snapshot = async () => ({
  counts: await node.engine.query(`SELECT chatbot_id, hour, event, popup_version, open_way, sum(events) AS n FROM event_hour_counts_local WHERE chatbot_id != '' GROUP BY ALL HAVING n != 0 ORDER BY ALL`),
  sets: await node.engine.query(`SELECT chatbot_id, hour, kind, bitmapCardinality(groupBitmapMergeState(tokens)) AS n FROM token_hour_sets_local WHERE chatbot_id != '' GROUP BY ALL ORDER BY ALL`),
  days: await node.engine.query(`SELECT chatbot_id, day, kind, bitmapCardinality(groupBitmapMergeState(tokens)) AS n FROM token_day_sets_local WHERE chatbot_id != '' GROUP BY ALL ORDER BY ALL`),
  purchases: await node.engine.query(`SELECT chatbot_id, count() AS n FROM purchases_local WHERE chatbot_id != '' GROUP BY ALL ORDER BY ALL`),
});
const mutate = (sql: string) => node.engine.command(`${sql} SETTINGS mutations_sync = 2`);
/** The UTC day with most of the chatbot's visitor and purchase rows. */
const busiestDay = async (bot: string) => (await node.engine.query<{ day: string }>(
  "SELECT toString(toDate(received_at)) AS day FROM events WHERE chatbot_id = {b:String} AND event IN ('visitor', 'purchase') AND NOT is_bot GROUP BY day ORDER BY uniqExact(event) DESC, count() DESC, day LIMIT 1", { b: bot }))[0].day;

t.test('verify on the cluster: nothing to report, then a loss on each shard found and repaired on the shards', async (t) => {
  t.same(await verifyAggregates(node.engine), [], 'the views wrote every aggregate');
  const before = await snapshot();
  // One chatbot on each shard.
  const a = BOTS[0];
  const shardA = await shardOf(a);
  let b = a;
  for (const x of BOTS.slice(1)) if (await shardOf(x) !== shardA && b === a) b = x;
  const [dayA, dayB] = [await busiestDay(a), await busiestDay(b)];
  await mutate(`ALTER TABLE event_hour_counts_local DELETE WHERE chatbot_id = '${a}' AND toDate(hour) = '${dayA}'`);
  await mutate(`ALTER TABLE token_hour_sets_local DELETE WHERE chatbot_id = '${a}' AND toDate(hour) = '${dayA}' AND kind = 'visitor'`);
  await mutate(`ALTER TABLE token_day_sets_local DELETE WHERE chatbot_id = '${a}' AND day = '${dayA}' AND kind = 'visitor'`);
  await mutate(`ALTER TABLE purchases_local DELETE WHERE chatbot_id = '${b}' AND toDate(received_at) = '${dayB}'`);

  const found = await verifyAggregates(node.engine);
  const checks = new Set(found.map((d) => d.check));
  for (const check of ['event_hour_counts', 'token_hour_sets', 'token_day_sets', 'purchases']) t.ok(checks.has(check), `${check} found`);
  const days = daysToRepair(found);
  t.same(days.map((d) => `${d.chatbotId} ${d.day}`).sort(), [`${a} ${dayA}`, `${b} ${dayB}`].sort(), 'where the losses were made');

  // Reverted: the day's rows deleted through the Distributed tables.
  t.equal(await codeOf(node.engine.command(`DELETE FROM event_hour_counts WHERE chatbot_id = '${a}'`)), 36, 'a Distributed table takes no DELETE (BAD_ARGUMENTS)');
  const repaired = await repairDays(node.engine, days, 0);
  t.equal(repaired.repaired.length, 2);
  t.same(await verifyAggregates(node.engine), [], 'after the repair: nothing to report');
  t.same(await snapshot(), before, 'the shards hold what the views had written');
});

t.test('rollups:rebuild on the cluster rebuilds the shards\' local tables', async (t) => {
  const before = await snapshot();
  const bot = BOTS[2];
  await mutate(`ALTER TABLE token_hour_sets_local DELETE WHERE chatbot_id = '${bot}'`);
  await mutate(`ALTER TABLE conversation_starts_local DELETE WHERE chatbot_id = '${bot}'`);
  await node.engine.insert('event_hour_counts_local', [{ chatbot_id: bot, hour: '2026-06-10 10:00:00', event: 'visitor', popup_version: '', open_way: '', events: 3 }]);
  t.not((await verifyAggregates(node.engine, { chatbotId: bot })).length, 0, 'the losses are found');
  const result = await rebuildRollups(node.engine);
  t.ok(result.partitions >= 1, `${result.partitions} months rebuilt`);
  t.same(await verifyAggregates(node.engine), [], 'after the rebuild: nothing to report');
  t.same(await snapshot(), before, 'the shards hold what the views had written');
});

t.test('token ids against the rule on a shard: verify finds them, the repair renumbers on the shards', async (t) => {
  const bot = BOTS[1];
  await mutate(`ALTER TABLE events_local UPDATE token_id = token_id + 1 WHERE chatbot_id = '${bot}' AND NOT is_bot AND event = 'visitor' AND toMinute(received_at) % 2 = 0`);
  const found = await verifyAggregates(node.engine, { chatbotId: bot });
  const checks = new Set(found.map((d) => d.check));
  t.ok(['token_has_several_ids', 'id_names_several_tokens', 'token_id_not_in_token_ids'].some((c) => checks.has(c)), `found: ${[...checks].join(', ')}`);
  const repair = await repairTokenIds(node.engine, bot);
  t.ok(repair.tokens > 0, `${repair.tokens} tokens renumbered`);
  await repairDays(node.engine, repair.days, 0);
  t.same(await verifyAggregates(node.engine), [], 'after the repair and its days: nothing to report');
  const [{ tokens, ids }] = await node.engine.query<{ tokens: string; ids: string }>(
    'SELECT uniqExact(token) AS tokens, uniqExact(token_id) AS ids FROM events_local WHERE chatbot_id = {b:String} AND NOT is_bot', { b: bot });
  t.equal(ids, tokens, 'one id per token, one token per id');
});

t.test('an insert that fails on the shard after events_local took its rows: the retry with its token completes every aggregate once (finding 1, without a quorum)', async (t) => {
  // One chatbot's rows: the block reaches one shard whole (two halves of one block would share the token here, testing.ts).
  const bot = 'bot-retry';
  const rows = generateEvents({ seed: 789, now: NOW, chatbotId: bot, otherChatbotIds: [], users: 30, spanDays: 5 }).filter((e) => e.chatbot_id === bot);
  rows[Math.floor(rows.length / 2)] = { ...rows[Math.floor(rows.length / 2)], data: '{"note":"fault-marker"}' };
  await node.engine.command('CREATE TABLE fault_switch (on UInt8) ENGINE = Memory');
  await node.engine.command('CREATE TABLE fault_sink (x UInt8) ENGINE = Null');
  await node.engine.command("CREATE MATERIALIZED VIEW fault_mv TO fault_sink AS SELECT throwIf(data LIKE '%fault-marker%' AND (SELECT count() FROM fault_switch) > 0, 'injected fault') AS x FROM events_local");
  t.teardown(async () => {
    for (const name of ['fault_mv', 'fault_sink', 'fault_switch']) await node.engine.command(`DROP TABLE IF EXISTS ${name}`);
  });
  await node.engine.command('INSERT INTO fault_switch VALUES (1)');
  await t.rejects(insertEvents(node.engine, rows, 'retry-batch-1'), /injected fault/, 'the insert fails on the shard');
  const [{ n }] = await node.engine.query<{ n: string }>('SELECT count() AS n FROM events_local WHERE chatbot_id = {b:String}', { b: bot });
  t.ok(Number(n) > 0, `events_local took ${n} rows before the failure`);
  t.not((await verifyAggregates(node.engine, { chatbotId: bot })).length, 0, 'the aggregates miss them');
  await node.engine.command('TRUNCATE TABLE fault_switch');
  await insertEvents(node.engine, rows, 'retry-batch-1');
  t.same(await verifyAggregates(node.engine, { chatbotId: bot }), [], 'after the retry: every aggregate is what events says');
  const [{ again }] = await node.engine.query<{ again: string }>('SELECT count() AS again FROM events_local WHERE chatbot_id = {b:String}', { b: bot });
  t.equal(again, n, 'events_local took nothing twice');
});

t.test('an erasure on the cluster: every row naming the token leaves its shard, the aggregates stay exact, the masked rows are purged', async (t) => {
  const bot = BOTS[0];
  const [{ token }] = await node.engine.query<{ token: string }>(
    "SELECT token FROM events WHERE chatbot_id = {b:String} AND NOT is_bot AND event = 'purchase' GROUP BY token ORDER BY count() DESC, token LIMIT 1", { b: bot });
  const onDisk = async () => Number((await node.engine.query<{ n: string }>(
    'SELECT count() AS n FROM events_local WHERE token = {t:String} SETTINGS apply_deleted_mask = 0', { t: token }))[0].n);
  const before = await onDisk();
  t.ok(before > 0, `the token has ${before} rows`);
  await markTokenErased(node.engine, bot, token);
  const removed = await eraseTokenRows(node.engine, { chatbotId: bot, token, erasureId: 'cluster-erasure-1' }, { cluster: TEST_CLUSTER });
  t.equal(removed.events, before, 'the footprint counted every row');
  for (const table of ['events', 'token_ids']) {
    const [{ n }] = await node.engine.query<{ n: string }>(`SELECT count() AS n FROM ${table} WHERE token = {t:String}`, { t: token });
    t.equal(Number(n), 0, `${table} names the token nowhere`);
  }
  t.same(await verifyAggregates(node.engine, { chatbotId: bot }), [], 'the aggregates equal what events give');
  t.equal(await onDisk(), before, 'the rows of events are masked, still on disk');
  t.ok(await purgeDeletedRows(node.engine, { cluster: TEST_CLUSTER }) > 0, 'the purge rewrites the shards\' masked parts');
  t.equal(await onDisk(), 0, 'then no part holds them');
});

t.test('retention on the cluster: a chatbot\'s rows past its horizon leave both months on the shards, the others stay, verify holds', async (t) => {
  // The chatbot with most visitors (after its erasure above): rows on May 31 and in June.
  const bot = BOTS[0];
  const cutoff = Date.UTC(2026, 5, 10);
  const p = { b: bot, c: new Date(cutoff).toISOString().replace('T', ' ').slice(0, 23) };
  const older = async () => Number((await node.engine.query<{ n: string }>(
    `SELECT ${['events', 'purchases', 'conversation_starts', 'event_copies'].map((table) => `(SELECT count() FROM ${table} WHERE chatbot_id = {b:String} AND received_at < {c:DateTime64(3, 'UTC')})`).join(' + ')} AS n`, p))[0].n);
  const others = async () => (await node.engine.query<{ n: string }>('SELECT count() AS n FROM events WHERE chatbot_id != {b:String}', p))[0].n;
  const [{ months }] = await node.engine.query<{ months: string }>(
    "SELECT uniqExact(toYYYYMM(received_at)) AS months FROM events WHERE chatbot_id = {b:String} AND received_at < {c:DateTime64(3, 'UTC')}", p);
  t.equal(Number(months), 2, 'rows past the horizon in May and June');
  t.ok(await older() > 0);
  const kept = await others();
  t.ok((await applyRetention(node.engine, bot, cutoff, { cluster: TEST_CLUSTER })).deleted);
  t.equal(await older(), 0, 'nothing past the horizon on either shard');
  t.equal(await others(), kept, 'the other chatbots\' rows untouched');
  t.same(await verifyAggregates(node.engine, { chatbotId: bot }), [], 'verify finds no difference');
});
