/**
 * The holdout setting and the lift statistic through HTTP on the real dashboardApp (embedded
 * ClickHouse; PGlite and, with DATABASE_URL, the PostgreSQL server): PATCH sets holdoutPercent
 * (0–50, anything else 422), the statistic answers with the chatbot's stored percentage, its body
 * is the statistics module's over the window with the window's fields first, `compare=previous`
 * is the API's own answer for the days before, CSV = the JSON's values in order, 422 and 404 as
 * every statistic; the analytics page leads with the API's figure and its caveats only when a
 * holdout runs. The numbers themselves are the oracle's (stats-lift-oracle.e2e.test.ts).
 */
import t from 'tap';
import Fastify from 'fastify';
import { loadConfig } from '@chatlytics/core';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createRng, generateEvents } from '@chatlytics/testkit';
import dashboardApp from '../src/app.js';
import { TEST_SCRYPT_COST } from '../src/auth/passwords.js';
import { importFixture } from '../src/fixtures/import.js';
import type { Fixture } from '../src/fixtures/schema.js';
import { createStatsRepository } from '../src/stats/readers.js';
import { createStatsService } from '../src/stats/run.js';
import { createChatbotRepository } from '../src/repositories/chatbot-repository.js';
import { createDigestContent } from '../src/digest/content.js';
import { renderDigest } from '../src/digest/render.js';
import { liftSummary } from '../src/analytics/lift-view.js';
import { moneyIn } from '../src/html/money.js';
import { daysWindow } from '../src/stats/window.js';
import { expectedTable, parseCsv } from './csv-helpers.js';
import { insertEvents, openClickHouse, silentLog } from './stats-fixtures.js';

const NOW = Date.parse('2026-02-10T08:00:00.000Z');
const APP_URL = 'https://dash.example.test';
const rng = createRng(6162);
const IDS = { accountA: rng.uuid(), accountB: rng.uuid(), bot: rng.uuid(), other: rng.uuid() };
const KEY_A = `ck_${'h'.repeat(30)}`;
const KEY_B = `ck_${'i'.repeat(30)}`;
const BASE = '/api/dashboard/analytics/stats';
const ANN = { email: 'ann@shop-a.test', password: 'ann-password' };
const events = generateEvents({ seed: 616, now: NOW, chatbotId: IDS.bot, otherChatbotIds: [IDS.other], users: 600, spanDays: 30, holdout: { percent: 20, key: 'http-test-key', dropPurchase: 0.5 } });
const fixture: Fixture = {
  accounts: [
    { id: IDS.accountA, name: 'Shop A', users: [{ ...ANN, name: 'Ann' }], apiKeys: [{ name: 'ci', key: KEY_A }], chatbots: [{ id: IDS.bot, name: 'Lift bot' }] },
    { id: IDS.accountB, name: 'Shop B', apiKeys: [{ name: 'ci', key: KEY_B }], chatbots: [{ id: IDS.other, name: 'Other bot' }] },
  ],
};

const ch = await openClickHouse();
t.teardown(() => ch.close());
await insertEvents(ch.embedded, events);

