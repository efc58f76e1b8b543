/**
 * `npm run bench:stats [-- --profile big-shop]`: latency of the statistics queries on the embedded
 * ClickHouse engine, against the same definitions in PostgreSQL over the same events, in one run.
 *
 *   Profiles (data.ts): `default` = 10M events over 90 days, 100 chatbots; `big-shop` =
 *   one chatbot with 10M events in the 30-day window and 2M tokens; `huge-shop` = the same with
 *   100M events and 20M tokens (bench only). 1 % retried beacons in each.
 *   A 30-day window; each statistic timed over --calls calls (after four warm-up calls), rotating
 *   over chatbots; `purchases` = the funnel alone, as a chatbot without A/B test gets it,
 *   `purchases ab_test` = with the A/B block; `page` = the four analytics-page statistics requested
 *   together, `app page` = those and the daily series, as the app's analytics page asks for them
 *   (the A/B block on every other chatbot, as the data marks them). `CH CPU` is the
 *   median CPU time per call (ms) of this process, which runs chdb: steadier than wall time on a busy machine.
 *   PostgreSQL: a temporary database on DATABASE_URL's server, or PGlite when it is unset.
 *   Both apply the same retry rule (a one-day lookback before the window, services/dashboard/docs/statistics.md)
 *   and the all-time order rule; popup-metrics is one query in ClickHouse, two in PostgreSQL.
 *   Floors printed first: chdb's bound `SELECT 1`, one granule of `events`, and the purchase
 *   funnel's table reads (each read its plan lists, a count of the chatbot's rows, in one query).
 *
 * Targets (exit code 1 when missed): default p95 ≤ 25 ms each; big-shop p95 ≤
 * 150 ms each (lift too, over a 10 % holdout), page ≤ 300 ms, ≥ 30× PostgreSQL; huge-shop p95 ≤ 300 ms each; on
 * the one-shop profiles the money-bearing statistics under the revenue source 'orders' ≤ 1.2×
 * the same under 'tracker' (p95, alternated per call: revenue-source.ts). The one-shop
 * profiles end with one summary line. The first run on freshly generated data is the "right
 * after a bulk load" figure: it says so in its first lines.
 * Options (--help): --events, --calls, --skip-pg; --dir <dir> keeps the generated ClickHouse data
 * there and reuses it on the next run (generation is the slow part; one directory per profile);
 * --insert-rows: rows per generating insert (20000 = the inserts `cli import` writes, so the first
 * run measures the reads right after a month of backfill through the import, its many small
 * parts unmerged). Env: CLICKHOUSE_EMBEDDED_CONNECTIONS (default 2, as the services'; 1 runs the
 * page's statistics one at a time), DATABASE_URL (the PostgreSQL baseline's server).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '@chatlytics/core';
import { clickhouseTime, createChdbEngine, runMigrations, sqlFile } from '@chatlytics/clickhouse';
import { createEventStatsRepository, daysWindow, statsQueryParams, type StatsWindow } from '@chatlytics/dashboard/stats';
import { opt, type Values } from '../lib/args.js';
import { defineBench } from '../lib/bench.js';
import { percentile } from '../lib/stats.js';
import { benchLogger, type Report } from '../lib/report.js';
import { abTestOn, botId, GENERATE_CHUNK_ROWS, loadClickHouse, statsProfile } from './data.js';
import { PG_AB_TEST, PG_QUERIES, loadPostgres } from './postgres.js';
import { compareRevenueSources } from './revenue-source.js';

const OPTIONS = {
  profile: opt.choice(['default', 'big-shop', 'huge-shop'], 'default', 'the data set (data.ts)'),
  events: opt.number(10_000_000, 'events of the data set (huge-shop: 100M unless set otherwise)', { min: 1, integer: true }),
  calls: opt.number(undefined, 'timed calls per statistic (default 20; one-shop profiles 10)', { min: 1, integer: true }),
  'skip-pg': opt.flag('no PostgreSQL baseline'),
  dir: opt.string(undefined, 'keep the generated ClickHouse data in this directory and reuse it on the next run'),
  'insert-rows': opt.number(GENERATE_CHUNK_ROWS, 'rows per generating insert', { min: 1, integer: true }),
};

export default defineBench({ summary: 'Latency of the statistics queries on the embedded ClickHouse engine (default, big-shop or huge-shop data), against the same definitions in PostgreSQL.', options: OPTIONS, run: main });

const WINDOW_DAYS = 30;
const log = benchLogger('warn');

/** Past ClickHouse's JIT threshold (see time()). */
const WARM_UP_CALLS = 4;


