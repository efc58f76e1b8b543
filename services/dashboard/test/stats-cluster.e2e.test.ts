/**
 * Every statistic on the cluster form (clickhouse/deploy/README.md, "What runs in CI"): the
 * migrations rendered for a cluster of two shards on the embedded engine, with the services'
 * production profile (distributed_product_mode = 'local', optimize_skip_unused_shards = 1), the
 * events inserted through the Distributed input table; each statistic, read through the
 * Distributed tables, equals the same statistic on the single-node form over the same events,
 * and the oracle where the oracle suite has one; the same for chatbots whose revenue is the
 * shop's orders (revenue source 'orders'). Both shards are one node here: a read that
 * asks more than its chatbot's shard counts every row twice, so equality also says each
 * statistic reads one shard.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { runMigrations, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { clusterProfileSettings, createChdbCluster } from '@chatlytics/clickhouse/testing';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createRng, generateConversations, generateEvents } from '@chatlytics/testkit';
import { createStatsRepository, type StatsRepository } from '../src/stats/readers.js';
import { daysWindow, type StatsWindow } from '../src/stats/window.js';
import { insertEvents, seedPostgres, silentLog, type SeedChatbot } from './stats-fixtures.js';
import { oracleEngagement, oraclePopupMetrics, oracleTimeseries } from './stats-oracle.js';
import { oraclePurchasesFromOrders } from './stats-orders-oracle.js';
import { insertOrders, NOW as ORDERS_NOW, ordersScenario } from './stats-orders-scenario.js';

const NOW = Date.parse('2026-05-20T12:34:56.789Z');
const TIMEFRAMES = [1, 7, 30];
const APP_URL = 'https://app.example.test';
const SEEDS = [1, 2, 3, 4];

const scenarios = SEEDS.map((seed) => {
  const rng = createRng(seed * 7919);
  const accountId = rng.uuid();
  const bot: SeedChatbot = { id: rng.uuid(), accountId, abTestEnabled: seed % 2 === 1 };
  const others = [{ id: rng.uuid(), accountId, abTestEnabled: true }];
  const common = { seed, now: NOW, chatbotId: bot.id, otherChatbotIds: others.map((o) => o.id) };
  const events = generateEvents({ ...common, boundaryDays: TIMEFRAMES });
  const tokens = [...new Set(events.filter((e) => e.chatbot_id === bot.id && !e.is_bot).map((e) => e.token))];
  const convos = generateConversations(common).map((c, i) => (i % 5 === 4 ? c : { ...c, visitorToken: tokens[(i * 7) % tokens.length] }));
  return { seed, bot, others, events, convos };
});

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-stats-cluster-'));
const cluster = await createChdbCluster({ path: dir, database: 'analytics', log: silentLog, tables: 'plain' });
// The single-node form beside it, on the same engine: the figures the cluster must give.
const single = await createChdbCluster({ path: dir, database: 'single_node', log: silentLog, tables: 'plain' });
t.teardown(async () => {
  await single.engine.close();
  await cluster.engine.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
await runMigrations(cluster.engine, { cluster: cluster.cluster });
await runMigrations(single.engine);
const all = scenarios.flatMap((s) => s.events);
await insertEvents(cluster.engine, all);
await insertEvents(single.engine, all);
// Chatbots whose revenue is the shop's orders (revenue source 'orders'), sent through the
// Distributed tables as the consumer sends them.
const withOrders = [11, 12, 13].map(ordersScenario);
for (const engine of [cluster.engine, single.engine]) {
  await insertEvents(engine, withOrders.flatMap((s) => s.events));
  await insertOrders(engine, withOrders);
}

t.test('the chatbots are on both shards', async (t) => {
  const bots = scenarios.map((s) => s.bot.id);
  const rows = await cluster.engine.query<{ shard: string }>('SELECT DISTINCT toString(cityHash64(b) % 2 + 1) AS shard FROM (SELECT arrayJoin({bots:Array(String)}) AS b)', { bots });
  t.same(rows.map((r) => r.shard).sort(), ['1', '2']);
});

/** Every statistic of the registry with each of its parameters, with and without a segment filter. */
function calls(repo: StatsRepository, bot: SeedChatbot, w: StatsWindow): [string, () => Promise<unknown>][] {
  const out: [string, () => Promise<unknown>][] = [];
  for (const filter of [undefined, { source: 'google' }, { device: 'mobile' }]) {
    const f = filter ? ` ${JSON.stringify(filter)}` : '';
    out.push([`engagement${f}`, () => repo.engagement(bot.id, w, filter)]);
    out.push([`popup-metrics${f}`, () => repo.popupMetrics(bot.id, w, filter)]);
    out.push([`purchases${f}`, () => repo.purchases(bot, w, filter)]);
    out.push([`purchases, A/B ${!bot.abTestEnabled}${f}`, () => repo.purchases({ ...bot, abTestEnabled: !bot.abTestEnabled }, w, filter)]);
    out.push([`timeseries${f}`, () => repo.timeseries(bot.id, w, filter)]);
    out.push([`cart${f}`, () => repo.cart(bot.id, w, filter)]);
    out.push([`overview${f}`, () => repo.overview(bot.id, w, filter)]);
    for (const by of ['source', 'utm_campaign', 'device'] as const) out.push([`sources by ${by}${f}`, () => repo.sources(bot.id, w, by, filter)]);
  }
  for (const d of ['intent', 'product', 'clicked_product', 'complaint', 'missing_information'] as const) out.push([`topics ${d}`, () => repo.topics(bot.id, w, d)]);
  out.push(['set-aside-purchases', () => repo.setAsidePurchases(bot.id, w)]);
  out.push(['live-events', () => repo.liveEvents(bot.id, w)]);
  out.push(['conversation-insights', () => repo.conversationInsights(bot.id, w)]);
  return out;
}