for (const variant of databaseVariants()) {
  t.test(`holdout and lift over HTTP (${variant.name})`, { skip: variant.skip }, async (t) => {
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
    const json = async (query: Record<string, string | number>) => {
      const res = await get('lift', query);
      t.equal(res.statusCode, 200, JSON.stringify(query));
      return res.json();
    };
    const patch = (body: object, id = IDS.bot) => app.inject({ method: 'PATCH', url: `/api/dashboard/chatbots/${id}`, payload: body, headers: { 'x-api-key': KEY_A } });

    t.test('holdoutPercent: 0 by default, 0–50 through PATCH, anything else 422', async (t) => {
      const before = await app.inject({ method: 'GET', url: `/api/dashboard/chatbots/${IDS.bot}`, headers: { 'x-api-key': KEY_A } });
      t.equal(before.json().data.chatbot.holdoutPercent, 0);
      t.equal((await json({ chatbot_id: IDS.bot })).holdout_percent, 0, 'the statistic reads the setting');
      for (const bad of [51, -1, 'ten', [20]]) {
        const res = await patch({ holdoutPercent: bad });
        t.equal(res.statusCode, 422, `holdoutPercent ${JSON.stringify(bad)}`);
        t.same(Object.keys(res.json().errors ?? {}), ['holdoutPercent']);
      }
      const ok = await patch({ holdoutPercent: 20 });
      t.equal(ok.statusCode, 200);
      t.equal(ok.json().data.chatbot.holdoutPercent, 20);
      t.notOk('holdoutKey' in ok.json().data.chatbot, 'the key is never shown');
      t.equal((await patch({ maxPurchaseEur: 5000 })).json().data.chatbot.holdoutPercent, 20, 'a PATCH without it keeps it');
      t.equal((await patch({ holdoutPercent: 20 }, IDS.other)).statusCode, 404, "another account's chatbot");
    });

    t.test('the body: the module over the window, window fields first; compare and CSV as every statistic', async (t) => {
      const repo = createStatsRepository({ clickhouse: ch.embedded, db: tdb.postgres.db, appUrl: APP_URL });
      for (const days of [7, 30]) {
        const body = await json({ chatbot_id: IDS.bot, timeframe: days, compare: 'previous' });
        const { previous, ...own } = body;
        const expected = await repo.lift({ id: IDS.bot, abTestEnabled: false, holdoutPercent: 20 }, daysWindow(days, new Date(NOW)));
        t.same(own, { timeframe_days: days, start_date: new Date(NOW - days * 86_400_000).toISOString().slice(0, 10), end_date: '2026-02-10', ...expected }, `${days} days`);
        t.same(Object.keys(own).slice(0, 5), ['timeframe_days', 'start_date', 'end_date', 'holdout_percent', 'exposed'], 'documented order');
        t.equal(previous.timeframe_days, days);
        t.equal(previous.holdout_percent, 20);
      }
      const month = await json({ chatbot_id: IDS.bot, timeframe: 30 });
      t.ok(month.exposed.visitors > 0 && month.holdout.visitors > 0 && month.incremental_revenue.value > 0, 'the data has both arms and a lift');
      const compared = await json({ chatbot_id: IDS.bot, from: '2026-01-20', to: '2026-02-03', compare: 'previous' });
      t.same(compared.previous, await json({ chatbot_id: IDS.bot, from: '2026-01-05', to: '2026-01-19' }), "a range's previous is the API's answer for the days before");
      const filtered = await json({ chatbot_id: IDS.bot, timeframe: 30, device: 'mobile' });
      t.ok(filtered.exposed.visitors < month.exposed.visitors, 'a segment filter narrows the arms');

      const res = await get('lift', { chatbot_id: IDS.bot, timeframe: 30, format: 'csv' });
      t.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
      t.equal(res.headers['content-disposition'], `attachment; filename="chatlytics-lift-${IDS.bot}-30.csv"`);
      t.same(parseCsv(res.body), expectedTable('lift', month), 'CSV = JSON: one row, a column per figure');
    });

    t.test('the analytics page leads with the lift when a holdout runs, with the caveats in plain words', async (t) => {
      const host = new URL(APP_URL).host;
      const form = { host, origin: APP_URL, 'content-type': 'application/x-www-form-urlencoded' };
      const login = await app.inject({ method: 'POST', url: '/login', headers: form, payload: `email=${encodeURIComponent(ANN.email)}&password=${ANN.password}` });
      const cookie = `chatlytics_session=${login.cookies.find((c) => c.name === 'chatlytics_session')?.value}`;
      const page = async (query: string) => (await app.inject({ method: 'GET', url: `/app/${IDS.bot}/analytics?${query}`, headers: { cookie, host, accept: 'text/html' } })).body;
      const eur = (v: number) => new Intl.NumberFormat('en', { style: 'currency', currency: 'EUR' }).format(v);
      for (const days of [30, 1]) {
        const api = await json({ chatbot_id: IDS.bot, timeframe: days });
        const body = await page(`timeframe=${days}`);
        const { value, ci95 } = api.incremental_revenue;
        t.ok(body.includes(`The assistant added ${eur(value)} (95 %: ${eur(ci95.lower)} – ${eur(ci95.upper)}) this period.`), `${days} days: the API's figure leads (${eur(value)})`);
        t.ok(body.indexOf('id="h-lift"') < body.indexOf('id="h-overview"'), 'before the overview');
        const crosses = ci95.lower <= 0 && ci95.upper >= 0;
        t.equal(body.includes('cannot yet be told apart from chance'), crosses, `the chance caveat exactly when the interval includes 0 (${crosses})`);
        t.equal(body.includes('cannot be trusted until that is fixed'), api.sample_ratio_mismatch, 'the split caveat exactly when the check fails');
      }
      await patch({ holdoutPercent: 5 });
      t.ok((await page('timeframe=30')).includes('does not match the holdout of 5 %'), 'a split that does not match the setting is said so');
      await patch({ holdoutPercent: 0 });
      t.notOk((await page('timeframe=30')).includes('id="h-lift"'), 'no holdout: no lead');
      await patch({ holdoutPercent: 20 });
    });

    t.test('the weekly digest leads each chatbot with a holdout with the same words, for the week', async (t) => {
      const stats = createStatsService({ clickhouse: ch.embedded, db: tdb.postgres.db, appUrl: APP_URL, clock: () => new Date(NOW) });
      const digestOf = createDigestContent({ stats, chatbots: createChatbotRepository({ db: tdb.postgres.db }) });
      // The digest sent on Tuesday 2026-02-10 covers 2026-02-02 to 2026-02-08.
      const content = await digestOf(IDS.accountA, '2026-02-10');
      const week = await json({ chatbot_id: IDS.bot, from: content.windows.current.from, to: content.windows.current.to });
      const words = liftSummary(week, moneyIn('EUR'));
      t.same(content.chatbots[0].lift, words, 'the statistic of the digest\'s week, in the page\'s words');
      const mail = await renderDigest({ content, appUrl: APP_URL, unsubscribeUrl: `${APP_URL}/unsubscribe` });
      t.ok(mail.text.includes(words.headline), 'in the text part');
      t.ok(mail.html.includes(words.headline.replace(/&/g, '&amp;')), 'and in the HTML');
      for (const c of words.caveats) t.ok(mail.text.includes(c), `with its caveat: ${c.slice(0, 40)}…`);
      await patch({ holdoutPercent: 0 });
      t.equal((await digestOf(IDS.accountA, '2026-02-10')).chatbots[0].lift, null, 'no holdout: no lift in the digest');
      await patch({ holdoutPercent: 20 });
    });

    t.test("422 lists every bad parameter; 404 for another account's chatbot", async (t) => {
      const res = await get('lift', { chatbot_id: IDS.bot, timeframe: 0, compare: 'bogus' });
      t.equal(res.statusCode, 422);
      t.same(Object.keys(res.json().errors ?? {}).sort(), ['compare', 'timeframe']);
      for (const [id, key] of [[IDS.other, KEY_A], [IDS.bot, KEY_B], [createRng(5).uuid(), KEY_A]] as const) {
        const r = await get('lift', { chatbot_id: id }, key);
        t.same([r.statusCode, r.json()], [404, { success: false, message: 'Not found.' }], id);
      }
    });
  });
}
