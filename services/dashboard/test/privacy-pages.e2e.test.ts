/**
 * The personal-data settings through the app's session (README.md, "Personal data"): the
 * tracking settings page shows and saves the retention (bad values back in the form, 422), and a
 * visitor is erased and its receipt read with the session cookie; a cross-origin DELETE is refused.
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
import { openClickHouse, silentLog } from './stats-fixtures.js';

const NOW = Date.parse('2026-02-10T08:00:00.000Z');
const rng = createRng(6062);
const IDS = { account: rng.uuid(), bot: rng.uuid(), convo: rng.uuid() };
const ANN = { email: 'ann@shop-a.test', password: 'ann-password' };
const TOKEN = 'tok_visitor_6062';
const fixture: Fixture = {
  accounts: [{
    id: IDS.account, name: 'Shop A', users: [{ ...ANN, name: 'Ann' }],
    chatbots: [{ id: IDS.bot, name: 'Boots', conversations: [{ id: IDS.convo, startedAt: new Date(NOW).toISOString(), visitorToken: TOKEN, messages: [{ role: 'user', content: 'hi', createdAt: new Date(NOW).toISOString() }] }] }],
  }],
};

const pglite = databaseVariants().find((v) => v.name === 'pglite')!;
t.test('retention on the tracking page; erasure with the session', async (t) => {
  const ch = await openClickHouse();
  t.teardown(() => ch.close());
  const tdb = await pglite.open();
  t.teardown(() => tdb.destroy());
  await importFixture(tdb.postgres.db, fixture, { passwordCost: TEST_SCRYPT_COST });
  const app = Fastify({ loggerInstance: silentLog, pluginTimeout: 120_000 });
  await app.register(dashboardApp, {
    config: loadConfig({ DATA_DIR: tdb.dataDir, SESSION_SECRET: 'x'.repeat(40) }), postgres: tdb.postgres, clickhouse: ch.embedded,
    passwordCost: TEST_SCRYPT_COST, clock: () => new Date(NOW), privacy: { erasureSettleMs: 0 }, passwordReset: { mail: { pollIntervalMs: 50 } },
  });
  await app.ready();
  t.teardown(() => app.close());
  const host = '127.0.0.1:3000';
  const form = { host, origin: `http://${host}`, 'content-type': 'application/x-www-form-urlencoded' };
  const login = await app.inject({ method: 'POST', url: '/login', headers: form, payload: `email=${encodeURIComponent(ANN.email)}&password=${ANN.password}` });
  const cookie = `chatlytics_session=${login.cookies.find((c) => c.name === 'chatlytics_session')?.value}`;
  const url = `/app/${IDS.bot}/tracking`;
  const post = (body: string) => app.inject({ method: 'POST', url, headers: { ...form, cookie, accept: 'text/html' }, payload: body });
  const detail = async () => (await app.inject({ method: 'GET', url: `/api/dashboard/chatbots/${IDS.bot}`, headers: { cookie, host } })).json().data.chatbot;

  t.match((await app.inject({ method: 'GET', url, headers: { cookie, host, accept: 'text/html' } })).body, /id="retentionDays"[^>]*value="395"/, 'the default');
  t.equal((await post('allowedOrigins=&maxPurchaseEur=100000&retentionDays=60')).statusCode, 302);
  t.equal((await detail()).retentionDays, 60, 'saved');
  t.equal((await post('allowedOrigins=&maxPurchaseEur=5000')).statusCode, 302, 'a form without the field');
  t.equal((await detail()).retentionDays, 60, 'keeps it');
  const bad = await post('allowedOrigins=&maxPurchaseEur=100000&retentionDays=7');
  t.equal(bad.statusCode, 422);
  t.match(bad.body, /id="retentionDays"[^>]*value="7"[^>]*aria-invalid="true"/, 'what was typed comes back, marked');
  t.equal((await detail()).retentionDays, 60);

  const erase = (origin: string) => app.inject({ method: 'DELETE', url: `/api/dashboard/chatbots/${IDS.bot}/visitors/${TOKEN}`, headers: { cookie, host, origin } });
  t.equal((await erase('https://evil.example')).statusCode, 403, 'a cross-origin DELETE is refused');
  const res = await erase(`http://${host}`);
  t.equal(res.statusCode, 202);
  t.match(res.json().data.erasure, { status: 'pending', removed: { conversations: 1, messages: 1 } });
  const receipt = `/api/dashboard/chatbots/${IDS.bot}/visitors/erasures/${res.json().data.erasure.receipt}`;
  let status = 'pending';
  for (let i = 0; i < 100 && status !== 'complete'; i++) {
    await new Promise((r) => setTimeout(r, 100));
    status = (await app.inject({ method: 'GET', url: receipt, headers: { cookie, host } })).json().data.erasure.status;
  }
  t.equal(status, 'complete');
});