interface Timing { p50: number; p95: number; cpu?: number }

/** Wall time p50 / p95, and the median CPU time of this process per call: chdb runs in it, so on
 * the embedded engine that is the query's CPU, a figure a loaded machine disturbs far less.
 * `before` runs ahead of each call, untimed. */
async function measure(calls: number, run: (i: number) => Promise<unknown>, before?: () => Promise<unknown>): Promise<Timing> {
  const samples: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < calls; i++) {
    await before?.();
    const start = performance.now();
    const used = process.cpuUsage();
    await run(i);
    samples.push(performance.now() - start);
    const d = process.cpuUsage(used);
    cpu.push((d.user + d.system) / 1000);
  }
  samples.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p95: percentile(samples, 95), cpu: percentile(cpu, 50) };
}

/** `measure` after warm-up calls. */
async function time(calls: number, run: (i: number) => Promise<unknown>): Promise<Timing> {
  // Warm-up: first-use costs are not what a dashboard user waits for. Marks and caches load on
  // the first call; ClickHouse JIT-compiles a query's expressions on their 4th use
  // (min_count_to_compile_expression = 3), a cost paid once per process.
  for (let i = 0; i < WARM_UP_CALLS; i++) await run(-1);
  return measure(calls, run);
}

const fmt = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(1).padStart(8));