const [variant] = databaseVariants();
t.test('every statistic through the Distributed tables equals the single-node form and the oracle', async (t) => {
  const pg = await variant.open();
  t.teardown(() => pg.destroy());
  await seedPostgres(pg.postgres.db, scenarios.flatMap((s) => [s.bot, ...s.others]), scenarios.flatMap((s) => s.convos));
  const repoOf = (clickhouse: ClickHouseEngine) => createStatsRepository({ clickhouse, db: pg.postgres.db, appUrl: APP_URL });
  const [onCluster, onOneNode] = [repoOf(cluster.engine), repoOf(single.engine)];
  let compared = 0;
  for (const s of scenarios) {
    for (const days of TIMEFRAMES) {
      const w = daysWindow(days, new Date(NOW));
      const at = `seed ${s.seed}, ${days} day(s)`;
      const mine = calls(onCluster, s.bot, w);
      const theirs = calls(onOneNode, s.bot, w);
      for (const [k, [name, read]] of mine.entries()) {
        t.same(await read(), await theirs[k][1](), `${name}, ${at}`);
        compared++;
      }
      const [from, to] = [w.from.getTime(), w.to.getTime()];
      t.same(await onCluster.engagement(s.bot.id, w), oracleEngagement(s.events, s.bot.id, from, to), `engagement = oracle, ${at}`);
      t.same(await onCluster.popupMetrics(s.bot.id, w), oraclePopupMetrics(s.events, s.bot.id, from, to), `popup-metrics = oracle, ${at}`);
      const { days: series } = await onCluster.timeseries(s.bot.id, w);
      const expectedDay = oracleTimeseries(s.events, s.bot.id, from, to);
      t.same(series, series.map((d) => ({ date: d.date, ...expectedDay(d.date) })), `timeseries = oracle, ${at}`);
    }
  }
  t.ok(compared > 300, `${compared} statistics compared`);
});

