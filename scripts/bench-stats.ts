/**
 * npm run bench:stats: latency of the statistics queries on the embedded ClickHouse engine,
 * against the same definitions in PostgreSQL over the same events, in one run.
 *
 *   10M events, 90 days, 100 chatbots, generated inside the engine (INSERT … SELECT from
 *   numbers()), plus 1 % retried beacons (same event_id, later received_at). A 30-day window;
 *   each endpoint's queries timed over 20 calls (after one warm-up), rotating over chatbots.
 *   PostgreSQL: a temporary database on DATABASE_URL's server, or PGlite when it is unset.
 *   Both apply the same retry rule (a one-day lookback before the window, services/dashboard/README.md) and the
 *   all-time order rule; popup-metrics is one query in ClickHouse, two in PostgreSQL.
 *
 * Targets: p95 ≤ 100 ms for engagement, popup-metrics and purchases; ≥ 20× faster than PostgreSQL.
 * Env: BENCH_EVENTS (default 10000000), BENCH_CALLS (20), BENCH_SKIP_PG=1, BENCH_DIR=<dir> to keep
 * the generated ClickHouse data there and reuse it on the next run (generation is the slow part).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { createChdbEngine, runMigrations, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { createEventStatsRepository, daysWindow, type StatsWindow } from '@chatlytics/dashboard/stats';
import { PG_INDEX_DDL, PG_QUERIES, PG_TABLE_DDL, embeddedPostgres, serverPostgres, type BenchPostgres } from './bench-stats-postgres.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000_000);
const CALLS = Number(process.env.BENCH_CALLS ?? 20);
const CHATBOTS = 100;
const DAYS = 90;
const WINDOW_DAYS = 30;
const TARGET_P95_MS = 100;
const TARGET_SPEEDUP = 20;
const log = pino({ level: 'warn' });
// The data's clock: events span the DAYS before it. A reused data set keeps its own (see loadClickHouse).
let now = new Date();
const botId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

/**
 * One row per number: chatbot = n mod 100; ~30k tokens per chatbot (last character 0, 1 or x
 * for the A/B groups); event types in realistic proportions; order numbers from a pool so
 * that orders repeat; 5 % of purchases in an unknown currency (NULL base value); 2 % of the
 * tokens crawlers (is_bot), whose rows every statistic leaves out.
 */
const GENERATE = `
INSERT INTO events (event_id, event, token, chatbot_id, received_at, ab_test, ab_group, popup_version, open_way,
                    order_num, currency, total_value, total_value_base, items, url, user_agent, client_hash, data, is_bot)
SELECT
    reinterpretAsUUID(reverse(unhex(lpad(hex(n), 32, '0')))) AS event_id,
    multiIf(k < 30, 'visitor', k < 50, 'popup_displayed', k < 55, 'popup_opened', k < 65, 'bot_open',
            k < 72, 'convo_started', k < 87, 'message_sent', k < 91, 'click_through', k < 93, 'message_like',
            k < 94, 'message_dislike', k < 97, 'purchase', 'go_to_cart') AS event,
    concat('tok', toString(u), ['0', '1', 'x'][u % 3 + 1]) AS token,
    concat('00000000-0000-4000-8000-', leftPad(toString(n % ${CHATBOTS}), 12, '0')) AS chatbot_id,
    {now:DateTime64(3, 'UTC')} - toIntervalMillisecond(cityHash64(n, 't') % (${DAYS} * 86400000)) AS received_at,
    (n % ${CHATBOTS}) % 2 = 0 AS ab_test,
    if(ab_test AND u % 3 < 2, ['control', 'test'][u % 3 + 1], NULL) AS ab_group,
    if(event IN ('popup_displayed', 'popup_opened'), ['v1', 'v2', 'v3', ''][h % 4 + 1], '') AS popup_version,
    if(event = 'convo_started', ['popup', 'chat_button', ''][h % 3 + 1], '') AS open_way,
    if(event = 'purchase' AND h % 4 != 0, concat('ORD-', toString(h % 400000)), '') AS order_num,
    '' AS currency,
    if(event = 'purchase', (h % 20000) / 100, 0) AS total_value,
    if(event = 'purchase', if(h % 20 = 0, NULL, (h % 20000) / 100), 0) AS total_value_base,
    [] AS items, '' AS url, if(is_bot, 'Mozilla/5.0 (compatible; Googlebot/2.1)', '') AS user_agent, '' AS client_hash, '{}' AS data,
    cityHash64(u, 'bot') % 50 = 0 AS is_bot
FROM (SELECT number AS n, cityHash64(number, 'k') % 100 AS k, cityHash64(number, 'u') % 30000 AS u, cityHash64(number, 'h') AS h
      FROM numbers({events:UInt64}))`;

