/**
 * The analytics page's comparison with the previous period: the change rule (changeOf), and the
 * page through HTTP on the real dashboardApp: on by default, each headline figure's arrow,
 * percentage and previous value computed from the JSON API's own `compare=previous` answer, the
 * chart's previous-period data, and the switch (`compare=none`) that every link and form keeps.
 */
import t from 'tap';
import Fastify from 'fastify';
import { loadConfig } from '@chatlytics/core';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createRng, generateConversations, generateEvents, type GeneratedConversation } from '@chatlytics/testkit';
import dashboardApp from '../src/app.js';
import { TEST_SCRYPT_COST } from '../src/auth/passwords.js';
import { importFixture } from '../src/fixtures/import.js';
import type { Fixture } from '../src/fixtures/schema.js';
import { changeOf } from '../src/html/format.js';
import { insertEvents, openClickHouse, silentLog } from './stats-fixtures.js';

t.test('changeOf: ▲/▼ with the relative change, "new" from 0, "–" when both are 0', async (t) => {
  t.same(changeOf(120, 100), { kind: 'up', percent: 20, text: '+20 %' });
  t.same(changeOf(80, 100), { kind: 'down', percent: -20, text: '−20 %' });
  t.same(changeOf(1, 3), { kind: 'down', percent: -66.7, text: '−66.7 %' }, '1 decimal');
  t.same(changeOf(2.5, 2), { kind: 'up', percent: 25, text: '+25 %' }, 'rates and amounts alike');
  t.same(changeOf(5000, 100), { kind: 'up', percent: 4900, text: '+4,900 %' }, 'thousands separated');
  t.same(changeOf(0, 7), { kind: 'down', percent: -100, text: '−100 %' }, 'down to nothing');
  t.same(changeOf(7, 0), { kind: 'new', text: 'new' }, 'from nothing: new, no percentage');
  t.same(changeOf(0, 0), { kind: 'none', text: '–' }, 'nothing in either period');
  t.same(changeOf(42, 42), { kind: 'same', percent: 0, text: '±0 %' });
  t.same(changeOf(100_001, 100_000), { kind: 'up', percent: 0, text: '+0 %' }, 'a tiny change keeps its direction');
});

const NOW = Date.parse('2026-02-10T08:00:00.000Z');
const rng = createRng(4302);
const IDS = { account: rng.uuid(), other: rng.uuid(), bot: rng.uuid(), fresh: rng.uuid(), empty: rng.uuid(), foreign: rng.uuid() };
const ANN = { email: 'ann@compare.test', password: 'ann-password' };
const KEY = `ck_${'e'.repeat(30)}`;
const common = { now: NOW, otherChatbotIds: [IDS.foreign] };
// `bot` has 100 days of history; `fresh` only the last 5 days (its previous 7 days are empty: "new"); `empty` none ("–").
const events = [
  ...generateEvents({ ...common, seed: 51, chatbotId: IDS.bot, spanDays: 100 }),
  ...generateEvents({ ...common, seed: 52, chatbotId: IDS.fresh, spanDays: 5 }),
];
const convos = generateConversations({ ...common, seed: 53, chatbotId: IDS.bot, count: 80, spanDays: 30 });
const iso = (ms: number) => new Date(ms).toISOString();
const asFixture = (list: GeneratedConversation[], chatbotId: string) => list.filter((c) => c.chatbotId === chatbotId).map((c) => ({
  id: c.id, startedAt: iso(c.startedAt), messages: c.messages.map((m) => ({ ...m, createdAt: iso(m.createdAt) })), analysis: c.analysis,
}));
const fixture: Fixture = {
  accounts: [
    { id: IDS.account, name: 'Shop', users: [{ ...ANN, name: 'Ann' }], apiKeys: [{ name: 'ci', key: KEY }], chatbots: [
      { id: IDS.bot, name: 'Bot', settings: { abTestEnabled: true }, conversations: asFixture(convos, IDS.bot) },
      { id: IDS.fresh, name: 'Fresh bot', settings: { abTestEnabled: false } },
      { id: IDS.empty, name: 'Empty bot', settings: { abTestEnabled: false } },
    ] },
    { id: IDS.other, name: 'Other', chatbots: [{ id: IDS.foreign, name: 'Foreign' }] },
  ],
};

