/**
 * The revenue part of the tracking settings page: the source and the window saved through the
 * API's rules, shop secrets stored and never shown (only whether one is set), the orders key
 * shown on the one answer that generated it.
 */
import t from 'tap';
import Fastify from 'fastify';
import { loadConfig } from '@chatlytics/core';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createRng } from '@chatlytics/testkit';
import { createOrdersCredentialRepository } from '@chatlytics/ingest';
import { isOrderProblem, ordersKeyHash, toStoredOrder } from '@chatlytics/events';
import dashboardApp from '../src/app.js';
import { TEST_SCRYPT_COST } from '../src/auth/passwords.js';
import { importFixture } from '../src/fixtures/import.js';
import type { Fixture } from '../src/fixtures/schema.js';
import { openClickHouse, silentLog } from './stats-fixtures.js';

const rng = createRng(5959);
const IDS = { accountA: rng.uuid(), accountB: rng.uuid(), bot: rng.uuid(), other: rng.uuid() };
const ANN = { email: 'ann@shop-a.test', password: 'ann-password' };
const KEY_A = `ck_${'r'.repeat(30)}`;
const fixture: Fixture = {
  accounts: [
    { id: IDS.accountA, name: 'Shop A', users: [{ ...ANN, name: 'Ann' }], apiKeys: [{ name: 'ci', key: KEY_A }], chatbots: [{ id: IDS.bot, name: 'Boots' }] },
    { id: IDS.accountB, name: 'Shop B', chatbots: [{ id: IDS.other, name: 'Other bot' }] },
  ],
};

const ch = await openClickHouse();
t.teardown(() => ch.close());
// One order the shop reported an hour ago, which no tracker purchase matches.
const shopOrder = toStoredOrder(IDS.bot, { order_id: 'SHOP-1', placed_at: new Date(Date.now() - 3_600_000).toISOString(), currency: 'EUR', items: [{ item_id: 'p1', quantity: 1, value: 10 }], status: 'paid' }, 'api', new Date());
if (isOrderProblem(shopOrder)) throw new Error(shopOrder.message);
await ch.embedded.insert('orders', [shopOrder]);

for (const variant of databaseVariants()) {
  t.test(`revenue settings page (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open();
    t.teardown(() => tdb.destroy());
    await importFixture(tdb.postgres.db, fixture, { passwordCost: TEST_SCRYPT_COST });
    const app = Fastify({ loggerInstance: silentLog, pluginTimeout: 120_000 });
    await app.register(dashboardApp, { config: loadConfig({ DATA_DIR: tdb.dataDir, SESSION_SECRET: 'x'.repeat(40) }), postgres: tdb.postgres, clickhouse: ch.embedded, passwordCost: TEST_SCRYPT_COST });
    await app.ready();
    t.teardown(() => app.close());
    const host = '127.0.0.1:3000';
    const form = { host, origin: `http://${host}`, 'content-type': 'application/x-www-form-urlencoded' };
    const login = await app.inject({ method: 'POST', url: '/login', headers: form, payload: `email=${encodeURIComponent(ANN.email)}&password=${ANN.password}` });
    const cookie = `chatlytics_session=${login.cookies.find((c) => c.name === 'chatlytics_session')?.value}`;
    const get = (url: string) => app.inject({ method: 'GET', url, headers: { cookie, host, accept: 'text/html' } });
    const post = (url: string, body: string) => app.inject({ method: 'POST', url, headers: { ...form, cookie, accept: 'text/html' }, payload: body });
    const url = `/app/${IDS.bot}/tracking`;
    const apiChatbot = async () => (await app.inject({ method: 'GET', url: `/api/dashboard/chatbots/${IDS.bot}`, headers: { authorization: `Bearer ${KEY_A}` } })).json().data.chatbot;

    t.match((await get(`/app/${IDS.bot}/analytics?timeframe=7`)).body, /data-stat="purchases.attribution.source" data-value="tracker">Revenue from purchase events/, 'the analytics page names the rule beside the revenue');
    const page = await get(url);
    t.equal(page.statusCode, 200);
    t.match(page.body, /id="revenueSource-tracker"[^>]*checked/);
    t.match(page.body, /id="attributionWindowDays"[^>]*value="7"/);
    t.match(page.body, /Shopify webhook secret \(not set\)/);

    const saved = await post(`${url}/revenue`, 'revenueSource=orders&attributionWindowDays=14&shopifyWebhookSecret=shpss_typed-secret-1&woocommerceWebhookSecret=');
    t.equal(saved.statusCode, 302, saved.body.slice(0, 300));
    t.match(await apiChatbot(), { revenueSource: 'orders', attributionWindowDays: 14, hasShopifyWebhookSecret: true, hasWoocommerceWebhookSecret: false });
    t.match((await get(`/app/${IDS.bot}/analytics?timeframe=7`)).body, /data-value="orders">Revenue from the shop&#39;s orders, net of refunds and cancellations\. After chat: the visitor started a chat within 14 days before the order\./);
    t.match((await get(`/app/${IDS.bot}/analytics?timeframe=7`)).body, /0 matched, 0 only in the tracker \(forged, test or lost orders\), 1 only in the shop/, 'the reconciliation under the revenue');
    const after = await get(url);
    t.match(after.body, /id="revenueSource-orders"[^>]*checked/);
    t.match(after.body, /Shopify webhook secret \(set\)/);
    t.notOk(after.body.includes('shpss_typed-secret-1'), 'a secret is never shown');
    const creds = createOrdersCredentialRepository({ db: tdb.postgres.db });
    t.equal((await creds.find(IDS.bot))?.shopifyWebhookSecret, 'shpss_typed-secret-1');
    t.equal((await post(`${url}/revenue`, 'revenueSource=orders&attributionWindowDays=14&shopifyWebhookSecret=')).statusCode, 302);
    t.equal((await creds.find(IDS.bot))?.shopifyWebhookSecret, 'shpss_typed-secret-1', 'an empty field keeps the stored secret');

    const bad = await post(`${url}/revenue`, 'revenueSource=orders&attributionWindowDays=45');
    t.equal(bad.statusCode, 422);
    t.match(bad.body, /id="attributionWindowDays"[^>]*aria-invalid="true"/);
    t.match(bad.body, /value="45"/, 'what was typed comes back');
    t.equal((await apiChatbot()).attributionWindowDays, 14);

    const key = await post(`${url}/orders-key`, '');
    t.equal(key.statusCode, 201);
    const minted = /id="orders-key" class="copy" type="text" readonly value="(cok_[^"]+)"/.exec(key.body)?.[1];
    t.ok(minted, 'the key is on the page once');
    t.equal((await creds.find(IDS.bot))?.ordersKeyHash, ordersKeyHash(minted!), 'stored as its hash');
    t.notOk((await get(url)).body.includes(minted!), 'never shown again');
    t.match((await get(url)).body, /A key exists\./);
    t.equal((await post(`/app/${IDS.other}/tracking/revenue`, 'revenueSource=orders&attributionWindowDays=3')).statusCode, 404, "another account's chatbot does not exist");
  });
}
