/**
 * The CSV downloads of the analytics and insights pages: one link per statistic and the time
 * series, for the window the page shows (a day count or a date range), each answering with the
 * page's session cookie alone (no key) a CSV whose values are the JSON API's for that window.
 */
import t from 'tap';
import Fastify from 'fastify';
import { loadConfig } from '@chatlytics/core';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createRng, generateConversations, generateEvents } from '@chatlytics/testkit';
import dashboardApp from '../src/app.js';
import { TEST_SCRYPT_COST } from '../src/auth/passwords.js';
import { importFixture } from '../src/fixtures/import.js';
import type { Fixture } from '../src/fixtures/schema.js';
import { expectedTable, parseCsv } from './csv-helpers.js';
import { insertEvents, openClickHouse, silentLog } from './stats-fixtures.js';

const NOW = Date.parse('2026-02-10T08:00:00.000Z');
const rng = createRng(2020);
const IDS = { account: rng.uuid(), bot: rng.uuid(), other: rng.uuid() };
const ANN = { email: 'ann@csv.test', password: 'ann-password' };
const KEY = `ck_${'v'.repeat(30)}`;
const common = { now: NOW, otherChatbotIds: [IDS.other] };
const events = generateEvents({ ...common, seed: 31, chatbotId: IDS.bot });
const convos = generateConversations({ ...common, seed: 32, chatbotId: IDS.bot, count: 30 });
const iso = (ms: number) => new Date(ms).toISOString();
const buyers = [...new Set(events.filter((e) => e.chatbot_id === IDS.bot && e.event === 'purchase').map((e) => e.token))];
const fixture: Fixture = {
  accounts: [{ id: IDS.account, name: 'Shop', users: [{ ...ANN, name: 'Ann' }], apiKeys: [{ name: 'ci', key: KEY }], chatbots: [
    { id: IDS.bot, name: 'Bot', settings: { abTestEnabled: true }, conversations: convos.filter((c) => c.chatbotId === IDS.bot).map((c, i) => ({
      id: c.id, startedAt: iso(c.startedAt), messages: c.messages.map((m) => ({ ...m, createdAt: iso(m.createdAt) })), analysis: c.analysis,
      // A buyer's conversation: the insights page's money (revenue by topic) has tokens to follow.
      visitorToken: buyers[i % buyers.length],
    })) },
  ] }],
};

const ch = await openClickHouse();
t.teardown(() => ch.close());
await insertEvents(ch.embedded, events);

/** The page's CSV links: `data-csv` name → URL (attribute text unescaped). */
const csvLinks = (body: string) => Object.fromEntries([...body.matchAll(/<a class="button secondary(?: csv)?" href="([^"]+)" download data-csv="([^"]+)"/g)]
  .map((m) => [m[2]!, m[1]!.replace(/&amp;/g, '&')]));

for (const variant of databaseVariants()) {
  t.test(`analytics CSV downloads (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open();
    t.teardown(() => tdb.destroy());
    await importFixture(tdb.postgres.db, fixture, { passwordCost: TEST_SCRYPT_COST });
    const app = Fastify({ loggerInstance: silentLog, pluginTimeout: 120_000 });
    const config = loadConfig({ DATA_DIR: tdb.dataDir, SESSION_SECRET: 'x'.repeat(40) });
    await app.register(dashboardApp, { config, postgres: tdb.postgres, clickhouse: ch.embedded, passwordCost: TEST_SCRYPT_COST, clock: () => new Date(NOW) });
    await app.ready();
    t.teardown(() => app.close());
    const login = await app.inject({ method: 'POST', url: '/login', payload: ANN });
    const cookie = `chatlytics_session=${login.cookies.find((c) => c.name === 'chatlytics_session')?.value}`;

    // In the order of the page's blocks, each block's downloads in its heading.
    const analytics = ['overview', 'engagement', 'sources', 'timeseries', 'cart', 'popup-metrics', 'purchases'];
    const cases: [string, string | ((stat: string) => string), string[]][] = [
      [`/app/${IDS.bot}/analytics?timeframe=30`, 'timeframe=30', analytics],
      [`/app/${IDS.bot}/analytics?from=2026-01-20&to=2026-02-03`, 'from=2026-01-20&to=2026-02-03', analytics],
      [`/app/${IDS.bot}/analytics`, 'timeframe=7', analytics],
      // A filtered page's files are filtered too; the sources table's grouping goes to its own file only.
      [`/app/${IDS.bot}/analytics?timeframe=30&device=mobile&by=device`, (stat) => `timeframe=30&device=mobile${stat === 'sources' ? '&by=device' : ''}`, analytics],
      [`/app/${IDS.bot}/insights?timeframe=month`, 'timeframe=month', ['conversation-insights']],
    ];
    for (const [url, windowOf, stats] of cases) {
      t.test(url, async (t) => {
        const page = await app.inject({ method: 'GET', url, headers: { cookie, accept: 'text/html' } });
        t.equal(page.statusCode, 200);
        const links = csvLinks(page.body);
        t.same(Object.keys(links), stats, 'one download per statistic');
        for (const stat of stats) {
          const window = typeof windowOf === 'string' ? windowOf : windowOf(stat);
          const link = links[stat]!;
          t.equal(link, `/api/dashboard/analytics/stats/${stat}?chatbot_id=${IDS.bot}&${window}&format=csv`, `${stat}: the page's window`);
          const csv = await app.inject({ method: 'GET', url: link, headers: { cookie } });
          t.equal(csv.statusCode, 200, `${stat}: the session cookie is enough`);
          t.equal(csv.headers['content-type'], 'text/csv; charset=utf-8');
          t.match(String(csv.headers['content-disposition']), /^attachment; filename="chatlytics-/);
          const json = await app.inject({ method: 'GET', url: `/api/dashboard/analytics/stats/${stat}?chatbot_id=${IDS.bot}&${window}`, headers: { authorization: `Bearer ${KEY}` } });
          const table = parseCsv(csv.body);
          t.same(table, expectedTable(stat, json.json()), `${stat}: a header of column names, then one row per record`);
          if (stat === 'timeseries') t.ok(table.length > 2 && table.slice(1).some((r) => Number(r[1]) > 0), 'the series holds visitors');
          if (stat === 'popup-metrics') t.ok(table.length > 2, 'one row per popup version');
          if (stat === 'conversation-insights') {
            t.ok(table.length > 5, 'one row per ranked item');
            // The money the page shows: each ranked item's revenue, and what the assistant did not know cost.
            const [header] = table;
            const column = (name: string) => table.slice(1).map((r) => r[header!.indexOf(name)]!);
            const revenue = column('revenue').filter((v) => v !== '');
            t.ok(revenue.length > 0, 'the ranked items carry their revenue');
            t.same(revenue, [...page.body.matchAll(/data-revenue="([^"]+)"/g)].map((m) => m[1]), 'every revenue the page shows, in its order');
            t.equal(column('abandoned_value').at(-1), page.body.match(/data-missing-total="([^"]+)"/)?.[1], 'and the cost of what the assistant did not know');
          }
        }
      });
    }

    t.test('guests get no CSV: the link needs the session', async (t) => {
      const res = await app.inject({ method: 'GET', url: `/api/dashboard/analytics/stats/overview?chatbot_id=${IDS.bot}&timeframe=7&format=csv` });
      t.equal(res.statusCode, 401);
    });
  });
}
