import t from 'tap';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createOrdersCredentialRepository } from '@chatlytics/ingest';
import { buildTestApp } from './helper.js';
import { IDS, KEYS } from './fixture.js';

/** Where revenue comes from, the attribution window and the shop secrets through PATCH /api/dashboard/chatbots/{id}. */
for (const variant of databaseVariants()) {
  t.test(`revenue settings (${variant.name})`, { skip: variant.skip }, async (t) => {
    const { app, tdb } = await buildTestApp(t, variant);
    const ann = { authorization: `Bearer ${KEYS.a}` };
    const api = (method: 'GET' | 'PATCH', payload?: object, headers: Record<string, string> = ann) =>
      app.inject({ method, url: `/api/dashboard/chatbots/${IDS.alpha}`, headers, payload });
    const creds = createOrdersCredentialRepository({ db: tdb.postgres.db });

    t.match((await api('GET')).json().data.chatbot, { revenueSource: 'tracker', attributionWindowDays: 7, hasOrdersKey: false, hasShopifyWebhookSecret: false, hasWoocommerceWebhookSecret: false }, 'the defaults');

    const set = await api('PATCH', { revenueSource: 'orders', attributionWindowDays: 14, shopifyWebhookSecret: 'shpss_0123456789abcdef', woocommerceWebhookSecret: 'woo-secret-1' });
    t.equal(set.statusCode, 200, set.body);
    t.match(set.json().data.chatbot, { revenueSource: 'orders', attributionWindowDays: 14, hasShopifyWebhookSecret: true, hasWoocommerceWebhookSecret: true });
    t.notOk(set.body.includes('shpss_0123456789abcdef') || set.body.includes('woo-secret-1'), 'write-only: never in an answer');
    t.match(await creds.find(IDS.alpha), { shopifyWebhookSecret: 'shpss_0123456789abcdef', woocommerceWebhookSecret: 'woo-secret-1' }, 'what the receivers check with');

    const keep = await api('PATCH', { maxPurchaseEur: 500 });
    t.match(keep.json().data.chatbot, { revenueSource: 'orders', attributionWindowDays: 14, hasShopifyWebhookSecret: true }, 'fields left out keep their value');
    const cleared = await api('PATCH', { shopifyWebhookSecret: null });
    t.match(cleared.json().data.chatbot, { hasShopifyWebhookSecret: false, hasWoocommerceWebhookSecret: true }, 'null removes a secret');

    for (const bad of [{ attributionWindowDays: 0 }, { attributionWindowDays: 31 }, { revenueSource: 'both' }, { shopifyWebhookSecret: 'short' }]) {
      const res = await api('PATCH', bad);
      t.equal(res.statusCode, 422, JSON.stringify(bad));
    }
    t.equal((await api('PATCH', { revenueSource: 'tracker' }, { 'x-api-key': KEYS.b })).statusCode, 404, "another account's chatbot does not exist");
    t.equal((await api('GET')).json().data.chatbot.revenueSource, 'orders', 'untouched by refused changes');
  });
}
