/**
 * `compare=previous` on every windowed statistic, through HTTP on the real dashboardApp (embedded
 * ClickHouse; PGlite and, with DATABASE_URL, the PostgreSQL server). The oracle: the answer is
 * exactly the answer without `compare` plus `previous`, and `previous` is the statistic over the
 * previous period asked directly: for a range, the API's own answer for the N days before
 * `from`; for the last N days (a window no `from`/`to` can name), the repository called with
 * `[now − 2N days, now − N days − 1 ms]`, checked against the independent oracle too. Then 422
 * for a bad `compare`, 404 for another account's chatbot, and the CSV of a compared answer.
 */
import t from 'tap';
import Fastify from 'fastify';
import { loadConfig } from '@chatlytics/core';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createRng, generateConversations, generateEvents, type GeneratedConversation } from '@chatlytics/testkit';
import dashboardApp from '../src/app.js';
import { createStatsRepository } from '../src/stats/index.js';
import { TEST_SCRYPT_COST } from '../src/auth/passwords.js';
import { importFixture } from '../src/fixtures/import.js';
import type { Fixture } from '../src/fixtures/schema.js';
import { expectedTable, parseCsv } from './csv-helpers.js';
import { insertEvents, openClickHouse, silentLog } from './stats-fixtures.js';
import { oracleEngagement, oracleOverview, oraclePopupMetrics, oraclePurchases } from './stats-oracle.js';

const NOW = Date.parse('2026-02-10T08:00:00.000Z');
const DAY = 86_400_000;
const APP_URL = 'https://dash.example.test';
const rng = createRng(4301);
const IDS = { accountA: rng.uuid(), accountB: rng.uuid(), botAb: rng.uuid(), botPlain: rng.uuid(), botOther: rng.uuid() };
const KEY_A = `ck_${'c'.repeat(30)}`;
const KEY_B = `ck_${'d'.repeat(30)}`;
const BASE = '/api/dashboard/analytics/stats';
const ENDPOINTS = ['overview', 'engagement', 'popup-metrics', 'purchases', 'timeseries'] as const;
type Endpoint = (typeof ENDPOINTS)[number];

// 100 days of history: the previous period of 30 days (30–60 days back) is full of events too.
const common = { now: NOW, otherChatbotIds: [IDS.botOther], spanDays: 100 };
const events = [
  ...generateEvents({ ...common, seed: 41, chatbotId: IDS.botAb, boundaryDays: [7, 14] }),
  ...generateEvents({ ...common, seed: 42, chatbotId: IDS.botPlain }),
];
const convos = generateConversations({ ...common, seed: 43, chatbotId: IDS.botAb, count: 150 });
const iso = (ms: number) => new Date(ms).toISOString();
const day = (ms: number) => iso(ms).slice(0, 10);
const asFixture = (list: GeneratedConversation[], chatbotId: string) => list.filter((c) => c.chatbotId === chatbotId).map((c) => ({
  id: c.id, startedAt: iso(c.startedAt), messages: c.messages.map((m) => ({ ...m, createdAt: iso(m.createdAt) })), analysis: c.analysis,
}));
const fixture: Fixture = {
  accounts: [
    { id: IDS.accountA, name: 'Shop A', apiKeys: [{ name: 'ci', key: KEY_A }], chatbots: [
      { id: IDS.botAb, name: 'AB bot', settings: { abTestEnabled: true }, conversations: asFixture(convos, IDS.botAb) },
      { id: IDS.botPlain, name: 'Plain bot', settings: { abTestEnabled: false } },
    ] },
    { id: IDS.accountB, name: 'Shop B', apiKeys: [{ name: 'ci', key: KEY_B }], chatbots: [
      { id: IDS.botOther, name: 'Other bot', conversations: asFixture(convos, IDS.botOther) },
    ] },
  ],
};

const ch = await openClickHouse();
t.teardown(() => ch.close());
await insertEvents(ch.embedded, events);