async function main(o: Values<typeof OPTIONS>, report: Report) {
  const PROFILE = statsProfile(o.profile, o.events);
  const CALLS = o.calls ?? (PROFILE.name === 'default' ? 20 : 10);
  // As the services' CLICKHOUSE_EMBEDDED_CONNECTIONS (same validation and default).
  const CONNECTIONS = loadConfig({ CLICKHOUSE_EMBEDDED_CONNECTIONS: process.env.CLICKHOUSE_EMBEDDED_CONNECTIONS }).clickhouse.embeddedConnections;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-bench-stats-'));
  const dataDir = o.dir ?? path.join(dir, 'clickhouse');
  const engine = await createChdbEngine({ path: dataDir, database: 'analytics', log, connections: CONNECTIONS });
  await runMigrations(engine);
  const now = await loadClickHouse(engine, PROFILE, dataDir, o['insert-rows'], report);
  const stats = createEventStatsRepository(engine);
  const window: StatsWindow = daysWindow(WINDOW_DAYS, now);
  // Rotate over chatbots so that no call is answered from the previous call's warm cache lines.
  const botIndex = (i: number) => (i + 1) * 7 % PROFILE.chatbots;
  const bot = (i: number) => botId(botIndex(i));
  // Purchases as the app asks for it (services/dashboard/src/stats/statistics/purchases.ts): with the A/B
  // block for a chatbot with A/B testing on, the funnel alone (a cheaper query) for the others.
  const purchasesAsApp = (i: number) => (abTestOn(botIndex(i)) ? stats.purchases(bot(i), window) : stats.purchaseFunnel(bot(i), window));

  // The floor: a bound trivial query through the same engine call (per-query overhead of chdb).
  const floor = await time(CALLS, () => engine.query('SELECT {one:UInt8} AS one', { one: 1 }));
  // The floor of reading `events` at all: one chatbot's last second (one granule, a few rows).
  // No statistic over this table can answer faster; PG p50 / this bounds the reachable speed-up.
  const readFloor = await time(CALLS, (i) => engine.query(
    "SELECT count() AS n FROM events WHERE chatbot_id = {chatbot_id:String} AND received_at >= {to:DateTime64(3, 'UTC')} - INTERVAL 1 SECOND AND received_at <= {to:DateTime64(3, 'UTC')}",
    { chatbot_id: bot(i), to: clickhouseTime(window.to) }));
  // The floor of the purchase funnel's table reads: one count of the chatbot's rows per table
  // read its plan has, in one query. The tables a statistic touches cost their planning and
  // opening whatever the shop's size; what is left above this is the statistic's own work.
  const plan = await engine.query<{ explain: string }>(`EXPLAIN PLAN ${sqlFile('stats/purchases')}`, { ...statsQueryParams(bot(0), window), ab_block: 'false' });
  const reads = plan.flatMap((r) => /ReadFromMergeTree \((?:\w+\.)?(\w+)\)/.exec(r.explain)?.[1] ?? []);
  if (reads.length === 0) throw new Error('EXPLAIN PLAN of stats/purchases lists no ReadFromMergeTree step: its output format changed');
  const readsSql = `SELECT sum(n) AS n FROM (${reads.map((t) => `SELECT count() AS n FROM ${t} WHERE chatbot_id = {chatbot_id:String}`).join(' UNION ALL ')})`;
  const readsFloor = await time(CALLS, (i) => engine.query(readsSql, { chatbot_id: bot(i) }));
  const ch: Record<string, Timing> = {
    engagement: await time(CALLS, (i) => stats.engagement(bot(i), window)),
    'popup-metrics': await time(CALLS, (i) => stats.popupMetrics(bot(i), window)),
    // Without the A/B block, as for a chatbot without A/B test; with it: `purchases ab_test`.
    purchases: await time(CALLS, (i) => stats.purchaseFunnel(bot(i), window)),
    'purchases ab_test': await time(CALLS, (i) => stats.purchases(bot(i), window)),
    'insights-events': await time(CALLS, (i) => stats.insightsEvents(bot(i), window)),
    // The daily series of the analytics page (no target of its own, no PostgreSQL twin).
    timeseries: await time(CALLS, (i) => stats.timeseries(bot(i), window)),
    // The holdout's lift (10 % of the tokens held out): the one-shop profiles' p95 target, no PostgreSQL twin.
    lift: await time(CALLS, (i) => stats.lift(bot(i), window)),
    // The issue's page: its four statistics requested at once (purchases carries ab_test where the chatbot has A/B testing on).
    page: await time(CALLS, (i) => Promise.all([
      stats.engagement(bot(i), window), stats.popupMetrics(bot(i), window), purchasesAsApp(i),
    ])),
    // What the app's analytics page asks for (services/dashboard/src/analytics/page-routes.ts): the same and the series.
    'app page': await time(CALLS, (i) => Promise.all([
      stats.engagement(bot(i), window), stats.popupMetrics(bot(i), window), purchasesAsApp(i), stats.timeseries(bot(i), window),
    ])),
  };
  const pgTimes: Record<string, Timing> = {};
  let pgKind = 'skipped';
  if (!o['skip-pg']) {
    const pgdb = await loadPostgres(engine, dir, report);
    pgKind = pgdb.kind;
    const params = (i: number) => [bot(i), window.from.toISOString(), window.to.toISOString()];
    try {
      for (const [name, sqls] of Object.entries(PG_QUERIES)) {
        pgTimes[name] = await time(CALLS, async (i) => { for (const sql of sqls) await pgdb.query(sql, params(i)); });
      }
      // The two engines must agree, or the comparison means nothing.
      const [chRow, pgRow] = [await stats.engagement(bot(0), window), (await pgdb.query(PG_QUERIES.engagement[0], params(0)))[0]];
      if (chRow.total_users !== Number(pgRow.total_users) || chRow.total_users_chatted !== Number(pgRow.chatted)) {
        throw new Error(`engines disagree: ${JSON.stringify(chRow)} vs ${JSON.stringify(pgRow)}`);
      }
      // Purchases too: the retry lookback and the all-time order rule must read alike in both.
      const [chBuy, pgBuy] = [await stats.purchaseFunnel(bot(0), window), (await pgdb.query(PG_QUERIES.purchases[0], params(0)))[0]];
      if (chBuy.total_users_purchased !== Number(pgBuy.purchased) || chBuy.orders !== Number(pgBuy.orders)) {
        throw new Error(`engines disagree on purchases: ${JSON.stringify(chBuy)} vs ${JSON.stringify(pgBuy)}`);
      }
      const [chAb, pgAb] = [(await stats.purchases(bot(0), window)).ab, (await pgdb.query(PG_AB_TEST, params(0)))[0]];
      if (chAb.control.visitors !== Number(pgAb.control_visitors) || chAb.test.orders !== Number(pgAb.test_orders)) {
        throw new Error(`engines disagree on ab_test: ${JSON.stringify(chAb)} vs ${JSON.stringify(pgAb)}`);
      }
    } finally {
      await pgdb.close();
    }
  }

  report.text(`\nchdb floor (bound SELECT 1): p50 ${floor.p50.toFixed(1)} ms, p95 ${floor.p95.toFixed(1)} ms; any read of events (one granule): p50 ${readFloor.p50.toFixed(1)} ms, p95 ${readFloor.p95.toFixed(1)} ms`);
  report.text(`the purchase funnel's ${reads.length} table reads (${[...new Set(reads)].join(', ')}), a count each in one query: p50 ${readsFloor.p50.toFixed(1)} ms, p95 ${readsFloor.p95.toFixed(1)} ms`);
  report.text(`${PROFILE.name} profile: ${PROFILE.events} events, ${PROFILE.chatbots} chatbot(s), ${PROFILE.tokensPerChatbot} tokens each; ${WINDOW_DAYS}-day window; ${CALLS} calls each; ${CONNECTIONS} ClickHouse connection(s); baseline: ${pgKind}`);
  report.text('statistic              CH p50   CH p95   CH CPU   PG p50   PG p95  speedup(p50)  target');
  const context = { profile: PROFILE.name, events: PROFILE.events, calls: CALLS, connections: CONNECTIONS };
  const timing = (statistic: string, engineName: string, t: Timing) => report.figures({ ...context, statistic, engine: engineName }, [
    ['p50', t.p50, 'ms'], ['p95', t.p95, 'ms'], ...(t.cpu === undefined || engineName !== 'ClickHouse' ? [] : [['CPU per call', t.cpu, 'ms'] as [string, number, string]]),
  ]);
  timing('floor: bound SELECT 1', 'ClickHouse', floor);
  timing('floor: one granule of events', 'ClickHouse', readFloor);
  timing(`floor: the purchase funnel's ${reads.length} table reads`, 'ClickHouse', readsFloor);
  let ok = true;
  const targeted = ['engagement', 'popup-metrics', 'purchases', 'purchases ab_test'];
  for (const [name, t] of Object.entries(ch)) {
    const base = pgTimes[name];
    const speedup = base ? base.p50 / t.p50 : undefined;
    const limit = name === 'page' ? PROFILE.targetPageMs : targeted.includes(name) || (name === 'lift' && PROFILE.name !== 'default') ? PROFILE.targetP95Ms : undefined;
    const pass = (limit === undefined || t.p95 <= limit) && (speedup === undefined || !targeted.includes(name) || speedup >= PROFILE.targetSpeedup);
    ok &&= pass;
    const reachable = base ? `  (reachable at the read floor: ${(base.p50 / readFloor.p50).toFixed(0)}×)` : '';
    timing(name, 'ClickHouse', t);
    if (base) timing(name, pgKind, base);
    if (speedup) report.figure('speed-up over PostgreSQL', speedup, '×', { ...context, statistic: name, of: `${pgKind} p50 ÷ ClickHouse p50` });
    if (limit !== undefined) report.figure('p95 target', limit, 'ms', { ...context, statistic: name, met: pass });
    report.text(`${name.padEnd(20)} ${fmt(t.p50)} ${fmt(t.p95)} ${fmt(t.cpu)} ${fmt(base?.p50)} ${fmt(base?.p95)}  ${speedup ? `${speedup.toFixed(1)}×`.padStart(10) : '         -'}   ${pass ? 'ok' : 'MISSED'}${reachable}`);
  }
  if (PROFILE.name !== 'default') {
    const p95 = (name: string) => Math.round(ch[name].p95);
    const speedups = targeted.filter((n) => pgTimes[n]).map((n) => pgTimes[n].p50 / ch[n].p50);
    const least = speedups.length ? `${Math.min(...speedups).toFixed(1)}×` : 'not measured';
    // The shop's orders as the revenue (issue target ≤ 1.2× the tracker's), alternated per call.
    ok = (await compareRevenueSources(engine, bot(0), window, CALLS * 2, report, context)) && ok;
    report.text(`${PROFILE.name} p95 ms: engagement=${p95('engagement')} popup-metrics=${p95('popup-metrics')} purchases=${p95('purchases')} ab_test=${p95('purchases ab_test')} page=${p95('page')} lift=${p95('lift')}; speed-up over PostgreSQL ${least}`);
  }
  await engine.close();
  fs.rmSync(dir, { recursive: true, force: true });
  if (!ok) process.exitCode = 1;
}