/** Retried beacons: 1 % of events again, 1 ms to 2 days later. */
const RETRIES = `
INSERT INTO events
SELECT * REPLACE (received_at + toIntervalMillisecond(cityHash64(event_id) % 172800000 + 1) AS received_at, now64(3) AS inserted_at)
FROM events WHERE cityHash64(event_id, 'r') % 100 = 0`;

const EXPORT_COLUMNS = 'event_id, event, token, chatbot_id, received_at, ab_group, popup_version, open_way, order_num, total_value_base, is_bot';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function time(calls: number, run: (i: number) => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  await run(-1); // warm-up: first-use costs (marks, caches) are not what a dashboard user waits for
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    await run(i);
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

async function loadClickHouse(dir: string): Promise<ClickHouseEngine> {
  const engine = await createChdbEngine({ path: dir, database: 'analytics', log });
  await runMigrations(engine);
  const [{ rows: existing }] = await engine.query<{ rows: string }>('SELECT count() AS rows FROM events');
  if (Number(existing) > 0) {
    // The generating INSERT stamped inserted_at with (about) the clock its events are relative to.
    const [{ last }] = await engine.query<{ last: string }>('SELECT toString(min(inserted_at)) AS last FROM events');
    now = new Date(`${last.replace(' ', 'T')}Z`);
    console.log(`ClickHouse: reusing ${existing} rows in ${dir} (generated up to ${now.toISOString()})`);
    return engine;
  }
  const started = performance.now();
  await engine.command(GENERATE, { now: now.toISOString().replace('T', ' ').replace('Z', ''), events: EVENTS });
  await engine.command(RETRIES);
  // Merged parts, as a long-running table has: a fresh insert leaves many small parts.
  await engine.command('OPTIMIZE TABLE events FINAL');
  const [{ rows }] = await engine.query<{ rows: string }>('SELECT count() AS rows FROM events');
  console.log(`ClickHouse: ${rows} rows generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return engine;
}

async function loadPostgres(engine: ClickHouseEngine, dir: string): Promise<BenchPostgres> {
  const csv = path.join(dir, 'events.csv');
  await engine.command(`SELECT ${EXPORT_COLUMNS} FROM events INTO OUTFILE '${csv}' FORMAT CSV`);
  // The PostgreSQL server process (another OS user) reads it for COPY: open the way to it.
  fs.chmodSync(dir, 0o755);
  fs.chmodSync(csv, 0o644);
  const pgdb = process.env.DATABASE_URL ? await serverPostgres(process.env.DATABASE_URL) : await embeddedPostgres(path.join(dir, 'pglite'));
  const started = performance.now();
  await pgdb.exec(PG_TABLE_DDL);
  await pgdb.load(csv);
  for (const ddl of PG_INDEX_DDL) await pgdb.exec(ddl);
  fs.rmSync(csv);
  console.log(`${pgdb.kind}: loaded and indexed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return pgdb;
}

const fmt = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(1).padStart(8));

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-bench-stats-'));
  const engine = await loadClickHouse(process.env.BENCH_DIR ?? path.join(dir, 'clickhouse'));
  const stats = createEventStatsRepository(engine);
  const window: StatsWindow = daysWindow(WINDOW_DAYS, now);
  // Rotate over chatbots so that no call is answered from the previous call's warm cache lines.
  const bot = (i: number) => botId((i + 1) * 7 % CHATBOTS);

  // The floor: a bound trivial query through the same engine call (per-query overhead of chdb).
  const floor = await time(CALLS, () => engine.query('SELECT {one:UInt8} AS one', { one: 1 }));
  // The floor of reading `events` at all: one chatbot's last second (one granule, a few rows).
  // No statistic over this table can answer faster; PG p50 / this bounds the reachable speed-up.
  const readFloor = await time(CALLS, (i) => engine.query(
    "SELECT count() AS n FROM events WHERE chatbot_id = {chatbot_id:String} AND received_at >= {to:DateTime64(3, 'UTC')} - INTERVAL 1 SECOND AND received_at <= {to:DateTime64(3, 'UTC')}",
    { chatbot_id: bot(i), to: window.to.toISOString().replace('T', ' ').replace('Z', '') }));
  const ch: Record<string, { p50: number; p95: number }> = {
    engagement: await time(CALLS, (i) => stats.engagement(bot(i), window)),
    'popup-metrics': await time(CALLS, (i) => stats.popupMetrics(bot(i), window)),
    purchases: await time(CALLS, (i) => stats.purchases(bot(i), window)),
    'purchases ab_test': await time(CALLS, (i) => stats.abTest(bot(i), window)),
    'insights-events': await time(CALLS, (i) => stats.insightsEvents(bot(i), window)),
  };

  const pgTimes: Record<string, { p50: number; p95: number }> = {};
  let pgKind = 'skipped';
  if (process.env.BENCH_SKIP_PG !== '1') {
    const pgdb = await loadPostgres(engine, dir);
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
      const [chBuy, pgBuy] = [await stats.purchases(bot(0), window), (await pgdb.query(PG_QUERIES.purchases[0], params(0)))[0]];
      if (chBuy.total_users_purchased !== Number(pgBuy.purchased) || chBuy.orders !== Number(pgBuy.orders)) {
        throw new Error(`engines disagree on purchases: ${JSON.stringify(chBuy)} vs ${JSON.stringify(pgBuy)}`);
      }
    } finally {
      await pgdb.close();
    }
  }

  console.log(`\nchdb floor (bound SELECT 1): p50 ${floor.p50.toFixed(1)} ms, p95 ${floor.p95.toFixed(1)} ms; any read of events (one granule): p50 ${readFloor.p50.toFixed(1)} ms, p95 ${readFloor.p95.toFixed(1)} ms`);
  console.log(`${EVENTS} events, ${CHATBOTS} chatbots, ${DAYS} days; ${WINDOW_DAYS}-day window; ${CALLS} calls each; baseline: ${pgKind}`);
  console.log('statistic              CH p50   CH p95   PG p50   PG p95  speedup(p50)  target');
  let ok = true;
  for (const [name, t] of Object.entries(ch)) {
    const base = pgTimes[name];
    const speedup = base ? base.p50 / t.p50 : undefined;
    const targeted = ['engagement', 'popup-metrics', 'purchases'].includes(name);
    const pass = (!targeted || t.p95 <= TARGET_P95_MS) && (speedup === undefined || speedup >= TARGET_SPEEDUP);
    ok &&= pass;
    const reachable = base ? `  (reachable at the read floor: ${(base.p50 / readFloor.p50).toFixed(0)}×)` : '';
    console.log(`${name.padEnd(20)} ${fmt(t.p50)} ${fmt(t.p95)} ${fmt(base?.p50)} ${fmt(base?.p95)}  ${speedup ? `${speedup.toFixed(1)}×`.padStart(10) : '         -'}   ${pass ? 'ok' : 'MISSED'}${reachable}`);
  }
  await engine.close();
  fs.rmSync(dir, { recursive: true, force: true });
  if (!ok) process.exitCode = 1;
}

await main();
