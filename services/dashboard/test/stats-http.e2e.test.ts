/**
 * The statistics endpoints end to end through HTTP (app.inject on the real dashboardApp):
 * auth (401), account scoping (404), validation (422 listing every bad field), field order,
 * a failing store (500 without internals), and the numbers against the oracle.
 */
import t from 'tap';
import Fastify from 'fastify';
import { loadConfig } from '@chatlytics/core';
import { createChdbEngine } from '@chatlytics/clickhouse';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createRng, generateConversations, generateEvents, type GeneratedConversation } from '@chatlytics/testkit';
import dashboardApp from '../src/app.js';
import { createEventStatsRepository, createStatsRepository } from '../src/stats/index.js';
import { TEST_SCRYPT_COST } from '../src/auth/passwords.js';
import { importFixture } from '../src/fixtures/import.js';
import type { Fixture } from '../src/fixtures/schema.js';
import { insertEvents, openClickHouse, silentLog } from './stats-fixtures.js';
import { insightsAnalysis, oracleDailyCounts, oracleEngagement, oracleInsights, oracleOverview, oraclePopupMetrics, oraclePurchases } from './stats-oracle.js';
import { parseCsv } from './csv-helpers.js';

const NOW = Date.parse('2026-02-10T08:00:00.000Z');
const DAY = 86_400_000;
const APP_URL = 'https://dash.example.test';
const rng = createRng(2026);
const IDS = { accountA: rng.uuid(), accountB: rng.uuid(), botAb: rng.uuid(), botPlain: rng.uuid(), botOther: rng.uuid() };
const KEY_A = `ck_${'a'.repeat(30)}`;
const KEY_B = `ck_${'b'.repeat(30)}`;
const asA = { authorization: `Bearer ${KEY_A}` };
const BASE = '/api/dashboard/analytics/stats';
const ENDPOINTS = ['overview', 'engagement', 'popup-metrics', 'purchases', 'timeseries'] as const;

/** Every response's fields in the documented order (see the statistics definitions in services/dashboard/docs/statistics.md). */
const WINDOW = ['timeframe_days', 'start_date', 'end_date'];
const FIELDS = {
  overview: [...WINDOW, 'total_conversations', 'total_ai_messages', 'saved_hours'],
  engagement: [...WINDOW, 'total_users', 'total_users_approached', 'total_users_opened', 'total_users_chatted', 'approached_ratio', 'opened_ratio', 'chatted_ratio'],
  'popup-metrics': [...WINDOW, 'metrics', 'conversations'],
  timeseries: [...WINDOW, 'attribution', 'days'],
  purchases: [...WINDOW, 'attribution', 'total_users', 'total_users_chatted', 'total_users_purchased', 'total_users_chatted_purchased', 'total_revenue_purchased',
    'total_revenue_chatted_purchased', 'conversion_rate_with_chat', 'conversion_rate_without_chat', 'aov_with_chat', 'aov_without_chat'],
  'conversation-insights': ['most_clicked_products', 'most_talked_about_products', 'most_frequent_intents', 'most_common_complaints', 'mood_percentages',
    'outcome_percentages', 'human_intervention_needed_percentage', 'missing_information_overview', 'total_conversations_analyzed',
    'total_click_throughs', 'chat_conversion', 'reactions', 'average_conversation_duration_minutes', 'missing_information_cost'],
};

const common = { now: NOW, otherChatbotIds: [IDS.botOther] };
const events = [
  ...generateEvents({ ...common, seed: 11, chatbotId: IDS.botAb, boundaryDays: [7] }),
  ...generateEvents({ ...common, seed: 12, chatbotId: IDS.botPlain }),
];
const convos = generateConversations({ ...common, seed: 13, chatbotId: IDS.botAb, count: 150 });

const iso = (ms: number) => new Date(ms).toISOString();
// Each conversation is a buyer's: revenue by topic, the money beside each insights item, follows their tokens.
const buyers = [...new Set(events.filter((e) => e.event === 'purchase').map((e) => e.token))];
const asFixtureConversations = (list: GeneratedConversation[], chatbotId: string) => list.filter((c) => c.chatbotId === chatbotId).map((c, i) => ({
  id: c.id, startedAt: iso(c.startedAt), messages: c.messages.map((m) => ({ ...m, createdAt: iso(m.createdAt) })), analysis: c.analysis,
  visitorToken: buyers[i % buyers.length],
}));
const fixture: Fixture = {
  accounts: [
    { id: IDS.accountA, name: 'Shop A', apiKeys: [{ name: 'ci', key: KEY_A }], chatbots: [
      { id: IDS.botAb, name: 'AB bot', settings: { abTestEnabled: true }, conversations: asFixtureConversations(convos, IDS.botAb) },
      { id: IDS.botPlain, name: 'Plain bot', settings: { abTestEnabled: false } },
    ] },
    { id: IDS.accountB, name: 'Shop B', apiKeys: [{ name: 'ci', key: KEY_B }], chatbots: [
      { id: IDS.botOther, name: 'Other bot', conversations: asFixtureConversations(convos, IDS.botOther) },
    ] },
  ],
};

