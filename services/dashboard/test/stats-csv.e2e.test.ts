/**
 * `?format=csv` of every statistics route: the same numbers as the JSON answer (checked
 * against a flattening and an RFC 4180 parser written here, not the implementation's), the
 * headers, CSV injection neutralised, and errors that stay JSON.
 */
import t from 'tap';
import Fastify from 'fastify';
import { loadConfig } from '@chatlytics/core';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { eventIdFromSeed } from '@chatlytics/events';
import { createRng, generateConversations, generateEvents } from '@chatlytics/testkit';
import dashboardApp from '../src/app.js';
import { TEST_SCRYPT_COST } from '../src/auth/passwords.js';
import { importFixture } from '../src/fixtures/import.js';
import type { Fixture } from '../src/fixtures/schema.js';
import { insertEvents, openClickHouse, silentLog } from './stats-fixtures.js';
import { expectedTable, parseCsv, text } from './csv-helpers.js';

const NOW = Date.parse('2026-02-10T08:00:00.000Z');
const rng = createRng(4180);
const IDS = { account: rng.uuid(), other: rng.uuid(), bot: rng.uuid(), evil: rng.uuid(), otherBot: rng.uuid() };
const KEY = `ck_${'c'.repeat(30)}`;
const KEY_OTHER = `ck_${'d'.repeat(30)}`;
const BASE = '/api/dashboard/analytics/stats';
const STATS: [string, string | number][] = [['overview', 30], ['engagement', 30], ['popup-metrics', 30], ['purchases', 30], ['conversation-insights', 'month']];
/** Text a spreadsheet would run as a formula, plus RFC 4180's special characters. */
const HOSTILE = ['=HYPERLINK("http://evil.example","x")', '+SUM(1,2)', '-2+3', '@cmd', 'comma, "quoted"\r\nnew line', 'x;=1+1;@SUM(1+1)'];
/** OWASP: a formula start at the beginning, or after a separator or quote a spreadsheet may split on. */
const FORMULA = /^[=+\-@\t\r\n]|[,;\t|"'\r\n] *[=+\-@]/;
const RANKED = ['most_clicked_products', 'most_talked_about_products', 'most_frequent_intents', 'most_common_complaints', 'missing_information_overview'];

const common = { now: NOW, otherChatbotIds: [IDS.otherBot] };
const events = generateEvents({ ...common, seed: 21, chatbotId: IDS.bot });
// The evil chatbot's popup versions are hostile: the popup-metrics rows carry them as text.
const template = events.find((e) => e.event === 'popup_displayed')!;
HOSTILE.forEach((v, i) => events.push({
  ...template, chatbot_id: IDS.evil, popup_version: v, event_id: eventIdFromSeed(`csv-${i}`), received_at: '2026-02-09 08:00:00.000',
}));
const convos = generateConversations({ ...common, seed: 22, chatbotId: IDS.bot, count: 60 });
const iso = (ms: number) => new Date(ms).toISOString();

const fixture: Fixture = {
  accounts: [
    { id: IDS.account, name: 'Shop', apiKeys: [{ name: 'ci', key: KEY }], chatbots: [
      { id: IDS.bot, name: 'Bot', settings: { abTestEnabled: true }, conversations: convos.filter((c) => c.chatbotId === IDS.bot).map((c) => ({
        id: c.id, startedAt: iso(c.startedAt), messages: c.messages.map((m) => ({ ...m, createdAt: iso(m.createdAt) })), analysis: c.analysis,
      })) },
      { id: IDS.evil, name: '=cmd|"/c calc"!A1', settings: { abTestEnabled: false }, conversations: [{
        id: rng.uuid(), startedAt: iso(NOW - 86_400_000),
        messages: [{ role: 'user', content: 'hi', createdAt: iso(NOW - 86_400_000) }],
        analysis: { intents: HOSTILE, complaints: HOSTILE.slice(0, 2), clickedProducts: ['@product'], mood: 'happy', outcome: 'success' },
      }] },
    ] },
    { id: IDS.other, name: 'Other', apiKeys: [{ name: 'ci', key: KEY_OTHER }], chatbots: [{ id: IDS.otherBot, name: 'Other bot' }] },
  ],
};

const ch = await openClickHouse();
t.teardown(() => ch.close());
await insertEvents(ch.embedded, events);

for (const variant of databaseVariants()) {
  t.test(`statistics as CSV (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open();
    t.teardown(() => tdb.destroy());
    await importFixture(tdb.postgres.db, fixture, { passwordCost: TEST_SCRYPT_COST });
    const config = loadConfig({ DATA_DIR: tdb.dataDir, APP_URL: 'https://dash.example.test', SESSION_SECRET: 'x'.repeat(40) });
    const app = Fastify({ loggerInstance: silentLog, pluginTimeout: 120_000 });
    await app.register(dashboardApp, { config, postgres: tdb.postgres, clickhouse: ch.embedded, passwordCost: TEST_SCRYPT_COST, clock: () => new Date(NOW) });
    await app.ready();
    t.teardown(() => app.close());
    const get = (stat: string, query: Record<string, string | number>, key = KEY) =>
      app.inject({ method: 'GET', url: `${BASE}/${stat}`, query: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])), headers: { 'x-api-key': key } });

    for (const chatbot of [IDS.bot, IDS.evil]) {
      for (const [stat, timeframe] of STATS) {
        t.test(`${stat} of ${chatbot === IDS.bot ? 'the A/B bot' : 'the hostile bot'}: CSV = JSON`, async (t) => {
          const json = await get(stat, { chatbot_id: chatbot, timeframe });
          t.equal(json.statusCode, 200);
          const csv = await get(stat, { chatbot_id: chatbot, timeframe, format: 'csv' });
          t.equal(csv.statusCode, 200);
          t.equal(csv.headers['content-type'], 'text/csv; charset=utf-8');
          t.equal(csv.headers['content-disposition'], `attachment; filename="chatlytics-${stat}-${chatbot}-${timeframe}.csv"`);
          const table = parseCsv(csv.body);
          // Text that could start a formula gains a leading '; numbers and booleans are never altered.
          const cell = (v: unknown) => (typeof v === 'string' && FORMULA.test(v) ? `'${v}` : text(v));
          const body = json.json();
          t.same(table, expectedTable(stat, body, cell), 'a header of column names, then one row per record');
          const records = { 'popup-metrics': body.metrics?.length, 'conversation-insights': RANKED.reduce((n, k) => n + (body[k]?.length ?? 0), 0) + (body.missing_information_cost?.items.length ?? 0) + 1, purchases: body.ab_test ? 2 : 1 }[stat] ?? 1;
          t.equal(table.length, 1 + records, `${records} records, one row each`);
          t.ok(table.length > 1 && table.slice(1).every((r) => r.length === table[0]!.length), 'every row has a cell per column');
          if (stat === 'purchases' && chatbot === IDS.bot) t.same(table.slice(1).map((r) => r[0]), ['control', 'test'], 'the A/B bot: one row per group');
          t.equal((await get(stat, { chatbot_id: chatbot, timeframe, format: 'json' })).body, json.body, 'format=json is the JSON answer');
        });
      }
    }

    t.test('hostile text reaches the CSV neutralised and quoted', async (t) => {
      const popup = await get('popup-metrics', { chatbot_id: IDS.evil, timeframe: 30, format: 'csv' });
      const insights = await get('conversation-insights', { chatbot_id: IDS.evil, timeframe: 'month', format: 'csv' });
      for (const res of [popup, insights]) {
        const cells = parseCsv(res.body).flat();
        for (const v of HOSTILE) t.ok(cells.includes(FORMULA.test(v) ? `'${v}` : v), `${JSON.stringify(v)} present, neutralised`);
        t.notOk(cells.some((c) => /^[=+@]/.test(c) || /^-[^0-9]/.test(c)), 'no cell starts a formula');
      }
      t.match(insights.body, /"comma, ""quoted""\r\nnew line"/, 'RFC 4180 quoting');
      t.match(insights.body, /^"most_clicked_products","'@product",1,[^\r]*,"https:/m);
      t.match(insights.body, /^"most_frequent_intents","'x;=1\+1;@SUM\(1\+1\)",1,[^\r]*,"https:/m, 'a formula after a separator is neutralised too');
      for (const res of [popup, insights]) {
        t.match(res.body, /^(?:(?:"(?:[^"]|"")*"|-?[0-9][0-9.e+-]*|true|false|)(?:,|\r\n))*$/, 'every cell is quoted text, a number, a boolean or empty');
      }
    });

    t.test('errors stay JSON; an unknown format is 422', async (t) => {
      const foreign = await get('engagement', { chatbot_id: IDS.otherBot, format: 'csv' });
      t.equal(foreign.statusCode, 404);
      t.same(foreign.json(), { success: false, message: 'Not found.' });
      const bad = await get('engagement', { chatbot_id: IDS.bot, format: 'xlsx' });
      t.equal(bad.statusCode, 422);
      t.same(Object.keys(bad.json().errors), ['format']);
      const anon = await app.inject({ method: 'GET', url: `${BASE}/overview?chatbot_id=${IDS.bot}&format=csv` });
      t.equal(anon.statusCode, 401);
      t.match(anon.headers['content-type'], /application\/json/);
    });
  });
}
