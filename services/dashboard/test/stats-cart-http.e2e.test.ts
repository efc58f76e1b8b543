/**
 * "cart" and "topics" through HTTP on the real dashboardApp (embedded ClickHouse; PGlite and,
 * with DATABASE_URL, the PostgreSQL server): bodies equal to the oracle with the window's fields
 * first, `compare=previous` equal to the oracle over the previous period (the last N days) and to
 * the API's own answer for the N days before `from` (a range), CSV = the JSON's values in order,
 * 422 listing every bad parameter, 404 for another account's chatbot.
 */
import t from 'tap';
import Fastify from 'fastify';
import { loadConfig } from '@chatlytics/core';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createRng } from '@chatlytics/testkit';
import dashboardApp from '../src/app.js';
import { TEST_SCRYPT_COST } from '../src/auth/passwords.js';
import { importFixture } from '../src/fixtures/import.js';
import type { Fixture } from '../src/fixtures/schema.js';
import { TOPIC_DIMENSIONS } from '../src/stats/topics-report.js';
import { expectedTable, parseCsv } from './csv-helpers.js';
import { insertEvents, openClickHouse, silentLog } from './stats-fixtures.js';
import { cartEvents, tokenConversations } from './cart-scenario.js';
import { oracleCart, oracleTopics } from './stats-cart-oracle.js';

const NOW = Date.parse('2026-02-10T08:00:00.000Z');
const DAY = 86_400_000;
const APP_URL = 'https://dash.example.test';
const rng = createRng(4343);
const IDS = { accountA: rng.uuid(), accountB: rng.uuid(), bot: rng.uuid(), other: rng.uuid() };
const KEY_A = `ck_${'f'.repeat(30)}`;
const KEY_B = `ck_${'g'.repeat(30)}`;
const BASE = '/api/dashboard/analytics/stats';

const cart = cartEvents({ seed: 77, now: NOW, chatbotId: IDS.bot, otherChatbotId: IDS.other, users: 90, spanDays: 70 });
const convos = tokenConversations({ seed: 78, now: NOW, chatbotId: IDS.bot, otherChatbotId: IDS.other, tokens: cart.tokens })
  // The fixture format has no empty token: such a conversation is stored without one.
  .map((c) => ({ ...c, visitorToken: c.visitorToken || null }));
const iso = (ms: number) => new Date(ms).toISOString();
const day = (ms: number) => iso(ms).slice(0, 10);
const fixture: Fixture = {
  accounts: [
    { id: IDS.accountA, name: 'Shop A', apiKeys: [{ name: 'ci', key: KEY_A }], chatbots: [{
      id: IDS.bot, name: 'Cart bot', settings: { abTestEnabled: false },
      conversations: convos.filter((c) => c.chatbotId === IDS.bot).map((c) => ({
        id: c.id, startedAt: iso(c.startedAt), visitorToken: c.visitorToken, analysis: c.analysis,
        messages: c.messages.map((m) => ({ ...m, createdAt: iso(m.createdAt) })),
      })),
    }] },
    { id: IDS.accountB, name: 'Shop B', apiKeys: [{ name: 'ci', key: KEY_B }], chatbots: [{ id: IDS.other, name: 'Other bot' }] },
  ],
};

const ch = await openClickHouse();
t.teardown(() => ch.close());
await insertEvents(ch.embedded, cart.events);