const ch = await openClickHouse();
t.teardown(() => ch.close());
await insertEvents(ch.embedded, events);

/** Each headline figure of a page: key, value, and its change cell (kind, percent, previous value, text) when there is one. */
const figures = (body: string) => [...body.matchAll(
  /<dd data-stat="([^"]+)" data-value="([^"]*)">[^<]*<\/dd>(?:<dd class="change [a-z -]+" data-change="([a-z]+)" data-percent="([^"]*)" data-previous="([^"]*)">(.*?)<\/dd>)?/g,
)].map(([, key, value, kind, percent, previous, inner]) => ({ key, value, kind, percent, previous, text: inner?.replace(/<[^>]+>/g, '') }));
const at = (o: unknown, path: string[]) => path.reduce<unknown>((v, k) => (v as Record<string, unknown>)?.[k], o);

for (const variant of databaseVariants()) {
  t.test(`the analytics page compares (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open();
    t.teardown(() => tdb.destroy());
    await importFixture(tdb.postgres.db, fixture, { passwordCost: TEST_SCRYPT_COST });
    const app = Fastify({ loggerInstance: silentLog, pluginTimeout: 120_000 });
    const config = loadConfig({ DATA_DIR: tdb.dataDir, SESSION_SECRET: 'x'.repeat(40) });
    await app.register(dashboardApp, { config, postgres: tdb.postgres, clickhouse: ch.embedded, passwordCost: TEST_SCRYPT_COST, clock: () => new Date(NOW) });
    await app.ready();
    t.teardown(() => app.close());
    const host = '127.0.0.1:3000';
    const login = await app.inject({
      method: 'POST', url: '/login', headers: { host, origin: `http://${host}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `email=${encodeURIComponent(ANN.email)}&password=${ANN.password}`,
    });
    const cookie = `chatlytics_session=${login.cookies.find((c) => c.name === 'chatlytics_session')?.value}`;
    const page = (url: string) => app.inject({ method: 'GET', url, headers: { cookie, accept: 'text/html' } });
    const api = async (stat: string, query: string) =>
      (await app.inject({ method: 'GET', url: `/api/dashboard/analytics/stats/${stat}?${query}`, headers: { 'x-api-key': KEY } })).json();

    /** Every figure's change on the page is changeOf(the API's value, the API's previous value). */
    const checkFigures = async (chatbotId: string, query: string) => {
      const res = await page(`/app/${chatbotId}/analytics${query ? `?${query}` : ''}`);
      t.equal(res.statusCode, 200, query);
      const shown = figures(res.body);
      const headline = shown.filter((f) => !f.key.startsWith('purchases.ab_test'));
      t.ok(headline.length >= 19, `${query}: ${headline.length} headline figures`);
      const bodies: Record<string, Record<string, unknown>> = {};
      for (const f of headline) {
        const [stat, ...path] = f.key.split('.');
        bodies[stat] ??= await api(stat, `chatbot_id=${chatbotId}&${query || 'timeframe=7'}&compare=previous`);
        const [value, previous] = [at(bodies[stat], path), at(bodies[stat].previous, path)];
        const change = changeOf(Number(value), Number(previous));
        t.equal(f.value, String(value), `${f.key}: the API's value`);
        t.same([f.kind, f.percent, f.previous], [change.kind, String(change.percent ?? ''), String(previous)], `${f.key}: ${f.text}`);
        t.ok(f.text?.includes(change.text), `${f.key}: shows ${change.text}`);
      }
      t.ok(shown.filter((f) => f.key.startsWith('purchases.ab_test')).every((f) => f.kind === undefined), 'the A/B block is not compared');
      const series = JSON.parse(/<script type="application\/json" id="timeseries-previous-data">(.*?)<\/script>/.exec(res.body)?.[1] ?? 'null');
      t.same(series, bodies.timeseries?.previous ? (bodies.timeseries.previous as { days: unknown }).days
        : (await api('timeseries', `chatbot_id=${chatbotId}&${query || 'timeframe=7'}&compare=previous`)).previous.days, `${query}: the chart's dashed series is the API's previous days`);
      const prev = (await api('overview', `chatbot_id=${chatbotId}&${query || 'timeframe=7'}&compare=previous`)).previous;
      t.match(res.body, `<span class="nowrap" data-previous-window>${prev.start_date} to ${prev.end_date}</span>`, `${query}: the previous period named`);
      return { body: res.body, shown: headline };
    };

    t.test('on by default: every headline figure with its change against the API\'s previous period', async (t) => {
      const { body, shown } = await checkFigures(IDS.bot, '');
      t.ok(shown.some((f) => f.kind === 'up') && shown.some((f) => f.kind === 'down'), 'the fixture has figures going both ways');
      t.match(body, `href="/app/${IDS.bot}/analytics?timeframe=7&amp;compare=none" data-compare-toggle="off">Hide the comparison</a>`);
      await checkFigures(IDS.bot, 'timeframe=30');
      await checkFigures(IDS.bot, 'from=2026-01-01&to=2026-01-31');
      const fresh = await checkFigures(IDS.fresh, 'timeframe=7');
      const above0 = fresh.shown.filter((f) => Number(f.value) > 0);
      t.ok(above0.length > 5 && above0.every((f) => f.kind === 'new' && f.text?.startsWith('▲ new vs ')),
        'a chatbot without events in the previous period: "▲ new" for each figure above 0');
      // Nothing tracked in either period (nor in the last 24 h): the setup steps instead of zeros.
      const empty = await page(`/app/${IDS.empty}/analytics?timeframe=7`);
      t.equal(empty.statusCode, 200);
      t.match(empty.body, 'data-empty-state', 'no data in either period: the steps to the first event');
      t.same(figures(empty.body), [], 'and no figure of zeros');
    });

    t.test('compare=none: no comparison, and every link and form keeps it off', async (t) => {
      const res = await page(`/app/${IDS.bot}/analytics?timeframe=30&compare=none`);
      t.equal(res.statusCode, 200);
      t.notMatch(res.body, 'class="change', 'no change cells');
      t.notMatch(res.body, 'timeseries-previous-data', 'no previous series');
      t.match(res.body, `href="/app/${IDS.bot}/analytics?timeframe=30" data-compare-toggle="on">Compare with the previous period</a>`);
      t.match(res.body, `href="/app/${IDS.bot}/analytics?timeframe=7&amp;compare=none"`, 'the quick picks keep it off');
      t.equal(res.body.match(/<input type="hidden" name="compare" value="none">/g)?.length, 4, 'the four forms (the chatbot switcher, days, range, filter) keep it off');
      const range = await page(`/app/${IDS.bot}/analytics?from=2026-01-01&to=2026-01-31&compare=none`);
      t.match(range.body, `href="/app/${IDS.bot}/analytics?from=2026-01-01&amp;to=2026-01-31" data-compare-toggle="on"`, 'a range keeps its days');
      const on = await page(`/app/${IDS.bot}/analytics?timeframe=30`);
      t.notMatch(on.body, 'name="compare"', 'on: the forms add nothing');
      t.equal((await page(`/app/${IDS.bot}/analytics?compare=bogus`)).statusCode, 422, 'another value: 422');
      t.equal((await page(`/app/${IDS.foreign}/analytics?compare=previous`)).statusCode, 404, "another account's chatbot: 404");
    });
  });
}
