import Fastify from 'fastify';
import t from 'tap';
import type { BusMessage, EventBus } from '@chatlytics/bus';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createCachedCredentialSource, createOrdersCredentialRepository, ordersApp } from '@chatlytics/ingest';
import { buildTestApp, lastErrorCode } from './helper.js';
import { IDS, KEYS } from './fixture.js';

/**
 * The orders key: minted by the dashboard, shown once, stored as a hash, and what the ingest's
 * POST /api/orders then accepts (and the previous key no longer).
 */
for (const variant of databaseVariants()) {
  t.test(`orders key (${variant.name})`, { skip: variant.skip }, async (t) => {
    const { app, logs, tdb } = await buildTestApp(t, variant);
    const ann = { authorization: `Bearer ${KEYS.a}` };
    const bob = { 'x-api-key': KEYS.b };
    const published: BusMessage[] = [];
    const bus = { publish: async (m: BusMessage[]) => { published.push(...m); } } as unknown as EventBus;
    const ingest = Fastify({ logger: false });
    // No cache: each request reads the rows the dashboard just wrote.
    const repo = createOrdersCredentialRepository({ db: tdb.postgres.db });
    await ingest.register(ordersApp, { bus, credentials: createCachedCredentialSource({ load: (id) => repo.find(id), ttlMs: 0 }) });
    t.teardown(() => ingest.close());
    const order = JSON.stringify({ order_id: 'ORD-1', placed_at: '2026-03-01T10:00:00Z', currency: 'EUR', items: [{ item_id: 'p1', quantity: 1, value: 10 }], status: 'paid' });
    const postOrder = (key: string) => ingest.inject({ method: 'POST', url: '/api/orders', headers: { authorization: `Bearer ${key}` }, payload: order });

    const before = (await app.inject({ method: 'GET', url: `/api/dashboard/chatbots/${IDS.alpha}`, headers: ann })).json().data.chatbot;
    t.notOk(before.hasOrdersKey ?? false);
    const minted = await app.inject({ method: 'POST', url: `/api/dashboard/chatbots/${IDS.alpha}/orders-key`, headers: ann });
    t.equal(minted.statusCode, 201);
    const { ordersKey, ordersSigningSecret } = minted.json().data as { ordersKey: string; ordersSigningSecret: string };
    t.match(ordersKey, /^cok_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/);
    t.match(ordersSigningSecret, /^cos_/);
    t.equal((await postOrder(ordersKey)).statusCode, 200, 'the ingest accepts the new key');
    t.equal(published.length, 1);

    const stored = await repo.find(IDS.alpha);
    t.match(stored?.ordersKeyHash, /^[0-9a-f]{64}$/, 'only its SHA-256 is stored');
    t.equal(stored?.ordersSigningSecret, ordersSigningSecret, 'the signing secret in clear, for the HMAC');

    const rotated = await app.inject({ method: 'POST', url: `/api/dashboard/chatbots/${IDS.alpha}/orders-key`, headers: ann });
    const second = rotated.json().data.ordersKey as string;
    t.not(second, ordersKey);
    t.equal((await postOrder(ordersKey)).statusCode, 401, 'the old key stops working');
    t.equal((await postOrder(second)).statusCode, 200);

    const reads = [await app.inject({ method: 'GET', url: `/api/dashboard/chatbots/${IDS.alpha}`, headers: ann }), await app.inject({ method: 'GET', url: '/api/dashboard/chatbots', headers: ann })];
    for (const r of reads) t.notOk(r.body.includes('cok_') || r.body.includes('cos_') || r.body.includes('orders_key_hash'), 'no read shows a key, a secret or a hash');
    t.equal((await app.inject({ method: 'POST', url: `/api/dashboard/chatbots/${IDS.alpha}/orders-key`, headers: bob })).statusCode, 404, "another account's chatbot does not exist");
    t.equal(lastErrorCode(logs), 'DASHBOARD_004');
  });
}