const ch = await openClickHouse();
t.teardown(() => ch.close());
await insertEvents(ch.embedded, events);

for (const variant of databaseVariants()) {
  t.test(`statistics over HTTP (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open();
    t.teardown(() => tdb.destroy());
    await importFixture(tdb.postgres.db, fixture, { passwordCost: TEST_SCRYPT_COST });
    const config = loadConfig({ DATA_DIR: tdb.dataDir, APP_URL, SESSION_SECRET: 'x'.repeat(40) });
    const build = async (clickhouse = ch.embedded) => {
      // A loaded CI machine can take longer than avvio's 10 s default to start the whole dashboard.
      const app = Fastify({ loggerInstance: silentLog, pluginTimeout: 120_000 });
      await app.register(dashboardApp, { config, postgres: tdb.postgres, clickhouse, passwordCost: TEST_SCRYPT_COST, clock: () => new Date(NOW) });
      await app.ready();
      t.teardown(() => app.close());
      return app;
    };
    const app = await build();
    const get = (path: string, query: Record<string, string | number>, headers: Record<string, string> = asA) =>
      app.inject({ method: 'GET', url: `${BASE}/${path}`, query: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])), headers });

    t.test('401 without or with a wrong credential, before validation', async (t) => {
      for (const path of [...ENDPOINTS, 'conversation-insights']) {
        for (const headers of [{}, { authorization: `Bearer ck_${'z'.repeat(30)}` }, { 'x-api-key': 'nonsense' }] as Record<string, string>[]) {
          const res = await get(path, {}, headers);
          t.equal(res.statusCode, 401, `${path} ${JSON.stringify(headers)}`);
          t.same(res.json(), { success: false, message: 'Unauthenticated.' });
        }
      }
    });

    t.test("404 for another account's chatbot, an unknown or malformed id", async (t) => {
      for (const path of [...ENDPOINTS, 'conversation-insights']) {
        for (const id of [IDS.botOther, createRng(9).uuid(), 'not-a-uuid']) {
          const res = await get(path, { chatbot_id: id, timeframe: path === 'conversation-insights' ? 'week' : 7 });
          t.equal(res.statusCode, 404, `${path} ${id}`);
          t.same(res.json(), { success: false, message: 'Not found.' });
        }
      }
      const own = await get('engagement', { chatbot_id: IDS.botOther }, { 'x-api-key': KEY_B });
      t.equal(own.statusCode, 200, 'its own account sees it');
      // Concurrent blocks share an ownership lookup in flight: per account, never across accounts.
      const both = await Promise.all(ENDPOINTS.flatMap((path) => [
        get(path, { chatbot_id: IDS.botOther }), get(path, { chatbot_id: IDS.botOther }, { 'x-api-key': KEY_B }),
      ]));
      t.same(both.map((r) => r.statusCode), ENDPOINTS.flatMap(() => [404, 200]), 'asked at once by both accounts: 404 for the stranger, 200 for the owner');
    });

    t.test('422 lists every bad field; timeframe bounds', async (t) => {
      for (const path of ENDPOINTS) {
        const missing = await get(path, {});
        t.equal(missing.statusCode, 422);
        t.same(missing.json(), { success: false, message: 'The given data was invalid.', errors: { chatbot_id: ['The chatbot id field is required.'] } });
        for (const bad of [0, 366, -1, '7.5', 'abc', '']) {
          const res = await get(path, { chatbot_id: IDS.botAb, timeframe: bad });
          t.equal(res.statusCode, 422, `${path} timeframe=${bad}`);
          t.same(Object.keys(res.json().errors), ['timeframe'], `${path} timeframe=${bad}`);
        }
        const both = await get(path, { chatbot_id: 'x'.repeat(256), timeframe: 366 });
        t.same(Object.keys(both.json().errors).sort(), ['chatbot_id', 'timeframe'], 'both fields listed');
        for (const ok of [1, 365]) t.equal((await get(path, { chatbot_id: IDS.botAb, timeframe: ok })).statusCode, 200, `${path} timeframe=${ok}`);
        t.equal((await get(path, { chatbot_id: IDS.botAb })).json().timeframe_days, 7, 'default 7 days');
      }
    });

    t.test('from/to: whole UTC days with the numbers of that window; bad ranges 422 naming their fields', async (t) => {
      const ranges: [string, string, number, number, number][] = [
        ['2026-01-20', '2026-02-03', Date.UTC(2026, 0, 20), Date.UTC(2026, 1, 3) + DAY - 1, 15],
        ['2026-02-01', '2026-02-10', Date.UTC(2026, 1, 1), NOW, 10], // ends today: cut at now
      ];
      for (const [from, to, fromMs, toMs, days] of ranges) {
        const q = { chatbot_id: IDS.botAb, from, to };
        const window = { timeframe_days: days, start_date: from, end_date: to };
        t.same((await get('engagement', q)).json(), { ...window, ...oracleEngagement(events, IDS.botAb, fromMs, toMs) }, `engagement ${from}..${to}`);
        t.same((await get('popup-metrics', q)).json(), { ...window, ...oraclePopupMetrics(events, IDS.botAb, fromMs, toMs) }, `popup-metrics ${from}..${to}`);
        t.same((await get('overview', q)).json(), { ...window, ...oracleOverview(convos, IDS.botAb, fromMs, toMs) }, `overview ${from}..${to}`);
        const { ab_test: _ab, ...purchases } = (await get('purchases', q)).json();
        const { ab_test: _abOracle, ...expected } = oraclePurchases(events, IDS.botAb, fromMs, toMs, true) as Record<string, unknown>;
        t.same(purchases, { ...window, ...expected }, `purchases ${from}..${to}`);
        const series = (await get('timeseries', q)).json();
        t.same([series.days.length, series.days[0].date, series.days.at(-1).date], [days, from, to], 'one entry per day of the range');
        const csv = await get('engagement', { ...q, format: 'csv' });
        t.match(csv.headers['content-disposition'], `chatlytics-engagement-${IDS.botAb}-${from}_${to}.csv`);
        const [header, row] = parseCsv(csv.body);
        t.equal(row![header!.indexOf('total_users')], String((await get('engagement', q)).json().total_users), 'the CSV has the range\'s numbers');
      }
      const year = (await get('timeseries', { chatbot_id: IDS.botAb, from: '2025-02-10', to: '2026-02-10' })).json();
      t.same([year.timeframe_days, year.days.length], [366, 366], '366 days is the longest range');
      const bad: [Record<string, string | number>, string[]][] = [
        [{ from: '2026-02-03', to: '2026-01-20' }, ['to']],
        [{ from: '2025-02-09', to: '2026-02-10' }, ['to']],
        [{ from: '2025-02-29', to: '2025-03-01' }, ['from']],
        [{ from: '2026-01-01', to: '2026-02-11' }, ['to']],
        [{ from: '2026-01-01' }, ['to']],
        [{ to: '2026-01-01' }, ['from']],
        [{ from: '01/01/2026', to: '2026-01-02' }, ['from']],
        [{ from: '1899-12-31', to: '1900-01-01' }, ['from']],
        [{ from: '2026-01-01', to: '2026-01-02', timeframe: 7 }, ['timeframe']],
      ];
      for (const path of ENDPOINTS) {
        for (const [q, fields] of bad) {
          const res = await get(path, { chatbot_id: IDS.botAb, ...q });
          t.equal(res.statusCode, 422, `${path} ${JSON.stringify(q)}`);
          t.same(Object.keys(res.json().errors).sort(), fields, `${path} ${JSON.stringify(q)}`);
        }
      }
    });

    t.test('conversation-insights: every timeframe format; anything else 422', async (t) => {
      const path = 'conversation-insights';
      for (const ok of ['day', 'week', 'month', 'Week', '20 minutes', '1 minute', '2 hours', '3 days', '1 week', '2 weeks', '2 months', 'january', 'February', '14']) {
        t.equal((await get(path, { chatbot_id: IDS.botAb, timeframe: ok })).statusCode, 200, ok);
      }
      for (const bad of ['', 'yesterday', '0', '0 days', '3.5', 'x'.repeat(51), '2 fortnights', '999999999 days']) {
        const res = await get(path, { chatbot_id: IDS.botAb, timeframe: bad });
        t.equal(res.statusCode, 422, JSON.stringify(bad));
        t.same(Object.keys(res.json().errors), ['timeframe'], JSON.stringify(bad));
      }
      const none = await get(path, {});
      t.same(Object.keys(none.json().errors).sort(), ['chatbot_id', 'timeframe'], 'insights timeframe is required');
    });

    t.test('bodies: spec field order, bare objects, numbers equal to the oracle', async (t) => {
      for (const days of [7, 30]) {
        const [from, to] = [NOW - days * DAY, NOW];
        const q = { chatbot_id: IDS.botAb, timeframe: days };
        const window = { timeframe_days: days, start_date: iso(from).slice(0, 10), end_date: iso(to).slice(0, 10) };
        const bodies = Object.fromEntries(await Promise.all(ENDPOINTS.map(async (p) => [p, (await get(p, q)).json()])));
        for (const p of ENDPOINTS) t.same(Object.keys(bodies[p]).slice(0, FIELDS[p].length), FIELDS[p], `${p} field order`);
        t.same(Object.keys(bodies.purchases).at(-1), 'ab_test', 'ab_test last, when enabled');
        t.same(bodies.engagement, { ...window, ...oracleEngagement(events, IDS.botAb, from, to) }, `engagement ${days}`);
        t.same(bodies['popup-metrics'], { ...window, ...oraclePopupMetrics(events, IDS.botAb, from, to) }, `popup-metrics ${days}`);
        t.same(bodies.overview, { ...window, ...oracleOverview(convos, IDS.botAb, from, to) }, `overview ${days}`);
        const { ab_test: abBody, ...purchases } = bodies.purchases;
        const { ab_test: abOracle, ...expected } = oraclePurchases(events, IDS.botAb, from, to, true) as Record<string, unknown>;
        t.same(purchases, { ...window, ...expected }, `purchases ${days}`);
        for (const g of ['control', 'test'] as const) {
          const o = (abOracle as Record<string, Record<string, number>>)[g];
          t.same(Object.keys(abBody[g]), ['visitors', 'orders', 'conversion_rate', 'aov', 'arpu', 'conversion_rate_ci95']);
          t.same(abBody[g], { visitors: o.visitors, orders: o.orders, conversion_rate: o.conversion_rate, aov: o.aov, arpu: o.arpu, conversion_rate_ci95: abBody[g].conversion_rate_ci95 });
        }
        t.same(Object.keys(abBody.comparison), ['p_value', 'sample_ratio_mismatch', 'sample_ratio_p_value']);
      }
      const plain = (await get('purchases', { chatbot_id: IDS.botPlain })).json();
      t.same(Object.keys(plain), FIELDS.purchases, 'no ab_test without abTestEnabled');
      t.same(plain, { timeframe_days: 7, start_date: iso(NOW - 7 * DAY).slice(0, 10), end_date: iso(NOW).slice(0, 10),
        ...oraclePurchases(events, IDS.botPlain, NOW - 7 * DAY, NOW, false) });

      const insights = (await get('conversation-insights', { chatbot_id: IDS.botAb, timeframe: 'week' })).json();
      t.same(Object.keys(insights), FIELDS['conversation-insights']);
      t.same(insightsAnalysis(insights), oracleInsights(convos, events, IDS.botAb, NOW - 7 * DAY, NOW, APP_URL));
      // The money beside each ranked item: revenue by topic's item over the same 7 days, or null when topics has none.
      const lists = { clicked_product: 'most_clicked_products', product: 'most_talked_about_products', intent: 'most_frequent_intents', complaint: 'most_common_complaints', missing_information: 'missing_information_overview' };
      let matched = 0;
      for (const [dimension, list] of Object.entries(lists)) {
        const topics = (await get('topics', { chatbot_id: IDS.botAb, timeframe: 7, dimension })).json();
        const byKey = new Map<string, Record<string, number>>(topics.items.map((i: Record<string, any>) => [i.item.toLowerCase(), i]));
        for (const r of insights[list]) {
          const i = byKey.get(r.item.toLowerCase());
          if (i) matched++;
          t.same([r.visitors, r.revenue, r.conversion_rate], i ? [i.visitors, i.revenue, i.conversion_rate] : [null, null, null], `${list} ${r.item}: topics' money`);
        }
        if (dimension === 'missing_information') {
          const costly = topics.items.filter((i: Record<string, number>) => i.abandoned_carts > 0)
            .sort((a: Record<string, any>, b: Record<string, any>) => b.abandoned_value - a.abandoned_value || b.abandoned_carts - a.abandoned_carts || Buffer.compare(Buffer.from(a.item), Buffer.from(b.item))).slice(0, 10)
            .map((i: Record<string, unknown>) => ({ item: i.item, abandoned_carts: i.abandoned_carts, abandoned_value: i.abandoned_value }));
          t.same(insights.missing_information_cost, { abandoned_carts: topics.totals.abandoned_carts, abandoned_value: topics.totals.abandoned_value, items: costly }, 'what the assistant did not know cost: topics\' figures');
        }
      }
      t.ok(matched > 0, `${matched} ranked items carry topics' money`);
      t.match(insights.most_clicked_products[0]?.conversations[0], new RegExp(`^${APP_URL}/app/${IDS.botAb}/conversations/[0-9a-f-]{36}$`));
      const month = (await get('conversation-insights', { chatbot_id: IDS.botAb, timeframe: 'january' })).json();
      t.same(insightsAnalysis(month), oracleInsights(convos, events, IDS.botAb, Date.UTC(2026, 0, 1), NOW, APP_URL), 'a month name starts at its first day');
      t.ok(month.total_conversations_analyzed <= 100 && month.total_conversations_analyzed > 0);
    });

    t.test('timeseries: every UTC day of the window; per-day numbers from the oracle; sums agree with purchases', async (t) => {
      for (const days of [7, 30]) {
        const [from, to] = [NOW - days * DAY, NOW];
        const q = { chatbot_id: IDS.botAb, timeframe: days };
        const series = (await get('timeseries', q)).json();
        const purchases = (await get('purchases', q)).json();
        const first = Date.UTC(new Date(from).getUTCFullYear(), new Date(from).getUTCMonth(), new Date(from).getUTCDate());
        t.equal(series.days.length, days + 1, `${days}: a partial first day, full days, the partial current day`);
        t.same(Object.keys(series.days[0]), ['date', 'visitors', 'conversations', 'purchases', 'revenue']);
        const daily = oracleDailyCounts(events, IDS.botAb, from, to);
        series.days.forEach((d: Record<string, number | string>, i: number) => {
          t.equal(d.date, iso(first + i * DAY).slice(0, 10));
          t.same({ visitors: d.visitors, conversations: d.conversations }, daily(String(d.date)), `${d.date} visitors and conversations`);
        });
        const total = (await get('popup-metrics', q)).json().conversations.total;
        t.equal(series.days.reduce((s: number, d: Record<string, number>) => s + d.conversations, 0), total, 'Σ daily conversations = popup-metrics total');
        const sum = (k: string) => series.days.reduce((s: number, d: Record<string, number>) => s + d[k], 0);
        // Each day is rounded to cents on its own: the sum may differ from the rounded total by half a cent a day.
        t.ok(Math.abs(sum('revenue') - purchases.total_revenue_purchased) <= 0.005 * series.days.length + 1e-9,
          `${days}: Σ daily revenue ${sum('revenue')} ≈ total_revenue_purchased ${purchases.total_revenue_purchased}`);
        // Exact on both engines: the days' purchases are the purchases statistic's orders.
        for (const engine of [ch.embedded, ch.server]) {
          const w = { from: new Date(from), to: new Date(to) };
          const totals = await createEventStatsRepository(engine).purchases(IDS.botAb, w);
          t.equal(sum('purchases'), totals.orders, `${days} (${engine.kind}): Σ daily purchases = orders`);
          const direct = await createStatsRepository({ clickhouse: engine, db: tdb.postgres.db, appUrl: APP_URL }).timeseries(IDS.botAb, w);
          t.same(direct.days, series.days, `${days} (${engine.kind}): the same series`);
        }
        t.ok(sum('purchases') > 0 && sum('visitors') > 0 && sum('conversations') > 0, `${days}: the fixture has data in every column`);
      }
    });

    t.test('a failing store answers 500 without internals', async (t) => {
      const broken = await createChdbEngine({ path: ch.path, database: 'analytics', log: silentLog });
      await broken.close();
      const app2 = await build(broken);
      const res = await app2.inject({ method: 'GET', url: `${BASE}/engagement?chatbot_id=${IDS.botAb}`, headers: asA });
      t.equal(res.statusCode, 500);
      t.same(res.json(), { success: false, message: 'Server Error' });
    });
  });
}
