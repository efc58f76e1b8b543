/**
 * The sources statistic and the segment filters through HTTP (app.inject on the real
 * dashboardApp): 404 for another account's chatbot, 422 for bad `by` and filter values, the
 * body's field order and numbers against the oracle, `compare=previous` (the previous period's
 * own oracle, same filter), a filter on every windowed statistic, and `format=csv` with its file name.
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
import { previousWindow } from '../src/stats/window.js';
import { daysWindow } from '../src/stats/window.js';
import { expectedTable, parseCsv } from './csv-helpers.js';
import { insertEvents, openClickHouse, silentLog } from './stats-fixtures.js';
import { oracleEngagement } from './stats-oracle.js';
import { oracleSources, restrictTo, segmentTokens } from './stats-oracle-segments.js';

const NOW = Date.parse('2026-02-10T08:00:00.000Z');
const rng = createRng(4343);
const IDS = { accountA: rng.uuid(), accountB: rng.uuid(), bot: rng.uuid(), botOther: rng.uuid() };
const KEY_A = `ck_${'e'.repeat(30)}`;
const KEY_B = `ck_${'f'.repeat(30)}`;
const BASE = '/api/dashboard/analytics/stats';
const events = generateEvents({ now: NOW, otherChatbotIds: [IDS.botOther], spanDays: 60, seed: 71, chatbotId: IDS.bot, users: 200 });
const fixture: Fixture = {
  accounts: [
    { id: IDS.accountA, name: 'Shop A', apiKeys: [{ name: 'ci', key: KEY_A }], chatbots: [{ id: IDS.bot, name: 'Bot', settings: { abTestEnabled: true } }] },
    { id: IDS.accountB, name: 'Shop B', apiKeys: [{ name: 'ci', key: KEY_B }], chatbots: [{ id: IDS.botOther, name: 'Other bot' }] },
  ],
};

const ch = await openClickHouse();
t.teardown(() => ch.close());
await insertEvents(ch.embedded, events);

const pglite = databaseVariants().find((v) => v.name === 'pglite')!;
t.test('sources and segment filters over HTTP', async (t) => {
  const tdb = await pglite.open();
  t.teardown(() => tdb.destroy());
  await importFixture(tdb.postgres.db, fixture, { passwordCost: TEST_SCRYPT_COST });
  const app = Fastify({ loggerInstance: silentLog, pluginTimeout: 120_000 });
  await app.register(dashboardApp, { config: loadConfig({ DATA_DIR: tdb.dataDir, SESSION_SECRET: 'x'.repeat(40) }), postgres: tdb.postgres, clickhouse: ch.embedded, passwordCost: TEST_SCRYPT_COST, clock: () => new Date(NOW) });
  await app.ready();
  t.teardown(() => app.close());
  const get = (path: string, query: Record<string, string>, key = KEY_A) =>
    app.inject({ method: 'GET', url: `${BASE}/${path}`, query, headers: { authorization: `Bearer ${key}` } });
  const w = daysWindow(30, new Date(NOW));
  const [from, to] = [w.from.getTime(), w.to.getTime()];

  t.test('404 for another account\'s chatbot; 422 for a bad grouping or filter value', async (t) => {
    t.equal((await get('sources', { chatbot_id: IDS.botOther })).statusCode, 404);
    t.equal((await get('sources', { chatbot_id: IDS.botOther }, KEY_B)).statusCode, 200, 'its owner sees it');
    for (const [path, q, field] of [
      ['sources', { by: 'country' }, 'by'], ['sources', { source: '' }, 'source'], ['engagement', { device: 'x'.repeat(256) }, 'device'],
      ['purchases', { utm_campaign: '' }, 'utm_campaign'],
    ] as const) {
      const res = await get(path, { chatbot_id: IDS.bot, ...q });
      t.equal(res.statusCode, 422, `${path} ${JSON.stringify(q)}`);
      t.ok(field in (res.json().errors ?? {}), `names ${field}`);
    }
  });

  t.test('the body: fields in order, the oracle\'s numbers; with a filter, and with the previous period', async (t) => {
    for (const by of ['source', 'utm_campaign', 'device'] as const) {
      const res = await get('sources', { chatbot_id: IDS.bot, timeframe: '30', by });
      t.equal(res.statusCode, 200);
      const body = res.json();
      t.same(Object.keys(body), ['timeframe_days', 'start_date', 'end_date', 'attribution', 'by', 'rows', 'other']);
      t.same(Object.keys(body.rows[0]), ['value', 'visitors', 'chatted', 'purchasers', 'revenue', 'conversion_rate_with_chat', 'conversion_rate_without_chat']);
      const { timeframe_days: _d, start_date: _s, end_date: _e, ...rest } = body;
      t.same(rest, oracleSources(events, IDS.bot, from, to, by), `by ${by}`);
    }
    t.same(Object.keys((await get('sources', { chatbot_id: IDS.bot })).json()).slice(4, 5), ['by'], 'by defaults to source');
    t.equal((await get('sources', { chatbot_id: IDS.bot })).json().by, 'source');

    const compared = (await get('sources', { chatbot_id: IDS.bot, timeframe: '30', by: 'device', source: 'google', compare: 'previous' })).json();
    const p = previousWindow({ days: 30, window: w }).window;
    const { timeframe_days: _d, start_date: _s, end_date: _e, ...previous } = compared.previous;
    t.same(previous, oracleSources(events, IDS.bot, p.from.getTime(), p.to.getTime(), 'device', { source: 'google' }), 'previous: its own window, the same filter');
    t.ok(compared.rows.length > 0 && previous.rows.length > 0, 'both periods have google visitors');
  });

  t.test('a filter restricts every windowed statistic, and is in the CSV file\'s name', async (t) => {
    const S = segmentTokens(events, IDS.bot, from, to, { device: 'tablet' });
    const res = await get('engagement', { chatbot_id: IDS.bot, timeframe: '30', device: 'tablet' });
    const { timeframe_days: _d, start_date: _s, end_date: _e, ...body } = res.json();
    t.same(body, oracleEngagement(restrictTo(events, S), IDS.bot, from, to));
    t.not(body.total_users, (await get('engagement', { chatbot_id: IDS.bot, timeframe: '30' })).json().total_users, 'not the unfiltered figure');
    for (const path of ['overview', 'popup-metrics', 'purchases', 'timeseries', 'sources']) {
      t.equal((await get(path, { chatbot_id: IDS.bot, timeframe: '30', device: 'tablet', compare: 'previous' })).statusCode, 200, path);
    }
    const csv = await get('sources', { chatbot_id: IDS.bot, timeframe: '30', by: 'utm_campaign', device: 'tablet', format: 'csv' });
    t.equal(csv.statusCode, 200);
    t.equal(csv.headers['content-disposition'], `attachment; filename="chatlytics-sources-${IDS.bot}-30-by_utm_campaign-device_tablet.csv"`);
    const json = (await get('sources', { chatbot_id: IDS.bot, timeframe: '30', by: 'utm_campaign', device: 'tablet' })).json();
    t.same(parseCsv(csv.body), expectedTable('sources', json), 'one row per value under a header, the rest summed last');
  });
});