t.test('every statistic under the revenue source \'orders\' through the Distributed tables equals the single-node form and the oracle', async (t) => {
  const repoOf = (clickhouse: ClickHouseEngine) => createStatsRepository({ clickhouse, db: undefined as never, appUrl: APP_URL });
  const [onCluster, onOneNode] = [repoOf(cluster.engine), repoOf(single.engine)];
  let afterChat = 0;
  for (const s of withOrders) {
    for (const days of TIMEFRAMES) {
      const w = daysWindow(days, new Date(ORDERS_NOW));
      const at = `seed ${s.seed}, ${days} day(s)`;
      const bot = { id: s.bot.id, abTestEnabled: true, holdoutPercent: 10, revenueSource: 'orders' as const, attributionWindowDays: s.bot.windowDays };
      const reads: [string, (r: StatsRepository) => Promise<unknown>][] = [
        ['purchases', (r) => r.purchases(bot, w)],
        ['purchases without A/B', (r) => r.purchases({ ...bot, abTestEnabled: false }, w)],
        ['timeseries', (r) => r.timeseries(bot, w)],
        ['sources by device', (r) => r.sources(bot, w, 'device')],
        ['sources by source', (r) => r.sources(bot, w, 'source')],
        ['lift', (r) => r.lift(bot, w)],
      ];
      for (const [name, read] of reads) t.same(await read(onCluster), await read(onOneNode), `${name}, ${at}`);
      const funnel = await onCluster.purchases({ ...bot, abTestEnabled: false }, w);
      t.same(funnel, oraclePurchasesFromOrders(s.events, s.orders, s.refunds, s.bot.id, w.from.getTime(), w.to.getTime(), s.bot.windowDays, false), `purchases = oracle, ${at}`);
      afterChat += funnel.total_users_chatted_purchased;
    }
  }
  t.ok(afterChat > 0, `${afterChat} after-chat purchasers: the attribution's join ran on the cluster`);
});

t.test('the figures are not both zero: the seeded chatbots have visitors and purchases on the cluster', async (t) => {
  const repo = createStatsRepository({ clickhouse: cluster.engine, db: undefined as never, appUrl: APP_URL });
  const w = daysWindow(30, new Date(NOW));
  for (const s of scenarios) {
    const e = await repo.engagement(s.bot.id, w) as { total_users: number };
    t.ok(e.total_users > 0, `seed ${s.seed}: ${e.total_users} visitors`);
  }
});

t.test('reverted: without the profile\'s read settings the statistics fail (288) or read every shard', async (t) => {
  const profile = clusterProfileSettings();
  const deny = await createChdbCluster({ path: dir, database: 'analytics', log: silentLog, tables: 'plain', settings: { ...profile, distributed_product_mode: 'deny' } });
  t.teardown(() => deny.engine.close());
  const everyShard = await createChdbCluster({ path: dir, database: 'analytics', log: silentLog, tables: 'plain', settings: { ...profile, optimize_skip_unused_shards: 0 } });
  t.teardown(() => everyShard.engine.close());
  const repoOf = (clickhouse: ClickHouseEngine) => createStatsRepository({ clickhouse, db: undefined as never, appUrl: APP_URL });
  const w = daysWindow(30, new Date(NOW));
  const s = scenarios[0];
  const code = await repoOf(deny.engine).purchases(s.bot, w).then(() => 0, (err: { clickhouseCode?: number }) => err.clickhouseCode);
  t.equal(code, 288, 'purchases: a subquery over a Distributed table (distributed_product_mode = deny)');
  const [mine, theirs] = [await repoOf(everyShard.engine).popupMetrics(s.bot.id, w), await repoOf(single.engine).popupMetrics(s.bot.id, w)];
  t.not(JSON.stringify(mine), JSON.stringify(theirs), 'popup-metrics read on every shard (optimize_skip_unused_shards = 0): here each row twice');
});