for (const variant of databaseVariants()) {
  t.test(`compare=previous over HTTP (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open();
    t.teardown(() => tdb.destroy());
    await importFixture(tdb.postgres.db, fixture, { passwordCost: TEST_SCRYPT_COST });
    const config = loadConfig({ DATA_DIR: tdb.dataDir, APP_URL, SESSION_SECRET: 'x'.repeat(40) });
    const app = Fastify({ loggerInstance: silentLog, pluginTimeout: 120_000 });
    await app.register(dashboardApp, { config, postgres: tdb.postgres, clickhouse: ch.embedded, passwordCost: TEST_SCRYPT_COST, clock: () => new Date(NOW) });
    await app.ready();
    t.teardown(() => app.close());
    const get = (path: string, query: Record<string, string | number>, key = KEY_A) =>
      app.inject({ method: 'GET', url: `${BASE}/${path}`, query: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])), headers: { 'x-api-key': key } });
    const json = async (path: string, query: Record<string, string | number>) => {
      const res = await get(path, query);
      t.equal(res.statusCode, 200, `${path} ${JSON.stringify(query)}`);
      return res.json();
    };

    const repo = createStatsRepository({ clickhouse: ch.embedded, db: tdb.postgres.db, appUrl: APP_URL });
    /** The statistic over `[from, to]`, straight from the repository, with its window fields. */
    const direct = async (path: Endpoint, chatbotId: string, days: number, from: number, to: number) => {
      const w = { from: new Date(from), to: new Date(to) };
      const chatbot = (await repo.chatbotOfAccount(IDS.accountA, chatbotId))!;
      const body = await {
        overview: () => repo.overview(chatbotId, w), engagement: () => repo.engagement(chatbotId, w), 'popup-metrics': () => repo.popupMetrics(chatbotId, w),
        purchases: () => repo.purchases(chatbot, w), timeseries: () => repo.timeseries(chatbotId, w),
      }[path]();
      return { timeframe_days: days, start_date: day(from), end_date: day(to), ...body };
    };
    /** The answer with compare is the one without, plus `previous` as its last field. */
    const checkShape = (compared: Record<string, unknown>, plain: Record<string, unknown>, previous: unknown, what: string) => {
      t.same(Object.keys(compared), [...Object.keys(plain), 'previous'], `${what}: the plain fields in order, then previous`);
      t.same(compared, { ...plain, previous }, `${what}: unchanged plus previous`);
      t.same(Object.keys(compared.previous as object), Object.keys(plain), `${what}: previous has the body's own fields in order`);
    };

    t.test('the last N days: previous = the statistic over [now − 2N days, now − N days − 1 ms]', async (t) => {
      for (const bot of [IDS.botAb, IDS.botPlain]) {
        for (const days of [1, 7, 30]) {
          const [from, to] = [NOW - 2 * days * DAY, NOW - days * DAY - 1];
          for (const path of ENDPOINTS) {
            const q = { chatbot_id: bot, timeframe: days };
            const compared = await json(path, { ...q, compare: 'previous' });
            checkShape(compared, await json(path, q), await direct(path, bot, days, from, to), `${path} ${days} days`);
          }
          // The repository is not its own oracle: the previous period's numbers against the independent one.
          const window = { timeframe_days: days, start_date: day(from), end_date: day(to) };
          const prev = async (path: Endpoint) => (await json(path, { chatbot_id: bot, timeframe: days, compare: 'previous' })).previous;
          t.same(await prev('engagement'), { ...window, ...oracleEngagement(events, bot, from, to) }, `engagement ${days}: oracle`);
          t.same(await prev('popup-metrics'), { ...window, ...oraclePopupMetrics(events, bot, from, to) }, `popup-metrics ${days}: oracle`);
          const { ab_test: _ab, ...purchases } = await prev('purchases');
          const { ab_test: _abOracle, ...expected } = oraclePurchases(events, bot, from, to, bot === IDS.botAb) as Record<string, unknown>;
          t.same(purchases, { ...window, ...expected }, `purchases ${days}: oracle`);
          if (bot === IDS.botAb) t.same(await prev('overview'), { ...window, ...oracleOverview(convos, bot, from, to) }, `overview ${days}: oracle`);
          t.ok((await prev('engagement')).total_users > 0, `${days}: the previous period has visitors`);
        }
      }
      const dflt = await json('engagement', { chatbot_id: IDS.botAb, compare: 'previous' });
      t.same([dflt.timeframe_days, dflt.previous.timeframe_days, dflt.previous.start_date, dflt.previous.end_date], [7, 7, '2026-01-27', '2026-02-03'], 'default 7 days');
    });

    t.test("a range of N days: previous = the API's answer for the N days before from", async (t) => {
      const ranges: [string, string, string, string][] = [
        ['2026-01-20', '2026-02-03', '2026-01-05', '2026-01-19'], // 15 days
        ['2026-02-01', '2026-02-10', '2026-01-22', '2026-01-31'], // ends today (cut at now); the previous 10 days are whole
        ['2026-01-01', '2026-01-31', '2025-12-01', '2025-12-31'], // across the new year
        ['2026-02-01', '2026-02-01', '2026-01-31', '2026-01-31'], // one day
      ];
      for (const [from, to, prevFrom, prevTo] of ranges) {
        for (const path of ENDPOINTS) {
          const q = { chatbot_id: IDS.botAb, from, to };
          const compared = await json(path, { ...q, compare: 'previous' });
          const previous = await json(path, { chatbot_id: IDS.botAb, from: prevFrom, to: prevTo });
          checkShape(compared, await json(path, q), previous, `${path} ${from}..${to}`);
          t.same([previous.timeframe_days, previous.start_date, previous.end_date], [compared.timeframe_days, prevFrom, prevTo], `${path} ${from}..${to}: as many days`);
        }
        const series = await json('timeseries', { chatbot_id: IDS.botAb, from, to, compare: 'previous' });
        t.equal(series.previous.days.length, series.days.length, `${from}..${to}: one previous day per day (the chart's overlay)`);
      }
    });

    t.test('422 for a bad compare (listed with the other bad fields) or a previous period before 1900; 404 for another account\'s chatbot', async (t) => {
      for (const path of ENDPOINTS) {
        for (const bad of ['bogus', '', 'PREVIOUS', 'previous,previous']) {
          const res = await get(path, { chatbot_id: IDS.botAb, compare: bad });
          t.equal(res.statusCode, 422, `${path} compare=${JSON.stringify(bad)}`);
          t.same(Object.keys(res.json().errors), ['compare'], `${path} compare=${JSON.stringify(bad)}`);
        }
        const both = await get(path, { chatbot_id: IDS.botAb, timeframe: 0, compare: 'bogus' });
        t.same(Object.keys(both.json().errors).sort(), ['compare', 'timeframe'], `${path}: every bad field listed`);
        const early = await get(path, { chatbot_id: IDS.botAb, from: '1900-01-01', to: '1900-01-10', compare: 'previous' });
        t.equal(early.statusCode, 422, `${path}: a previous period before 1900`);
        t.same(early.json().errors, { compare: ['The previous period would start before 1900-01-01.'] });
        t.equal((await get(path, { chatbot_id: IDS.botAb, from: '1900-01-01', to: '1900-01-10' })).statusCode, 200, `${path}: the same range without compare`);
        for (const id of [IDS.botOther, createRng(9).uuid()]) {
          const res = await get(path, { chatbot_id: id, compare: 'previous' });
          t.equal(res.statusCode, 404, `${path} ${id}`);
          t.same(res.json(), { success: false, message: 'Not found.' });
        }
        t.equal((await get(path, { chatbot_id: IDS.botOther, compare: 'previous' }, KEY_B)).statusCode, 200, `${path}: its own account compares`);
      }
      // Not a windowed statistic: like any parameter it does not know, live-events ignores compare.
      const live = await get('live-events', { chatbot_id: IDS.botAb, compare: 'previous' });
      t.same([live.statusCode, Object.keys(live.json())], [200, ['minutes', 'bot_requests']], 'live-events answers without previous');
    });

    t.test('CSV: the compared body, previous.* after the window\'s own rows', async (t) => {
      for (const path of ENDPOINTS) {
        for (const q of [{ timeframe: 7 }, { from: '2026-01-20', to: '2026-02-03' }] as Record<string, string | number>[]) {
          const query = { chatbot_id: IDS.botAb, ...q, compare: 'previous' };
          const body = await json(path, query);
          const res = await get(path, { ...query, format: 'csv' });
          t.equal(res.statusCode, 200);
          t.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
          const frame = 'timeframe' in q ? '7' : `${q.from}_${q.to}`;
          t.equal(res.headers['content-disposition'], `attachment; filename="chatlytics-${path}-${IDS.botAb}-${frame}-compare-previous.csv"`, `${path}: the file name says it compares`);
          const table = parseCsv(res.body);
          t.same(table, expectedTable(path, body), `${path} ${JSON.stringify(q)}: one row per record, the previous period's last`);
          t.equal(table[0]![0], 'period', `${path}: a first column says the period`);
          const periods = table.slice(1).map((r) => r[0]);
          t.ok(periods.includes('current') && periods.includes('previous') && periods.indexOf('previous') > periods.lastIndexOf('current'), `${path}: the previous rows come last`);
        }
      }
      const plain = await get('engagement', { chatbot_id: IDS.botAb, timeframe: 7, format: 'csv' });
      t.notMatch(plain.body, /period|previous/, 'without compare, no period column');
    });
  });
}
