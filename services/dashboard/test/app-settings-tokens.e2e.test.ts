/**
 * The settings page's auth tokens (listed with their expiry, revoked by a form POST under the
 * origin rule) and the scope of a new API key (a select, `read` unless `manage` is chosen); a
 * read key reads the statistics but changes nothing.
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
const rng = createRng(4141);
const IDS = { account: rng.uuid(), other: rng.uuid(), bot: rng.uuid() };
const ANN = { email: 'ann@shop-a.test', password: 'ann-password' };
const BOB = { email: 'bob@shop-a.test', password: 'bob-password' };
const KEY = `ck_${'k'.repeat(30)}`;
const HOST = '127.0.0.1:3000';
const FORM = { host: HOST, origin: `http://${HOST}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' };

const fixture: Fixture = {
  accounts: [{ id: IDS.account, name: 'Shop A', users: [{ ...ANN, name: 'Ann' }, { ...BOB, name: 'Bob' }], apiKeys: [{ name: 'ci', key: KEY }], chatbots: [{ id: IDS.bot, name: 'Bot' }] }],
};

const ch = await openClickHouse();
t.teardown(() => ch.close());
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

for (const variant of databaseVariants()) {
  t.test(`settings: auth tokens and key scopes (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open();
    t.teardown(() => tdb.destroy());
    await importFixture(tdb.postgres.db, fixture, { passwordCost: TEST_SCRYPT_COST });
    const config = loadConfig({ DATA_DIR: tdb.dataDir, SESSION_SECRET: 'x'.repeat(40) });
    const app = Fastify({ loggerInstance: silentLog, pluginTimeout: 120_000 });
    await app.register(dashboardApp, { config, postgres: tdb.postgres, clickhouse: ch.embedded, passwordCost: TEST_SCRYPT_COST, clock: () => new Date(NOW) });
    await app.ready();
    t.teardown(() => app.close());

    const login = await app.inject({ method: 'POST', url: '/login', headers: FORM, payload: form(ANN) });
    const cookie = `chatlytics_session=${login.cookies.find((c) => c.name === 'chatlytics_session')?.value}`;
    const page = (url: string) => app.inject({ method: 'GET', url, headers: { cookie, accept: 'text/html', host: HOST } });
    const post = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
      app.inject({ method: 'POST', url, headers: { ...FORM, cookie, ...headers }, payload: form(fields) });
    const issue = async (who: typeof ANN, name: string) =>
      (await app.inject({ method: 'POST', url: '/api/auth/tokens', payload: { ...who, name } })).json().data as { token: string; id: string };
    const chatbots = (credential: string) => app.inject({ method: 'GET', url: '/api/dashboard/chatbots', headers: { authorization: `Bearer ${credential}` } });

    t.test('your tokens are listed with their expiry and revoked with a button', async (t) => {
      const laptop = await issue(ANN, 'laptop <b>');
      const bobs = await issue(BOB, 'bob-token');
      const settings = await page('/app/settings');
      t.equal(settings.statusCode, 200);
      t.match(settings.body, new RegExp(`data-token-id="${laptop.id}"`));
      t.match(settings.body, /laptop &lt;b&gt;/, 'the name, escaped');
      t.match(settings.body, new RegExp(`<code>${laptop.token.slice(0, 7)}…</code>`), 'its first characters');
      t.match(settings.body, /<time datetime="2026-03-12T08:00:00.000Z">/, 'its expiry, 30 days on');
      t.notOk(settings.body.includes(laptop.token), 'never the token');
      t.notOk(settings.body.includes(bobs.id), "another user's tokens are not shown");
      t.match(settings.body, new RegExp(`<form method="post" action="/app/settings/tokens/${laptop.id}/revoke">`));

      const crossSite = await post(`/app/settings/tokens/${laptop.id}/revoke`, {}, { origin: 'https://evil.example' });
      t.equal(crossSite.statusCode, 403, 'the origin rule holds');
      t.equal((await chatbots(laptop.token)).statusCode, 200, 'nothing revoked');
      t.equal((await post(`/app/settings/tokens/${bobs.id}/revoke`, {})).statusCode, 404, "another user's token");
      t.equal((await chatbots(bobs.token)).statusCode, 200);

      const revoked = await post(`/app/settings/tokens/${laptop.id}/revoke`, {});
      t.equal(revoked.statusCode, 302);
      t.equal(revoked.headers.location, '/app/settings');
      t.equal((await chatbots(laptop.token)).statusCode, 401, 'the revoked token is refused');
      t.notMatch((await page('/app/settings')).body, new RegExp(laptop.id), 'and no longer listed');
      t.equal((await post(`/app/settings/tokens/${laptop.id}/revoke`, {})).statusCode, 404, 'twice is 404');
    });

    t.test('a new key reads unless the form asks for manage', async (t) => {
      const settings = await page('/app/settings');
      t.match(settings.body, /<select id="scope" name="scope"[^>]*>\s*<option value="read" selected>/, 'read is preselected');
      const keyOf = (body: string) => /id="new-key"[^>]*value="(ck_[^"]+)"/.exec(body)![1];
      const reader = keyOf((await post('/app/settings/api-keys', { name: 'reporting' })).body);
      const manager = keyOf((await post('/app/settings/api-keys', { name: 'ops', scope: 'manage' })).body);
      const listed = (await app.inject({ method: 'GET', url: '/api/dashboard/api-keys', headers: { authorization: `Bearer ${KEY}` } }))
        .json().data.keys as { name: string; scope: string }[];
      t.same(listed.filter((k) => k.name !== 'ci').map((k) => [k.name, k.scope]), [['reporting', 'read'], ['ops', 'manage']]);
      t.match((await page('/app/settings')).body, /<td data-label="Access">read<\/td>/, 'the list shows each scope');

      const stats = await app.inject({ method: 'GET', url: `/api/dashboard/analytics/stats/engagement?chatbot_id=${IDS.bot}&timeframe=7`, headers: { 'x-api-key': reader } });
      t.equal(stats.statusCode, 200, 'a read key reads the statistics');
      const csv = await app.inject({ method: 'GET', url: `/api/dashboard/analytics/stats/overview?chatbot_id=${IDS.bot}&timeframe=7&format=csv`, headers: { 'x-api-key': reader } });
      t.equal(csv.statusCode, 200, 'and their CSV');
      const create = (key: string) => app.inject({ method: 'POST', url: '/api/dashboard/chatbots', headers: { 'x-api-key': key }, payload: { name: 'x' } });
      t.equal((await create(reader)).statusCode, 403, 'but creates nothing');
      t.equal((await create(manager)).statusCode, 201, 'a manage key does');

      const bad = await post('/app/settings/api-keys', { name: 'kept', scope: 'admin' });
      t.equal(bad.statusCode, 422, 'a scope that does not exist');
      t.match(bad.body, /<select id="scope" name="scope"[^>]*aria-invalid="true"/);
      t.match(bad.body, /value="kept"/, 'the name is kept');
    });
  });
}