for (const variant of databaseVariants()) {
  t.test(`cart and topics over HTTP (${variant.name})`, { skip: variant.skip }, async (t) => {
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
    const windowOf = (days: number, from: number, to: number) => ({ timeframe_days: days, start_date: day(from), end_date: day(to) });
    const oracle = (path: string, dimension: (typeof TOPIC_DIMENSIONS)[number], from: number, to: number) => (path === 'cart'
      ? oracleCart(cart.events, IDS.bot, from, to)
      : oracleTopics(convos, cart.events, IDS.bot, from, to, dimension, APP_URL));
    const cases = [['cart', {}], ...TOPIC_DIMENSIONS.map((d) => ['topics', { dimension: d }])] as [string, Record<string, string>][];

    t.test('the last N days, compared: the oracle over W and over the N days before it, window fields first', async (t) => {
      for (const days of [7, 30]) {
        for (const [path, extra] of cases) {
          const body = await json(path, { chatbot_id: IDS.bot, timeframe: days, ...extra, compare: 'previous' });
          const dimension = (extra.dimension ?? 'intent') as (typeof TOPIC_DIMENSIONS)[number];
          const [from, to] = [NOW - days * DAY, NOW];
          const [pFrom, pTo] = [NOW - 2 * days * DAY, NOW - days * DAY - 1];
          const { previous, ...own } = body;
          t.same(own, { ...windowOf(days, from, to), ...oracle(path, dimension, from, to) }, `${path} ${extra.dimension ?? ''} ${days} days`);
          t.same(Object.keys(own), Object.keys({ ...windowOf(days, from, to), ...oracle(path, dimension, from, to) }), 'documented field order');
          t.same(previous, { ...windowOf(days, pFrom, pTo), ...oracle(path, dimension, pFrom, pTo) }, `${path} ${extra.dimension ?? ''} ${days} days: previous`);
          t.same(await json(path, { chatbot_id: IDS.bot, timeframe: days, ...extra }), own, 'without compare: the same body, no previous');
        }
      }
      const c = await json('cart', { chatbot_id: IDS.bot, timeframe: 30 });
      t.ok(c.abandoned_value > 0 && c.chatted.users_abandoned > 0 && c.users_added_and_purchased > 0, 'the data has abandoned and bought carts');
      const p = await json('topics', { chatbot_id: IDS.bot, timeframe: 30, dimension: 'product' });
      t.ok(p.totals.revenue > 0 && p.items.length > 1, 'and revenue by topic');
    });

    t.test("a range: previous = the API's answer for the N days before from", async (t) => {
      for (const [path, extra] of cases.slice(0, 3)) {
        const compared = await json(path, { chatbot_id: IDS.bot, from: '2026-01-10', to: '2026-02-03', ...extra, compare: 'previous' });
        t.same(compared.previous, await json(path, { chatbot_id: IDS.bot, from: '2025-12-16', to: '2026-01-09', ...extra }), `${path} ${extra.dimension ?? ''}`);
      }
    });

    t.test('CSV: every value of the JSON, in order', async (t) => {
      for (const [path, extra] of [cases[0]!, cases[2]!]) {
        const query = { chatbot_id: IDS.bot, timeframe: 30, ...extra, compare: 'previous' };
        const body = await json(path, query);
        const res = await get(path, { ...query, format: 'csv' });
        t.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
        t.equal(res.headers['content-disposition'], `attachment; filename="chatlytics-${path}${extra.dimension ? `-${extra.dimension}` : ''}-${IDS.bot}-30-compare-previous.csv"`, `${path}: the file name`);
        t.same(parseCsv(res.body), expectedTable(path, body), `${path}: one row per record (cart: one row of its figures), the previous period's after the window's`);
      }
    });

    t.test('422 lists every bad parameter; 404 for another account\'s chatbot', async (t) => {
      const bad = async (path: string, query: Record<string, string | number>, fields: string[]) => {
        const res = await get(path, query);
        t.equal(res.statusCode, 422, `${path} ${JSON.stringify(query)}`);
        t.same(Object.keys(res.json().errors ?? {}).sort(), fields, `${path} ${JSON.stringify(query)}: ${fields}`);
      };
      await bad('topics', { chatbot_id: IDS.bot }, ['dimension']);
      await bad('topics', { chatbot_id: IDS.bot, dimension: 'Intent' }, ['dimension']);
      await bad('topics', { chatbot_id: IDS.bot, dimension: 'mood', timeframe: 0, compare: 'bogus' }, ['compare', 'dimension', 'timeframe']);
      await bad('cart', { chatbot_id: IDS.bot, timeframe: 7.5 }, ['timeframe']);
      await bad('cart', { chatbot_id: IDS.bot, timeframe: 7, from: '2026-01-01', to: '2026-01-02' }, ['timeframe']);
      await bad('cart', { chatbot_id: IDS.bot, from: '2026-02-01', to: '2026-01-01' }, ['to']);
      await bad('topics', { chatbot_id: IDS.bot, dimension: 'product', from: '2026-01-01' }, ['to']);
      for (const [path, extra] of [cases[0]!, cases[1]!]) {
        for (const [id, key] of [[IDS.other, KEY_A], [IDS.bot, KEY_B], [createRng(5).uuid(), KEY_A]] as const) {
          const res = await get(path, { chatbot_id: id, ...extra, compare: 'previous' }, key);
          t.same([res.statusCode, res.json()], [404, { success: false, message: 'Not found.' }], `${path}: ${id}`);
        }
      }
      t.equal((await get('cart', { chatbot_id: IDS.other }, KEY_B)).statusCode, 200, 'its own account reads it');
    });
  });
}
