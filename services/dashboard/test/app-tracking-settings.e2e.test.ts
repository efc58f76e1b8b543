/**
 * The tracking settings page (/app/:id/tracking): the form saves through the API's rules, the
 * signing secret is shown on the one answer that generated it (with the Node and PHP snippets)
 * and never again, and the analytics page says how many purchases were set aside, as the JSON
 * API does.
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

// Recent: events_rejected drops rows older than its 90-day TTL as they are written.
const NOW = Math.floor(Date.now() / 60_000) * 60_000;
const rng = createRng(4141);
const IDS = { accountA: rng.uuid(), accountB: rng.uuid(), bot: rng.uuid(), other: rng.uuid() };
const ANN = { email: 'ann@shop-a.test', password: 'ann-password' };
const KEY_A = `ck_${'s'.repeat(30)}`;
const fixture: Fixture = {
  accounts: [
    { id: IDS.accountA, name: 'Shop A', users: [{ ...ANN, name: 'Ann' }], apiKeys: [{ name: 'ci', key: KEY_A }], chatbots: [{ id: IDS.bot, name: 'Boots' }] },
    { id: IDS.accountB, name: 'Shop B', chatbots: [{ id: IDS.other, name: 'Other bot' }] },
  ],
};

const ch = await openClickHouse();
t.teardown(() => ch.close());
const chAt = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
const setAside = (n: number, reason: string, chatbotId = IDS.bot, at = NOW - 3_600_000) => ({
  received_at: chAt(at), reason, error: `set aside by the ingest: ${reason}`, payload: '{}', source: 'ingest', chatbot_id: chatbotId,
  event_id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
});
await ch.embedded.insert('events_rejected', [
  setAside(1, 'implausible_value'), setAside(2, 'implausible_quantity'), setAside(3, 'missing_signature'), setAside(4, 'unverified_signature'),
  // A retried beacon of the first: one purchase.
  { ...setAside(1, 'implausible_value'), received_at: chAt(NOW - 3_500_000) },
  setAside(5, 'implausible_value', IDS.other),
  setAside(6, 'implausible_value', IDS.bot, NOW - 10 * 86_400_000),
  { ...setAside(7, 'invalid_event'), source: 'consumer' },
]);

for (const variant of databaseVariants()) {
  t.test(`tracking settings page (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open();
    t.teardown(() => tdb.destroy());
    await importFixture(tdb.postgres.db, fixture, { passwordCost: TEST_SCRYPT_COST });
    const app = Fastify({ loggerInstance: silentLog, pluginTimeout: 120_000 });
    await app.register(dashboardApp, {
      config: loadConfig({ DATA_DIR: tdb.dataDir, SESSION_SECRET: 'x'.repeat(40) }),
      postgres: tdb.postgres, clickhouse: ch.embedded, passwordCost: TEST_SCRYPT_COST, clock: () => new Date(NOW),
    });
    await app.ready();
    t.teardown(() => app.close());
    const host = '127.0.0.1:3000';
    const form = { host, origin: `http://${host}`, 'content-type': 'application/x-www-form-urlencoded' };
    const login = await app.inject({ method: 'POST', url: '/login', headers: form, payload: `email=${encodeURIComponent(ANN.email)}&password=${ANN.password}` });
    const cookie = `chatlytics_session=${login.cookies.find((c) => c.name === 'chatlytics_session')?.value}`;
    const get = (url: string) => app.inject({ method: 'GET', url, headers: { cookie, host, accept: 'text/html' } });
    const post = (url: string, body: string) => app.inject({ method: 'POST', url, headers: { ...form, cookie, accept: 'text/html' }, payload: body });
    const url = `/app/${IDS.bot}/tracking`;

    t.test('the form shows the stored settings and saves them; bad values come back in the form (422)', async (t) => {
      const page = await get(url);
      t.equal(page.statusCode, 200);
      t.match(page.body, /<textarea id="allowedOrigins" name="allowedOrigins"[^>]*><\/textarea>/);
      t.match(page.body, /id="maxPurchaseEur"[^>]*value="100000"/);
      t.match(page.body, /id="holdoutPercent"[^>]*value="0"/);
      t.match(page.body, /No secret yet\./);

      const saved = await post(url, `allowedOrigins=${encodeURIComponent('https://shop.example\n*.shop.example/')}&maxPurchaseEur=2500&holdoutPercent=10`);
      t.equal(saved.statusCode, 302);
      t.equal(saved.headers.location, url);
      t.match((await app.inject({ method: 'GET', url: `/api/dashboard/chatbots/${IDS.bot}`, headers: { authorization: `Bearer ${KEY_A}` } })).json().data.chatbot,
        { allowedOrigins: ['https://shop.example', '*.shop.example'], maxPurchaseEur: 2500, requireSignedPurchases: false, holdoutPercent: 10 });
      t.match((await get(url)).body, /id="holdoutPercent"[^>]*value="10"/);

      const bad = await post(url, `allowedOrigins=${encodeURIComponent('https://shop.example/checkout')}&maxPurchaseEur=-1&holdoutPercent=60`);
      t.equal(bad.statusCode, 422);
      t.match(bad.body, /id="holdoutPercent"[^>]*value="60"[^>]*aria-invalid="true"/, 'a holdout above 50 % is refused');
      t.match(bad.body, /id="allowedOrigins"[^>]*aria-invalid="true"/);
      t.match(bad.body, /id="maxPurchaseEur"[^>]*aria-invalid="true"[^>]*>/);
      t.match(bad.body, /https:\/\/shop\.example\/checkout<\/textarea>/, 'what was typed comes back');
      t.equal((await post(`/app/${IDS.other}/tracking`, 'maxPurchaseEur=5')).statusCode, 404, "another account's chatbot does not exist");
    });

    t.test('turning signed purchases on shows the new secret once, with the Node and PHP snippets; a new one replaces it', async (t) => {
      const on = await post(url, 'allowedOrigins=&maxPurchaseEur=100000&requireSignedPurchases=true');
      t.equal(on.statusCode, 201);
      const secret = /id="signing-secret" class="copy" type="text" readonly value="(cps_[^"]+)"/.exec(on.body)?.[1];
      t.ok(secret, 'the secret is on the page');
      t.match(on.body, /shown only this once/);
      t.match(on.body, /createHmac\(&#39;sha256&#39;|createHmac\('sha256'/);
      t.match(on.body, /hash_hmac\(/);
      t.match(on.body, new RegExp(IDS.bot), 'the snippets carry the chatbot id');

      const after = await get(url);
      t.notOk(after.body.includes(secret!), 'never shown again');
      t.match(after.body, /A secret exists\./);
      t.match(after.body, /id="requireSignedPurchases"[^>]*checked/);
      const saveAgain = await post(url, 'allowedOrigins=&maxPurchaseEur=100000&requireSignedPurchases=true');
      t.equal(saveAgain.statusCode, 302, 'saving again does not make a new secret');

      const rotated = await post(`${url}/signing-secret`, '');
      t.equal(rotated.statusCode, 201);
      const second = /id="signing-secret" class="copy" type="text" readonly value="(cps_[^"]+)"/.exec(rotated.body)?.[1];
      t.ok(second && second !== secret);
      const crossSite = await app.inject({ method: 'POST', url: `${url}/signing-secret`, headers: { ...form, origin: 'https://evil.example', cookie, accept: 'text/html' }, payload: '' });
      t.equal(crossSite.statusCode, 403, 'a cross-site form post is refused');
    });

    t.test('the analytics page says how many purchases were set aside, as the JSON API does', async (t) => {
      const api = await app.inject({ method: 'GET', url: `/api/dashboard/analytics/stats/set-aside-purchases?chatbot_id=${IDS.bot}&timeframe=7`, headers: { authorization: `Bearer ${KEY_A}` } });
      t.equal(api.statusCode, 200);
      t.match(api.json(), {
        timeframe_days: 7, total: 4, implausible: 2, unverified: 2,
        by_reason: { implausible_value: 1, implausible_quantity: 1, unverified_signature: 1, missing_signature: 1 },
      }, 'each purchase once, this chatbot, this window, the ingest\'s decisions only');
      const page = await get(`/app/${IDS.bot}/analytics?timeframe=7`);
      t.equal(page.statusCode, 200);
      t.match(page.body, /data-stat="set-aside-purchases.total" data-value="4">4 purchases set aside: 2 implausible, 2 unverified\./);
      t.match(page.body, new RegExp(`href="/app/${IDS.bot}/tracking"`));
      const none = await get(`/app/${IDS.other}/analytics?timeframe=7`);
      t.equal(none.statusCode, 404);
      const other = await app.inject({ method: 'GET', url: `/api/dashboard/analytics/stats/set-aside-purchases?chatbot_id=${IDS.other}`, headers: { authorization: `Bearer ${KEY_A}` } });
      t.equal(other.statusCode, 404, "another account's chatbot");
    });
  });
}
